// Micro-benchmarks of the hot paths every request goes through: parsing the HTTP response,
// reading it as an operation's result (JSON, success, error envelope), validating it against the
// operation's response schema, mapping its objects onto canonical types, and writing a result
// line. The inputs are real: the list of 20 instances that each spec's emulator answers.

#include <neograde/clients/provider_client.hpp>
#include <neograde/conformance/catalogue.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/emulator/emulator.hpp>
#include <neograde/reports/results.hpp>

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

using namespace neograde;

namespace {

constexpr int instances_listed = 20;

// One provider's list-instances response, as its emulator answers it with 20 instances.
struct fixture {
  provider_spec spec;
  std::unique_ptr<emulator::emulator> emu;
  std::unique_ptr<provider_client> client;
  const operation_spec* list = nullptr;
  http::response response;
  std::string wire;  // the same response as HTTP/1.1 bytes
  nlohmann::json doc;
};

provider_spec load(const std::string& name) {
  auto path = resolve_spec(name);
  if (!path) throw std::runtime_error("no spec " + name);
  auto spec = load_spec(*path);
  if (!spec) throw std::runtime_error(spec.error().what());
  return std::move(*spec);
}

fixture& get(const std::string& provider) {
  static std::map<std::string, fixture> all;
  if (auto it = all.find(provider); it != all.end()) return it->second;
  fixture& f = all[provider];
  f.spec = load(provider);
  emulator::model_options m;
  m.api_keys = emulator::make_api_keys(f.spec, 1, "bench");
  m.time_scale = 0;
  m.rate_limit = false;
  f.emu = std::make_unique<emulator::emulator>(f.spec, m);
  f.emu->start();
  f.client = std::make_unique<provider_client>(f.spec, f.emu->base_url(), m.api_keys[0]);
  std::string key_name;
  if (f.spec.operation(operation_id::ssh_keys_add) != nullptr) {
    key_name = "bench";
    (void)f.client->add_ssh_key(key_name, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench");
  }
  // One instance launched; its list entry repeated to make a page of 20 (emulator capacities
  // are a handful per type).
  const auto offer = f.client->choose_offer().chosen;
  if (!offer) throw std::runtime_error(provider + ": the emulator offers nothing to launch");
  auto id = f.client->launch({.instance_type = offer->instance_type,
                              .region = offer->region,
                              .ssh_key_name = key_name,
                              .name = "neograde-bench-0",
                              .params = offer->params});
  if (!id.value) throw std::runtime_error(provider + ": launch failed: " + id.call.describe());
  f.list = f.spec.operation(operation_id::list);
  auto listed = f.client->call(operation_id::list);
  if (!listed.response || !listed.json || !f.list->items) throw std::runtime_error(provider + ": list failed: " + listed.describe());
  f.doc = *listed.json;
  auto* items = &f.doc.at(nlohmann::json::json_pointer(*f.list->items));
  if (items->empty()) throw std::runtime_error(provider + ": the list holds no instance");
  const auto one = items->is_array() ? items->front() : items->begin().value();
  for (int i = 1; static_cast<int>(items->size()) < instances_listed; ++i) {
    if (items->is_array()) items->push_back(one);
    else
      (*items)["bench-" + std::to_string(i)] = one;
  }
  f.response = *listed.response;
  f.response.body = f.doc.dump();
  f.wire = "HTTP/1.1 " + std::to_string(f.response.status) + " OK\r\n";
  for (const auto& [k, v] : f.response.headers)
    if (k != "Content-Length" && k != "Transfer-Encoding") f.wire += k + ": " + v + "\r\n";
  f.wire += "Content-Length: " + std::to_string(f.response.body.size()) + "\r\n\r\n" + f.response.body;
  return f;
}

void bytes_processed(benchmark::State& state, std::size_t per_iteration) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * per_iteration));
}

