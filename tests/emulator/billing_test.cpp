// The emulator's billing model (issue 22), on a clock the test moves: charges from running (or the
// launch request) to terminate at the type's hourly price, each started increment whole, in
// provider time (the time scale), and the two billing quirks.

#include <neograde/emulator/model.hpp>

#include <neograde/core/billing.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;
using namespace neograde::emulator;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// Bodgewell (fictional): credit 250 USD, billed per started minute from running, 1.99 USD/h for
// gpu_1x_h100_sxm5, boot 90 s, terminate 20 s.
class BodgewellBilling : public ::testing::Test {
 protected:
  void start(quirk_set quirks = {}, double scale = 1.0) {
    model_options o;
    o.api_keys = {"key-a"};
    o.quirks = std::move(quirks);
    o.time_scale = scale;
    o.now = [this] { return now_; };
    model_ = std::make_unique<provider_model>(test::spec("bodgewell"), o);
    ASSERT_EQ(call("POST", "/ssh-keys", R"({"name":"k","public_key":"ssh-ed25519 AAAA x"})").status, 200);
  }
  http::response call(const std::string& method, const std::string& path, const std::string& body = {}) {
    return model_->handle(http::request{method, "/v1" + path, {{"Authorization", "Bearer key-a"}}, body});
  }
  std::string launch() {
    auto r = call("POST", "/instance-operations/launch",
                  R"({"region_name":"eu-north-1","instance_type_name":"gpu_1x_h100_sxm5","ssh_key_names":["k"],"name":"n","quantity":1})");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["data"]["instance_ids"][0].get<std::string>();
  }
  void terminate(const std::string& id) {
    ASSERT_EQ(call("POST", "/instance-operations/terminate", json{{"instance_ids", {id}}}.dump()).status, 200);
  }
  json billing() {
    auto r = call("GET", "/billing/balance");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  }
  // What `minutes` started minutes cost at the type's price.
  static double minutes(int n) { return 250 - 1.99 * n / 60; }

  clock::time_point now_ = clock::now();
  std::unique_ptr<provider_model> model_;
};

// One account "key-a" on the test's clock.
model_options on_clock(const clock::time_point& now) {
  model_options o;
  o.api_keys = {"key-a"};
  o.now = [&now] { return now; };
  return o;
}

}  // namespace

TEST_F(BodgewellBilling, BilledPerStartedMinuteFromRunningUntilTerminated) {
  start();
  EXPECT_EQ(billing(), (json{{"currency", "USD"}, {"credit_usd", 250.0}, {"spend_usd_per_hour", 0.0}}));
  const auto id = launch();
  now_ += 30s;  // booting: nothing billed
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), 250);
  EXPECT_DOUBLE_EQ(billing()["spend_usd_per_hour"].get<double>(), 0);
  now_ += 61s;  // running for 1 s: the first minute, whole
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(1));
  EXPECT_DOUBLE_EQ(billing()["spend_usd_per_hour"].get<double>(), 1.99);
  now_ += 60s;  // 61 s running
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(2));
  now_ += 89s;  // 150 s running: three started minutes
  terminate(id);
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(3));
  EXPECT_DOUBLE_EQ(billing()["spend_usd_per_hour"].get<double>(), 0);
  now_ += 1h;  // terminated: nothing more
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(3));
  EXPECT_DOUBLE_EQ(billing()["spend_usd_per_hour"].get<double>(), 0);
}

TEST_F(BodgewellBilling, TimesAreProviderTimeUnderTheTimeScale) {
  start({}, 0.01);  // 1 s on the clock is 100 s of provider time
  launch();
  now_ += 900ms;   // boot (90 s) done
  now_ += 1500ms;  // 150 s running
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(3));
}

TEST_F(BodgewellBilling, ContinuesAfterTerminateUnderItsQuirk) {
  start({"billing_continues_after_terminate"});
  const auto id = launch();
  now_ += 91s;
  terminate(id);
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(1));
  now_ += 10min;
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(11));
  EXPECT_DOUBLE_EQ(billing()["spend_usd_per_hour"].get<double>(), 1.99);
}

TEST_F(BodgewellBilling, FromTheRequestUnderItsQuirk) {
  start({"billing_from_request"});
  launch();
  now_ += 30s;  // still booting, yet billed
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(1));
  EXPECT_DOUBLE_EQ(billing()["spend_usd_per_hour"].get<double>(), 1.99);
  now_ += 61s;  // 91 s since the request: two minutes where running alone makes one
  EXPECT_DOUBLE_EQ(billing()["credit_usd"].get<double>(), minutes(2));
}

