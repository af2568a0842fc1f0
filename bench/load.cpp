// neograde-bench-load: how many requests per second neograde's client sends and reads back on
// N keep-alive connections, for comparison with wrk on the same endpoint and the same
// connections. The connections share one event loop and one thread (--threads T: T loops, one
// thread each), as wrk's do. Prints one JSON object.
//
//   neograde-bench-load --url URL [--header 'Name: value' ...] --connections 32 --seconds 10
//   neograde-bench-load --spec lambda --base-url URL --api-key KEY ...   (typed: list instances)
//
// Raw mode measures the HTTP layer (Beast, deadlines, size caps, the redacted transcript);
// typed mode adds what a check pays on top: the spec's request template and auth, JSON parsing
// and reading the response as the operation's result. --no-transcript keeps no exchange (no
// redaction), to see the wire alone.

#include <neograde/clients/provider_client.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

using namespace neograde;
using steady = std::chrono::steady_clock;

namespace {

struct tally {
  long ok = 0;
  long failed = 0;
  std::vector<double> latencies_ms;
  steady::time_point first_sent, last_read;  // the loop's sending time, its clients made
};

struct load_options {
  std::string url;
  std::vector<std::string> headers;
  std::string spec;
  std::string base_url;
  std::string api_key;
  int connections = 1;
  int threads = 1;
  double seconds = 10;
  bool no_transcript = false;
};

http::client_options client_options(const load_options& o) {
  http::client_options c;
  c.max_retries = 0;  // a 429 is counted as a failure, never waited for
  c.transcript_limit = 1;
  c.keep_exchanges = !o.no_transcript;
  return c;
}

http::request raw_request(const load_options& o) {
  http::request req;
  req.url = o.url;
  for (const auto& h : o.headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("a header is 'Name: value': " + h);
    const auto value = h.find_first_not_of(' ', colon + 1);
    req.headers.emplace_back(h.substr(0, colon), value == std::string::npos ? std::string() : h.substr(value));
  }
  return req;
}

// One connection: a request the moment the previous answer is read, until the loop's deadline.
class connection {
 public:
  connection(http::event_loop& loop, const load_options& o, const std::optional<provider_spec>& spec, const bool& stopping, tally& t)
      : stopping_(stopping), tally_(t) {
    if (spec) typed_ = std::make_unique<provider_client>(loop, *spec, o.base_url, o.api_key, client_options(o));
    else {
      raw_ = std::make_unique<http::client>(loop, client_options(o));
      request_ = raw_request(o);
    }
  }

  void next() {
    if (stopping_) return;
    start_ = steady::now();
    if (typed_) typed_->async_call(operation_id::list, [this](call_result r) { answered(r.success); });
    else
      raw_->async_send(request_, [this](http::send_result r) { answered(r && r->status < 400); });
  }

 private:
  void answered(bool ok) {
    tally_.latencies_ms.push_back(std::chrono::duration<double, std::milli>(steady::now() - start_).count());
    ok ? ++tally_.ok : ++tally_.failed;
    next();
  }

  const bool& stopping_;
  tally& tally_;
  std::unique_ptr<http::client> raw_;
  std::unique_ptr<provider_client> typed_;
  http::request request_;
  steady::time_point start_;
};

// One thread's share: `n` connections on one loop, for `seconds`; what is in flight then ends.
void run_loop(const load_options& o, const std::optional<provider_spec>& spec, int n, tally& t) {
  t.latencies_ms.reserve(1 << 20);
  http::event_loop loop;
  bool stopping = false;
  std::vector<std::unique_ptr<connection>> connections;
  for (int i = 0; i < n; ++i) connections.push_back(std::make_unique<connection>(loop, o, spec, stopping, t));
  loop.after(std::chrono::milliseconds(static_cast<long long>(o.seconds * 1000)), [&] { stopping = true; });
  t.first_sent = steady::now();
  for (auto& c : connections) c->next();
  loop.run();
  t.last_read = steady::now();
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"neograde's client under load: requests per second on N keep-alive connections"};
  load_options o;
  app.add_option("--url", o.url, "Absolute URL to GET (raw mode)");
  app.add_option("--header", o.headers, "Request header, 'Name: value' (raw mode; repeatable)");
  app.add_option("--spec", o.spec, "Typed mode: list instances through this spec's client");
  app.add_option("--base-url", o.base_url, "Typed mode: the API base URL");
  app.add_option("--api-key", o.api_key, "Typed mode: the API key");
  app.add_option("--connections", o.connections, "Keep-alive connections")->check(CLI::Range(1, 1024));
  app.add_option("--threads", o.threads, "Event loops, one thread each, sharing the connections")->check(CLI::Range(1, 64));
  app.add_option("--seconds", o.seconds, "How long to send")->check(CLI::PositiveNumber);
  app.add_flag("--no-transcript", o.no_transcript, "Keep no exchange (no redaction): the wire alone");
  CLI11_PARSE(app, argc, argv);
  if (o.url.empty() == o.spec.empty()) {
    std::cerr << "neograde-bench-load: give --url (raw) or --spec with --base-url and --api-key (typed)\n";
    return 2;
  }
  try {
    std::optional<provider_spec> spec;
    if (!o.spec.empty()) {
      auto path = resolve_spec(o.spec);
      if (!path) throw std::runtime_error("no spec named " + o.spec);
      auto loaded = load_spec(*path);
      if (!loaded) throw std::runtime_error(loaded.error().what());
      spec = std::move(*loaded);
    }
    (void)raw_request(o);  // a malformed header is reported here, not on a loop's thread
    const int threads = std::min(o.threads, o.connections);
    std::vector<tally> tallies(static_cast<std::size_t>(threads));
    std::vector<std::thread> loops;
    for (int i = 0; i < threads; ++i) {
      const int share = o.connections / threads + (i < o.connections % threads ? 1 : 0);
      loops.emplace_back([&, share, i] { run_loop(o, spec, share, tallies[static_cast<std::size_t>(i)]); });
    }
    for (auto& th : loops) th.join();
    tally all{.ok = 0, .failed = 0, .latencies_ms = {}, .first_sent = tallies.front().first_sent, .last_read = tallies.front().last_read};
    for (auto& t : tallies) {
      all.first_sent = std::min(all.first_sent, t.first_sent);
      all.last_read = std::max(all.last_read, t.last_read);
      all.ok += t.ok;
      all.failed += t.failed;
      all.latencies_ms.insert(all.latencies_ms.end(), t.latencies_ms.begin(), t.latencies_ms.end());
    }
    const double elapsed = std::chrono::duration<double>(all.last_read - all.first_sent).count();
    const double rps = static_cast<double>(all.ok) / elapsed;
    std::cout << nlohmann::json{{"mode", spec ? "typed" : "raw"},
                                {"connections", o.connections},
                                {"threads", threads},
                                {"transcript", !o.no_transcript},
                                {"seconds", elapsed},
                                {"requests", all.ok},
                                {"failed", all.failed},
                                {"requests_per_s", rps},
                                {"latency_p50_ms", percentile(all.latencies_ms, 0.5)},
                                {"latency_p99_ms", percentile(all.latencies_ms, 0.99)}}
                     .dump()
              << "\n";
    return all.failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "neograde-bench-load: " << e.what() << "\n";
    return 1;
  }
}