void http_parse(benchmark::State& state, const std::string& provider) {
  const auto& f = get(provider);
  for (auto _ : state) {
    auto r = http::parse_response(f.wire);
    benchmark::DoNotOptimize(r);
  }
  bytes_processed(state, f.wire.size());
}

void interpret(benchmark::State& state, const std::string& provider) {
  const auto& f = get(provider);
  for (auto _ : state) {
    auto r = interpret_response(f.spec, f.list, f.response);
    benchmark::DoNotOptimize(r);
  }
  bytes_processed(state, f.response.body.size());
}

void schema_validate(benchmark::State& state, const std::string& provider) {
  const auto& f = get(provider);
  if (!f.list->response_schema) {
    state.SkipWithError("the list operation declares no response schema");
    return;
  }
  const json_schema schema(*f.list->response_schema);
  if (!schema.validate(f.doc).empty()) state.SkipWithError("the emulator's list response breaks its own schema");
  for (auto _ : state) {
    auto v = schema.validate(f.doc);
    benchmark::DoNotOptimize(v);
  }
  bytes_processed(state, f.response.body.size());
}

void field_extract(benchmark::State& state, const std::string& provider) {
  const auto& f = get(provider);
  const auto items = f.list->items.value_or("");
  for (auto _ : state) {
    std::size_t n = 0;
    for (const auto& obj : f.client->collection(f.doc, items, f.list->items_are_object_values)) {
      auto inst = f.client->to_instance(obj);
      benchmark::DoNotOptimize(inst);
      ++n;
    }
    if (n != instances_listed) state.SkipWithError("the list did not read back 20 instances");
  }
  state.SetItemsProcessed(state.iterations() * instances_listed);
}

// One outcome line of results.jsonl (serialised and flushed to the page cache; the file is
// synced once, at the end of a run).
void jsonl_write(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / ("neograde-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto& d = conformance::catalogue().front();
  check_outcome o;
  o.check_id = d.id;
  o.result = outcome::fail;
  o.reason = "the 404 answer carries no error envelope: the body is text/html";
  o.evidence.resize(1);
  o.evidence[0].method = "GET";
  o.evidence[0].url = "http://127.0.0.1:8080/api/v1/instances/does-not-exist";
  o.evidence[0].request_headers = {{"Authorization", "<redacted>"}, {"Accept", "application/json"}};
  o.evidence[0].status = 404;
  o.evidence[0].response_headers = {{"Content-Type", "text/html"}};
  o.evidence[0].response_body = std::string(600, 'x');
  o.reproduce = "curl -sS -H \"Authorization: Bearer $LAMBDA_API_KEY\" http://127.0.0.1:8080/api/v1/instances/does-not-exist";
  {
    reports::run_header h;
    h.run_id = "bench";
    h.spec = &get("lambda").spec;
    h.source = result_source::emulated;
    reports::results_writer w(dir / "results.jsonl", h);
    for (auto _ : state) w.outcome(d, o);
    w.finish(nlohmann::json::object());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(std::filesystem::file_size(dir / "results.jsonl")));
  state.SetItemsProcessed(state.iterations());
  std::filesystem::remove_all(dir);
}

}  // namespace

// Lambda (a JSON array under data), RunPod v2 (a bare array), DigitalOcean (a paginated
// object): the three shapes of list response the catalogue has most.
#define NEOGRADE_PER_PROVIDER(fn)          \
  BENCHMARK_CAPTURE(fn, lambda, "lambda"); \
  BENCHMARK_CAPTURE(fn, runpod, "runpod"); \
  BENCHMARK_CAPTURE(fn, digitalocean, "digitalocean")

NEOGRADE_PER_PROVIDER(http_parse);
NEOGRADE_PER_PROVIDER(interpret);
NEOGRADE_PER_PROVIDER(schema_validate);
NEOGRADE_PER_PROVIDER(field_extract);
BENCHMARK(jsonl_write);

BENCHMARK_MAIN();
