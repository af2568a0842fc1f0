// The read-only audit (conformance --read-only; session_options::read_only): on every spec's
// emulator it sends no create (the emulator's own count of create requests, instances and SSH
// keys stays at zero), reports the checks that would create something as "not run: read-only
// audit", and measures the catalogue and the API's traffic (conformance/audit.hpp).

#include <neograde/conformance/audit.hpp>

#include "../support/emulated_run.hpp"
#include "../support/specs.hpp"

#include <neograde/conformance/catalogue.hpp>

#include <gtest/gtest.h>

using namespace neograde;

namespace {

constexpr double time_scale = 0.002;

bool needs_spending(const check_descriptor& d) {
  return std::any_of(d.needs.begin(), d.needs.end(), [](const check_need& n) { return n.what == check_need::kind::spending; });
}

struct audited {
  conformance::run_report report;
  std::size_t create_requests = 0, instances = 0, keys = 0;
};

audited run(const provider_spec& spec, bool read_only) {
  test::virtual_emulator target(spec, {}, time_scale, "audit", !read_only);
  audited out{conformance::run(target.target(), {})};
  const auto& model = target.emu().model();
  out.create_requests = model.create_requests();
  out.instances = model.instances_created();
  out.keys = model.ssh_keys_created();
  return out;
}

class ReadOnlyAudit : public ::testing::TestWithParam<std::string> {};

TEST_P(ReadOnlyAudit, CreatesNothingAndSaysWhatItDidNotRun) {
  const auto& spec = test::spec(GetParam());
  const auto a = run(spec, true);
  // The emulator's count: no request reached a launch or an SSH key add, nothing was made.
  EXPECT_EQ(a.create_requests, 0u);
  EXPECT_EQ(a.instances, 0u);
  EXPECT_EQ(a.keys, 0u);
  ASSERT_EQ(a.report.outcomes.size(), conformance::catalogue().size());
  EXPECT_FALSE(a.report.stopped.has_value());
  for (const auto& o : a.report.outcomes) {
    const auto* d = conformance::find_check(o.check_id);
    ASSERT_NE(d, nullptr) << o.check_id;
    // What would create something is not run (or not applicable to this provider at all), never failed.
    if (needs_spending(*d)) {
      EXPECT_EQ(o.result, outcome::skipped) << o.check_id << ": " << o.reason;
      EXPECT_TRUE(o.reason.starts_with("not run: read-only audit") || o.reason.starts_with("not applicable: "))
          << o.check_id << ": " << o.reason;
    }
    EXPECT_EQ(o.reason.find("creating resources is switched off"), std::string::npos) << o.check_id;
  }
  EXPECT_EQ(test::outcome_of(a.report, "lifecycle.instance.launch_returns_id").reason, "not run: read-only audit (launches an instance)");
  // The footer's figures: the catalogue as listed and the run's own traffic.
  const auto& m = a.report.measurements;
  ASSERT_TRUE(m.contains("catalogue")) << m.dump();
  EXPECT_EQ(m["catalogue"]["listed"], true) << m["catalogue"].dump();
  EXPECT_GT(m["catalogue"]["rows"].get<std::size_t>(), 0u);
  ASSERT_TRUE(m.contains("api_traffic"));
  EXPECT_GT(m["api_traffic"]["requests"].get<std::size_t>(), 0u);
  EXPECT_TRUE(m["api_traffic"].contains("latency_ms"));
  EXPECT_EQ(m["spend"]["instances_created"], 0) << m["spend"].dump();
}

INSTANTIATE_TEST_SUITE_P(Catalogue, ReadOnlyAudit, ::testing::ValuesIn(test::catalogue_providers()),
                         [](const auto& info) { return test::test_name(info.param); });

// The count the audit is held to does rise: a run allowed to spend sends creates, and the same
// assertions would fail on it.
TEST(ReadOnlyAuditCount, ARunThatMaySpendIsCounted) {
  const auto a = run(test::spec("lambda"), false);
  EXPECT_GT(a.create_requests, 0u);
  EXPECT_GT(a.instances, 0u);
  EXPECT_GT(a.keys, 0u);
  EXPECT_NE(test::outcome_of(a.report, "lifecycle.instance.launch_returns_id").result, outcome::skipped);
}

// A create refused for its body was still sent: counted.
TEST(ReadOnlyAuditCount, ARefusedCreateIsCounted) {
  const auto& spec = test::spec("lambda");
  emulator::provider_model model(spec, {.api_keys = emulator::make_api_keys(spec, 1, "count")});
  const auto* launch = spec.operation(operation_id::launch);
  ASSERT_NE(launch, nullptr);
  http::request req;
  req.method = launch->method;
  req.url = model.base_path() + launch->path;
  req.headers = {{"Authorization", "Bearer " + model.options().api_keys.front()}, {"Content-Type", "application/json"}};
  req.body = "{}";
  const auto r = model.handle(req);
  EXPECT_GE(r.status, 400) << r.body;
  EXPECT_EQ(model.create_requests(), 1u);
  EXPECT_EQ(model.instances_created(), 0u);
}

offer row(std::string type, std::optional<double> price, bool available, std::optional<bool> gpu = true, std::string region = "r1") {
  return {.instance_type = std::move(type), .region = std::move(region), .price_per_hour_usd = price, .gpu = gpu, .available = available};
}

TEST(AuditFigures, Catalogue) {
  const auto c = conformance::catalogue_figures({row("a", 1.0, true), row("b", 3.0, false, true, "r2"), row("c", std::nullopt, true),
                                                 row("cpu", 0.1, true, false), row("d", 2.0, true, std::nullopt)});
  EXPECT_EQ(c["rows"], 5);
  EXPECT_EQ(c["gpu_rows"], 3);
  EXPECT_EQ(c["not_gpu_rows"], 1);
  EXPECT_EQ(c["gpu_unknown_rows"], 1);
  EXPECT_EQ(c["available_rows"], 4);
  EXPECT_EQ(c["available_gpu_rows"], 3);
  EXPECT_EQ(c["instance_types"], 5);
  EXPECT_EQ(c["regions"], 2);
  // The CPU row's price is left out; the unpriced GPU row is counted as such.
  EXPECT_EQ(c["price_usd_per_hour"]["priced_rows"], 3);
  EXPECT_EQ(c["price_usd_per_hour"]["unpriced_rows"], 1);
  EXPECT_EQ(c["price_usd_per_hour"]["min"], 1.0);
  EXPECT_EQ(c["price_usd_per_hour"]["median"], 2.0);
  EXPECT_EQ(c["price_usd_per_hour"]["max"], 3.0);
  EXPECT_FALSE(conformance::catalogue_figures({})["price_usd_per_hour"].contains("min"));
  EXPECT_EQ(conformance::catalogue_not_listed("the offers could not be listed: HTTP 500")["listed"], false);
}

TEST(AuditFigures, Traffic) {
  std::vector<exchange> sent(10);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    sent[i].status = 200;
    sent[i].duration_ms = static_cast<double>(i + 1) * 10;  // 10 .. 100 ms
  }
  sent[7].status = 404;
  sent[8].status = 503;
  sent[9].status = 0;  // no answer
  std::vector<const exchange*> all;
  for (const auto& e : sent) all.push_back(&e);
  const auto t = conformance::traffic_figures(all);
  EXPECT_EQ(t["requests"], 10);
  EXPECT_EQ(t["answered"], 9);
  EXPECT_EQ(t["transport_errors"], 1);
  EXPECT_EQ(t["status"]["2xx"], 7);
  EXPECT_EQ(t["status"]["4xx"], 1);
  EXPECT_EQ(t["status"]["5xx"], 1);
  EXPECT_DOUBLE_EQ(t["server_error_rate"].get<double>(), 0.2);
  // Nearest rank over the 9 answered (10 .. 90 ms): p50 is the 5th, p95 and p99 the 9th.
  EXPECT_DOUBLE_EQ(t["latency_ms"]["p50"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(t["latency_ms"]["p95"].get<double>(), 90);
  EXPECT_DOUBLE_EQ(t["latency_ms"]["max"].get<double>(), 90);
  const auto none = conformance::traffic_figures({});
  EXPECT_EQ(none["requests"], 0);
  EXPECT_FALSE(none.contains("latency_ms"));
  EXPECT_FALSE(none.contains("server_error_rate"));
}

}  // namespace
