// The client's multi-step create (the launch's `then`): on Akash's emulator and a virtual clock,
// the launch waits for a bid, chooses the cheapest, accepts it as a lease with what it bound,
// journals each step, and fails with the id known when a step cannot complete.

#include <neograde/clients/journal.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/emulator/emulator.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

using namespace neograde;

namespace {

std::filesystem::path journal_path(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("neograde-steps-test-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p.parent_path());
  return p;
}

struct akash_account {
  explicit akash_account(const provider_spec& s, const std::string& journal) : spec(s) {
    emulator::model_options m;
    m.api_keys = {"key-one"};
    m.time_scale = 0.01;
    m.now = [this] { return clock.now(); };
    emu = std::make_unique<emulator::emulator>(spec, m);
    emu->start();
    client = std::make_unique<provider_client>(spec, emu->base_url(), "key-one");
    client->clock = &clock;
    path = journal_path(journal);
    client->set_spend_ledger(std::make_shared<spend_ledger>(
        spend_permission{true, ""},
        live_rules{
            .live = true, .budget = {.max_instances = 2, .max_spend_usd = 100}, .journal = path, .billed_seconds_per_instance = 3600},
        "r1", spec.provider.id, emu->base_url()));
    // The budget needs a price: the catalogue's.
    EXPECT_TRUE(client->list_offers().value.has_value());
  }
  const provider_spec& spec;
  virtual_clock clock;
  std::unique_ptr<emulator::emulator> emu;
  std::unique_ptr<provider_client> client;
  std::filesystem::path path;
};

TEST(LaunchSteps, WaitsForABidAndLeasesIt) {
  akash_account a(test::spec("akash"), "ok.jsonl");
  const auto start = a.clock.now();
  auto r = a.client->launch(
      {.instance_type = "h100", .region = "", .ssh_key_name = "", .name = "neograde-r1-lc", .params = {}, .public_key = ""});
  ASSERT_TRUE(r.call.success) << r.call.describe() << " / " << r.problem;
  ASSERT_TRUE(r.value.has_value());
  EXPECT_TRUE(r.problem.empty()) << r.problem;
  ASSERT_EQ(r.steps.size(), 2u) << "the bids' last read and the lease";
  EXPECT_NE(r.steps[0].url.find("/v1/bids?dseq=" + *r.value), std::string::npos) << r.steps[0].url;
  EXPECT_GE(a.clock.now() - start, std::chrono::milliseconds(50)) << "the bid arrives 5 s x 0.01 after the create, on the run's clock";
  const auto lease = parse_json(r.steps[1].request_body);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ((*lease)["leases"][0]["dseq"], *r.value);
  EXPECT_EQ((*lease)["leases"][0]["gseq"], 1);
  EXPECT_TRUE((*lease)["manifest"].is_string()) << "bound from the create's answer";
  // Journaled: the create, then each step with what it bound.
  std::vector<journal_entry> steps;
  for (auto& e : read_journal(a.path).entries)
    if (e.event == journal_event::step) steps.push_back(e);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].id, *r.value);
  EXPECT_NE(steps[0].detail.find("step bids"), std::string::npos) << steps[0].detail;
  EXPECT_NE(steps[0].detail.find("provider=akash1"), std::string::npos) << steps[0].detail;
  EXPECT_NE(steps[1].detail.find("step lease"), std::string::npos) << steps[1].detail;
  // The lease started the deployment: it runs, with an address, and teardown removes it all.
  a.clock.sleep(std::chrono::milliseconds(500));
  auto got = a.client->get(*r.value);
  ASSERT_TRUE(got.value.has_value()) << got.call.describe();
  EXPECT_EQ(got.value->state, instance_state::running);
  EXPECT_TRUE(got.value->ip.has_value());
  auto t =
      terminate_and_confirm(*a.client, {{*r.value, "neograde-r1-lc"}}, {},
                            {.confirm_within = std::chrono::milliseconds(2000), .poll = std::chrono::milliseconds(10), .clock = &a.clock});
  EXPECT_EQ(t.confirmed.size(), 1u);
  EXPECT_EQ(a.emu->model().live_instances(), 0u);
  EXPECT_TRUE(outstanding(read_journal(a.path).entries, "akash", journal_origin(a.emu->base_url())).empty());
}

TEST(LaunchSteps, NoBidWithinTheTimeToRunningFailsTheLaunchWithTheIdKnown) {
  auto doc = test::spec_json("akash");
  doc["emulator"]["steps"]["bids"]["ready_after_s"] = 100000;
  auto spec = parse_spec(doc.dump(), "akash without bids");
  ASSERT_TRUE(spec) << spec.error().what();
  akash_account a(*spec, "nobid.jsonl");
  auto r = a.client->launch(
      {.instance_type = "h100", .region = "", .ssh_key_name = "", .name = "neograde-r2-lc", .params = {}, .public_key = ""});
  EXPECT_FALSE(r.call.success);
  ASSERT_TRUE(r.value.has_value()) << "the id is known, so the deployment is torn down";
  EXPECT_NE(r.problem.find("step bids: no element"), std::string::npos) << r.problem;
  EXPECT_NE(r.call.describe().find("step bids"), std::string::npos) << r.call.describe();
  EXPECT_EQ(a.emu->model().live_instances(), 1u);
  ASSERT_EQ(a.client->ledger().instances().size(), 1u);
  EXPECT_EQ(a.client->ledger().instances()[0].id, *r.value);
  EXPECT_EQ(outstanding(read_journal(a.path).entries, "akash", journal_origin(a.emu->base_url())).size(), 1u);
}

TEST(LaunchSteps, ARefusedStepFailsTheLaunchWithItsOwnAnswer) {
  auto doc = test::spec_json("akash");
  // The lease names the group sequence where the deployment belongs: no such deployment.
  doc["operations"]["launch"]["then"][1]["body"]["leases"][0]["dseq"] = "{{gseq}}";
  auto spec = parse_spec(doc.dump(), "akash with a wrong lease");
  ASSERT_TRUE(spec) << spec.error().what();
  akash_account a(*spec, "refused.jsonl");
  auto r = a.client->launch(
      {.instance_type = "h100", .region = "", .ssh_key_name = "", .name = "neograde-r3-lc", .params = {}, .public_key = ""});
  EXPECT_FALSE(r.call.success);
  EXPECT_EQ(r.call.status(), 404);
  ASSERT_TRUE(r.value.has_value());
  EXPECT_NE(r.call.describe().find("step lease"), std::string::npos) << r.call.describe();
  ASSERT_EQ(r.steps.size(), 2u) << "the create's answer and the bids' beside the failing lease";
}

}  // namespace
