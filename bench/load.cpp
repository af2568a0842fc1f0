// neograde-bench-load: how many requests per second neograde's client sends and reads back on
// N keep-alive connections (one client and one thread per connection), for comparison with wrk
// on the same endpoint and the same connections. Prints one JSON object.
//
//   neograde-bench-load --url URL [--header 'Name: value' ...] --connections 32 --seconds 10
//   neograde-bench-load --spec lambda --base-url URL --api-key KEY ...   (typed: list instances)
//
// Raw mode measures the HTTP layer (Beast, deadlines, size caps, the redacted transcript); typed
// mode adds what a check pays on top: the spec's request template and auth, JSON parsing and
// reading the response as the operation's result.

#include <neograde/clients/provider_client.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

using namespace neograde;
using steady = std::chrono::steady_clock;

namespace {

struct tally {
  long ok = 0;
  long failed = 0;
  std::vector<double> latencies_ms;
};

struct load_options {
  std::string url;
  std::vector<std::string> headers;
  std::string spec;
  std::string base_url;
  std::string api_key;
  int connections = 1;
  double seconds = 10;
};

// One connection's loop: a request the moment the previous answer is read, until `stop`.
template <class Send>
void drive(Send send, const std::atomic<bool>& stop, tally& t) {
  t.latencies_ms.reserve(1 << 16);
  while (!stop.load(std::memory_order_relaxed)) {
    const auto start = steady::now();
    const bool ok = send();
    t.latencies_ms.push_back(std::chrono::duration<double, std::milli>(steady::now() - start).count());
    ok ? ++t.ok : ++t.failed;
  }
}

http::client_options client_options() {
  http::client_options o;
  o.max_retries = 0;  // a 429 is counted as a failure, never waited for
  return o;
}

void connection(const load_options& o, const std::optional<provider_spec>& spec, const std::atomic<bool>& stop, tally& t) {
  if (spec) {
    provider_client c(*spec, o.base_url, o.api_key, client_options());
    drive([&] { return c.call(operation_id::list).success; }, stop, t);
    return;
  }
  http::client c(client_options());
  http::request req;
  req.url = o.url;
  for (const auto& h : o.headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("a header is 'Name: value': " + h);
    req.headers.emplace_back(h.substr(0, colon), h.substr(h.find_first_not_of(' ', colon + 1)));
  }
  drive(
      [&] {
        auto r = c.send(req);
        return r && r->status < 400;
      },
      stop, t);
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
  app.add_option("--connections", o.connections, "Connections, one thread each")->check(CLI::Range(1, 1024));
  app.add_option("--seconds", o.seconds, "How long to send")->check(CLI::PositiveNumber);
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
    std::atomic<bool> stop{false};
    std::vector<tally> tallies(static_cast<std::size_t>(o.connections));
    std::vector<std::thread> threads;
    const auto start = steady::now();
    for (auto& t : tallies) threads.emplace_back([&, &t = t] { connection(o, spec, stop, t); });
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    stop = true;
    for (auto& th : threads) th.join();
    const double elapsed = std::chrono::duration<double>(steady::now() - start).count();
    tally all;
    for (auto& t : tallies) {
      all.ok += t.ok;
      all.failed += t.failed;
      all.latencies_ms.insert(all.latencies_ms.end(), t.latencies_ms.begin(), t.latencies_ms.end());
    }
    const double rps = static_cast<double>(all.ok) / elapsed;
    std::cout << nlohmann::json{{"mode", spec ? "typed" : "raw"},
                                {"connections", o.connections},
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
