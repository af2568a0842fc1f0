#include <neograde/clients/provider_client.hpp>

#include <neograde/emulator/emulator.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;

class ProviderClient : public ::testing::Test {
 protected:
  void SetUp() override {
    emulator::model_options m;
    m.api_keys = {"key-one", "key-two"};
    m.time_scale = 0;
    emu_ = std::make_unique<emulator::emulator>(spec_, m);
    emu_->start();
  }
  const provider_spec& spec_ = test::spec("lambda");
  std::unique_ptr<emulator::emulator> emu_;
};

TEST_F(ProviderClient, MapsOffersThroughTheSpec) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  auto offers = c.list_offers();
  ASSERT_TRUE(offers.value.has_value()) << offers.call.describe();
  ASSERT_EQ(offers.value->size(), 3u);
  const auto& a10 = *std::find_if(offers.value->begin(), offers.value->end(),
                                  [](const auto& o) { return o.instance_type == "gpu_1x_a10"; });
  EXPECT_DOUBLE_EQ(a10.price_per_hour_usd.value(), 0.75);  // 75 cents, scaled
  EXPECT_EQ(a10.regions_available, (std::vector<std::string>{"us-east-1", "us-west-1"}));
  EXPECT_TRUE(c.target_is_emulator());
}

TEST_F(ProviderClient, LaunchGetListTerminateRoundTrip) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  auto key = c.add_ssh_key("k", "ssh-ed25519 AAAA test");
  ASSERT_TRUE(key.value.has_value()) << key.call.describe();
  auto id = c.launch({"gpu_1x_a10", "us-east-1", "k", "neograde-test"});
  ASSERT_TRUE(id.value.has_value()) << id.call.describe() << id.problem;
  auto got = c.get(*id.value);
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->id, *id.value);
  EXPECT_EQ(got.value->name, "neograde-test");
  EXPECT_EQ(got.value->region, "us-east-1");
  EXPECT_EQ(got.value->instance_type, "gpu_1x_a10");
  EXPECT_EQ(got.value->ssh_key_names, std::vector<std::string>{"k"});
  EXPECT_EQ(got.value->state, instance_state::running);  // time scale 0: boots at once
  EXPECT_TRUE(got.value->ip.has_value());
  auto all = c.list();
  ASSERT_TRUE(all.value.has_value());
  EXPECT_EQ(all.value->size(), 1u);
  EXPECT_TRUE(c.terminate(*id.value).success);
}

TEST_F(ProviderClient, ErrorsAreReadThroughTheEnvelope) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  auto r = c.get("does-not-exist");
  EXPECT_FALSE(r.value.has_value());
  ASSERT_TRUE(r.call.error.has_value());
  EXPECT_EQ(r.call.error->http_status, 404);
  EXPECT_EQ(r.call.error->code, "global/object-does-not-exist");
  EXPECT_EQ(r.call.describe(), "HTTP 404 global/object-does-not-exist: Specified instance does not exist.");
}

TEST_F(ProviderClient, AuthModes) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  EXPECT_EQ(c.call(operation_id::list, {}, auth_mode::none).status(), 401);
  EXPECT_EQ(c.call(operation_id::list, {}, auth_mode::invalid).status(), 401);
  EXPECT_EQ(c.call(operation_id::list).status(), 200);
  const auto text = nlohmann::json(c.transport().transcript()).dump();
  EXPECT_EQ(text.find("key-one"), std::string::npos);
}