// DigitalOcean bills from creation, per second with a 60 s and 0.01 USD minimum, and writes its
// figures as decimal strings generated at a stated time.
TEST(EmulatorBilling, DigitalOceanWritesCentsAsStringsFromCreation) {
  auto now = clock::now();
  provider_model model(test::spec("digitalocean"), on_clock(now));
  auto call = [&](const std::string& method, const std::string& path, const std::string& body = {}) {
    return model.handle(http::request{method, path, {{"Authorization", "Bearer key-a"}}, body});
  };
  auto usage = [&] { return json::parse(call("GET", "/v2/customers/my/balance").body); };
  EXPECT_EQ(usage()["month_to_date_usage"], "0.00");
  EXPECT_TRUE(usage()["generated_at"].is_string());
  ASSERT_EQ(
      call("POST", "/v2/droplets", R"({"name": "n", "region": "tor1", "size": "gpu-h100x1-80gb", "image": "gpu-h100x1-base"})").status,
      202);
  now += 10s;  // booting, billed from creation: the 60 s minimum at 6.74 USD/h
  EXPECT_EQ(usage()["month_to_date_usage"], "0.11");
  now += 590s;  // 600 s
  EXPECT_EQ(usage()["month_to_date_usage"], "1.12");
  EXPECT_EQ(usage()["account_balance"], "0.00");
}

// RunPod: the GraphQL account figures come in the selection of a `myself` query; the REST v2 pod
// billing totals one pod's charges.
TEST(EmulatorBilling, RunPodAccountAndPodFigures) {
  auto now = clock::now();
  const auto o = on_clock(now);
  provider_model graphql(test::spec("runpod-graphql"), o);
  auto post = [&](const std::string& query) {
    return graphql.handle(http::request{"POST", "/graphql", {{"Authorization", "Bearer key-a"}}, json{{"query", query}}.dump()});
  };
  auto launched = post(R"(mutation { podFindAndDeployOnDemand(input: {cloudType: SECURE, gpuCount: 1, name: "rp",
      imageName: "runpod/pytorch:x", gpuTypeId: "NVIDIA GeForce RTX 4090", containerDiskInGb: 50, ports: "22/tcp",
      startSsh: true, supportPublicIp: true}) { id } })");
  ASSERT_EQ(launched.status, 200) << launched.body;
  now += 70s;  // billed from the request: RunPod does not document when a pod's billing starts
  auto r = post("query Billing { myself { clientBalance currentSpendPerHr } }");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto me = json::parse(r.body)["data"]["myself"];
  EXPECT_EQ(me.size(), 2u) << me.dump();  // exactly the selection
  EXPECT_GT(me["currentSpendPerHr"].get<double>(), 0);
  EXPECT_NEAR(me["clientBalance"].get<double>(), 100 - me["currentSpendPerHr"].get<double>() * 70 / 3600, 1e-9);

  provider_model rest(test::spec("runpod"), o);
  auto call = [&](const std::string& method, const std::string& path, const std::string& body = {}) {
    return rest.handle(http::request{method, "/v2" + path, {{"Authorization", "Bearer key-a"}}, body});
  };
  auto pod = call("POST", "/pods",
                  json{{"name", "p"},
                       {"image", "runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404"},
                       {"gpu", {{"id", "NVIDIA GeForce RTX 4090"}, {"count", 1}}},
                       {"cloud", "SECURE"},
                       {"dataCenterIds", {"US-KS-2"}},
                       {"ports", {"22/tcp"}},
                       {"startSsh", true}}
                      .dump());
  ASSERT_TRUE(pod.status == 200 || pod.status == 201) << pod.body;
  const auto id = json::parse(pod.body)["id"].get<std::string>();
  now += 70s;
  auto billed = [&](const std::string& pod_id) {
    return json::parse(call("GET", "/billing/pods?podId=" + pod_id + "&bucketSize=day&lastN=2").body)["metadata"]["totals"]["totalAmount"];
  };
  EXPECT_NEAR(billed(id).get<double>(), me["currentSpendPerHr"].get<double>() * 70 / 3600, 1e-9);
  EXPECT_EQ(billed("nope").get<double>(), 0);
}

// The one rounding rule the emulator and the checks share (core/billing.hpp).
TEST(BilledUsd, StartedIncrementsAreWholeAndMinimumsHold) {
  billing_spec per_minute;
  per_minute.increment_s = 60;
  EXPECT_EQ(billed_usd(per_minute, 3.6, 0), 0);
  EXPECT_DOUBLE_EQ(billed_usd(per_minute, 3.6, 1), 0.06);
  EXPECT_DOUBLE_EQ(billed_usd(per_minute, 3.6, 60), 0.06);
  EXPECT_DOUBLE_EQ(billed_usd(per_minute, 3.6, 61), 0.12);
  billing_spec droplet;  // per second, at least 60 s and 0.01 USD
  droplet.increment_s = 1;
  droplet.minimum_s = 60;
  droplet.minimum_usd = 0.01;
  EXPECT_DOUBLE_EQ(billed_usd(droplet, 0.36, 5), 0.01);
  EXPECT_DOUBLE_EQ(billed_usd(droplet, 36, 5), 0.6);
  EXPECT_DOUBLE_EQ(billed_usd(droplet, 36, 100.2), 1.01);
  billing_spec figures;
  figures.amount = billing_amount{.pointer = "/usage", .moves = billing_moves::up, .as_string = true, .resolution = 0.01};
  figures.as_of = "/at";
  const auto read = read_billing(figures, json{{"usage", "11.21"}, {"at", "2026-12-01T00:00:00Z"}});
  EXPECT_DOUBLE_EQ(read.amount.value_or(0), 11.21);
  EXPECT_EQ(read.as_of.value_or(""), "2026-12-01T00:00:00Z");
  EXPECT_FALSE(read_billing(figures, json{{"usage", "11.21 USD"}}).amount);
}
