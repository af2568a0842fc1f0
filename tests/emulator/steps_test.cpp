// The emulator's multi-step creates (the launch's `then`, emulator.steps), on Akash's spec: a
// deployment waits for its lease, bids arrive after their delay, a lease must name a bid made,
// and the lease starts the deployment, whose object then carries it.

#include <neograde/emulator/model.hpp>

#include <neograde/core/json_util.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;
using namespace neograde::emulator;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

class AkashSteps : public ::testing::Test {
 protected:
  AkashSteps() {
    model_options o;
    o.api_keys = {"key-a", "key-b"};
    o.now = [this] { return now_; };
    model_ = std::make_unique<provider_model>(spec_, o);
  }
  http::response call(const std::string& method, const std::string& path, const std::string& body = {}, const std::string& key = "key-a") {
    http::request r{method, path, {{"x-api-key", key}}, body};
    if (!body.empty()) r.headers.emplace_back("Content-Type", "application/json");
    return model_->handle(r);
  }
  static json body(const http::response& r) { return json::parse(r.body); }
  json create() {
    auto r = call("POST", "/v1/deployments", R"({"data":{"sdl":"version: \"2.0\""}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return body(r)["data"];
  }
  json deployment(const std::string& dseq) { return body(call("GET", "/v1/deployments/" + dseq))["data"]; }
  static std::string lease_body(const json& created, const json& bid) {
    return json{
        {"manifest", created["manifest"]},
        {"leases",
         {{{"dseq", created["dseq"]}, {"gseq", bid["id"]["gseq"]}, {"oseq", bid["id"]["oseq"]}, {"provider", bid["id"]["provider"]}}}}}
        .dump();
  }

  const provider_spec& spec_ = test::spec("akash");
  clock::time_point now_ = clock::now();
  std::unique_ptr<provider_model> model_;
};

TEST_F(AkashSteps, BidsArriveAfterTheirDelayAndTheLeaseStartsTheDeployment) {
  const auto created = create();
  const std::string dseq = created["dseq"];
  ASSERT_TRUE(created["manifest"].is_string());
  EXPECT_EQ(deployment(dseq)["leases"], json::array()) << "no lease before the lease step";
  // No bid before the ready delay: an empty collection, not an error.
  auto bids = call("GET", "/v1/bids?dseq=" + dseq);
  ASSERT_EQ(bids.status, 200) << bids.body;
  EXPECT_EQ(body(bids)["data"], json::array());
  EXPECT_EQ(call("GET", "/v1/bids").status, 400) << "the dseq is required";
  now_ += 6s;
  bids = call("GET", "/v1/bids?dseq=" + dseq);
  ASSERT_EQ(body(bids)["data"].size(), 1u) << bids.body;
  const auto bid = body(bids)["data"][0]["bid"];
  EXPECT_EQ(bid["id"]["dseq"], dseq) << "the element is rendered with the instance's id";
  // Another account's deployment is not found; a lease naming a bid never made is refused.
  EXPECT_EQ(call("GET", "/v1/bids?dseq=" + dseq, {}, "key-b").status, 404);
  auto other = bid;
  other["id"]["provider"] = "akash1someoneelse";
  EXPECT_EQ(call("POST", "/v1/leases", lease_body(created, other)).status, 400);
  EXPECT_EQ(call("POST", "/v1/leases", R"({"manifest":"m"})").status, 400) << "the leases are required";
  auto lease = call("POST", "/v1/leases", lease_body(created, bid));
  ASSERT_EQ(lease.status, 200) << lease.body;
  EXPECT_EQ(body(lease)["data"]["deployment"]["id"]["dseq"], dseq) << "answered as the get";
  const auto d = deployment(dseq);
  ASSERT_EQ(d["leases"].size(), 1u);
  EXPECT_EQ(d["leases"][0]["id"]["provider"], bid["id"]["provider"]);
  EXPECT_EQ(d["leases"][0]["id"]["gseq"], 1) << "bound values keep their JSON type";
  EXPECT_EQ(d["leases"][0]["state"], "active");
  // The lease is accepted once: the deployment is no longer waiting.
  EXPECT_EQ(call("POST", "/v1/leases", lease_body(created, bid)).status, 409);
  now_ += 21s;
  EXPECT_TRUE(deployment(dseq)["leases"][0]["status"]["forwarded_ports"]["neograde"][0].contains("host")) << "an address once it runs";
  // Closing the deployment closes its lease with it; a closed deployment is not listed.
  EXPECT_EQ(call("DELETE", "/v1/deployments/" + dseq).status, 200);
  EXPECT_EQ(deployment(dseq)["deployment"]["state"], "closed");
  EXPECT_EQ(deployment(dseq)["leases"][0]["state"], "closed");
  EXPECT_EQ(body(call("GET", "/v1/deployments"))["data"]["deployments"], json::array());
  EXPECT_EQ(model_->live_instances(), 0u);
}

TEST_F(AkashSteps, AWaitingDeploymentIsNotBilledAsRunning) {
  const auto created = create();
  now_ += 600s;  // no lease: it never boots
  const auto d = deployment(created["dseq"]);
  EXPECT_EQ(d["deployment"]["state"], "active");
  EXPECT_FALSE(d["leases"].size() > 0);
  EXPECT_EQ(model_->live_instances(), 1u);
}

TEST_F(AkashSteps, ErrorsNameTheirClassBesideTheirCode) {
  auto r = call("GET", "/v1/deployments/999");
  ASSERT_EQ(r.status, 404);
  EXPECT_EQ(body(r)["error"], "NotFoundError");
  EXPECT_EQ(body(r)["code"], "not_found");
}

}  // namespace
