// Live mode's money guards: the journal, the budget, the ledger in the client, teardown.

#include <neograde/clients/journal.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/emulator/emulator.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

using namespace neograde;

namespace {

std::filesystem::path fresh_path(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("neograde-spend-test-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(p.parent_path() / name);
  std::filesystem::create_directories(p.parent_path());
  return p;
}

live_rules live(const std::filesystem::path& journal, int max_instances, double max_spend) {
  return live_rules{.live = true,
                    .budget = {.max_instances = max_instances, .max_spend_usd = max_spend},
                    .journal = journal,
                    .billed_seconds_per_instance = 3600};  // an hour billed per instance
}

}  // namespace

TEST(Journal, RoundTripsAndTracksWhatIsOutstanding) {
  const auto path = fresh_path("round-trip.jsonl");
  {
    journal j(path);
    j.append({.event = journal_event::intent,
              .run_id = "run1",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-lc",
              .instance_type = "gpu_1x_a10",
              .price_per_hour_usd = 0.75});
    j.append({.event = journal_event::created,
              .run_id = "run1",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-lc",
              .id = "i-1"});
    j.append({.event = journal_event::intent,
              .run_id = "run1",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-extra"});
    j.append({.event = journal_event::intent,
              .run_id = "run1",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-val"});
    j.append({.event = journal_event::refused,
              .run_id = "run1",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-val",
              .detail = "HTTP 400"});
    j.append(
        {.event = journal_event::intent, .run_id = "run2", .provider = "vastai", .base_url = "https://y:443", .name = "neograde-run2-lc"});
  }
  auto read = read_journal(path);
  ASSERT_EQ(read.entries.size(), 6u);
  EXPECT_EQ(read.unreadable_lines, 0u);
  EXPECT_EQ(read.entries[1].id, "i-1");
  EXPECT_EQ(read.entries[0].price_per_hour_usd, 0.75);
  EXPECT_FALSE(read.entries[0].time.empty());
  auto open = outstanding(read.entries, "lambda", "https://x:443/v1");
  ASSERT_EQ(open.size(), 2u);  // the launched one and the unanswered one; the refused one is closed
  EXPECT_EQ(open[0].name, "neograde-run1-extra");
  EXPECT_EQ(open[0].id, "");
  EXPECT_EQ(open[1].id, "i-1");
  {
    journal j(path);
    j.append({.event = journal_event::deleted,
              .run_id = "run1",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-lc",
              .id = "i-1"});
    j.append({.event = journal_event::deleted,
              .run_id = "sweep",
              .provider = "lambda",
              .base_url = "https://x:443/v1",
              .name = "neograde-run1-extra",
              .id = "i-2"});
  }
  EXPECT_TRUE(outstanding(read_journal(path).entries, "lambda", "https://x:443/v1").empty());
  EXPECT_EQ(outstanding(read_journal(path).entries, "vastai", "https://y:443").size(), 1u);
}

TEST(Journal, ATornOrForeignLineIsSkippedNotFatal) {
  const auto path = fresh_path("torn.jsonl");
  {
    journal j(path);
    j.append({.event = journal_event::intent, .run_id = "r", .provider = "lambda", .base_url = "u", .name = "neograde-r-lc"});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"not\":\"ours\"}\n{\"format\":\"neograde-journal/1\",\"event\":\"cre";  // killed mid-write
  }
  auto read = read_journal(path);
  EXPECT_EQ(read.entries.size(), 1u);
  EXPECT_EQ(read.unreadable_lines, 2u);
  EXPECT_TRUE(read_journal(fresh_path("missing.jsonl")).entries.empty());
}

TEST(Journal, OriginDropsCredentialsAndQueries) {
  EXPECT_EQ(journal_origin("https://user:secret@cloud.lambda.ai/api/v1/?token=abc"), "https://cloud.lambda.ai:443/api/v1");
  EXPECT_EQ(journal_origin("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
}

TEST(SpendLedger, RefusesWhatTheBudgetCannotCover) {
  const auto path = fresh_path("budget.jsonl");
  spend_ledger ledger({true, ""}, live(path, 2, 5.0), "run1", "lambda", "https://cloud.lambda.ai/api/v1");
  auto unknown = ledger.admit("neograde-run1-a", "gpu_1x_a10");
  ASSERT_TRUE(unknown.has_value()) << "a launch without a known price was admitted";
  EXPECT_NE(unknown->find("no offer price"), std::string::npos) << *unknown;

  ledger.note_price("gpu_8x_h100", 23.92);
  ledger.note_price("gpu_1x_a10", 0.75);
  auto expensive = ledger.admit("neograde-run1-b", "gpu_8x_h100");
  ASSERT_TRUE(expensive.has_value());
  EXPECT_NE(expensive->find("$23.92"), std::string::npos) << *expensive;
  EXPECT_NE(expensive->find("--max-spend $5.00"), std::string::npos) << *expensive;
  // An unknown type is estimated at the highest price seen.
  EXPECT_TRUE(ledger.would_refuse("neograde-no-such-type").has_value());

  EXPECT_FALSE(ledger.admit("neograde-run1-c", "gpu_1x_a10").has_value());
  ledger.created("neograde-run1-c", "i-1");
  EXPECT_FALSE(ledger.admit("neograde-run1-d", "gpu_1x_a10").has_value());
  ledger.refused("neograde-run1-d", "HTTP 400");  // nothing created: not counted
  EXPECT_FALSE(ledger.admit("neograde-run1-e", "gpu_1x_a10").has_value());
  ledger.created("neograde-run1-e", "i-2");
  auto third = ledger.admit("neograde-run1-f", "gpu_1x_a10");
  ASSERT_TRUE(third.has_value());
  EXPECT_NE(third->find("--max-instances"), std::string::npos) << *third;
  EXPECT_EQ(ledger.launched(), 2);
  EXPECT_DOUBLE_EQ(ledger.committed_usd(), 1.5);

  // The journal saw every admitted create before its answer, and nothing refused by the budget.
  const auto entries = read_journal(path).entries;
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[0].event, journal_event::intent);
  EXPECT_EQ(entries[0].name, "neograde-run1-c");
  EXPECT_EQ(entries[1].event, journal_event::created);
  EXPECT_EQ(entries[1].id, "i-1");
  for (const auto& e : entries) EXPECT_NE(e.name, "neograde-run1-b");
}

TEST(SpendLedger, WithoutPermissionEveryCreateIsRefusedWithItsReason) {
  spend_ledger ledger({false, "needs --allow-spend"}, live(fresh_path("none.jsonl"), 5, 100), "r", "lambda", "https://x/");
  ledger.note_price("t", 1);
  EXPECT_EQ(ledger.admit("n", "t"), std::optional<std::string>("needs --allow-spend"));
  EXPECT_FALSE(std::filesystem::exists(fresh_path("none.jsonl"))) << "a run that may not create opened a journal";
}

class LedgerOnEmulator : public ::testing::Test {
 protected:
  void SetUp() override {
    emulator::model_options m;
    m.api_keys = {"key-one"};
    m.time_scale = 0;
    emu_ = std::make_unique<emulator::emulator>(spec_, m);
    emu_->start();
  }
  const provider_spec& spec_ = test::spec("lambda");
  std::unique_ptr<emulator::emulator> emu_;
};

// The client asks its ledger before every create: a refusal means no request at all.
TEST_F(LedgerOnEmulator, ARefusedLaunchSendsNoRequest) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  const auto path = fresh_path("client.jsonl");
  c.set_spend_ledger(std::make_shared<spend_ledger>(spend_permission{true, ""}, live(path, 1, 0.10), "r1", "lambda", emu_->base_url()));
  ASSERT_TRUE(c.list_offers().value.has_value());  // prices noted: gpu_1x_a10 at $0.75/h > $0.10
  auto refused = c.launch({"gpu_1x_a10", "us-east-1", "", "neograde-r1-lc"});
  ASSERT_TRUE(refused.call.not_sent.has_value());
  EXPECT_NE(refused.call.describe().find("--max-spend"), std::string::npos) << refused.call.describe();
  EXPECT_EQ(emu_->model().instances_created(), 0u);
  // A raw request to the launch operation is a create too.
  auto raw = c.raw("POST", "/instance-operations/launch", "{}", "application/json");
  EXPECT_TRUE(raw.not_sent.has_value());
  EXPECT_EQ(emu_->model().instances_created(), 0u);
}

TEST_F(LedgerOnEmulator, AClientWithoutALedgerCreatesOnlyOnLoopback) {
  provider_client local(spec_, emu_->base_url(), "key-one");
  EXPECT_TRUE(local.ledger().permission().allowed);
  provider_client remote(spec_, "https://cloud.lambda.ai/api/v1", "key-one");
  EXPECT_FALSE(remote.ledger().permission().allowed);
}

// Terminate and confirm: a clean provider's instances are confirmed gone and journaled so; a
// ghost (terminated when read, still listed running) is reported as left behind.
TEST_F(LedgerOnEmulator, TeardownConfirmsAndJournalsDeletion) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  const auto path = fresh_path("teardown.jsonl");
  c.set_spend_ledger(std::make_shared<spend_ledger>(spend_permission{true, ""}, live(path, 2, 100), "r2", "lambda", emu_->base_url()));
  ASSERT_TRUE(c.list_offers().value.has_value());
  ASSERT_TRUE(c.add_ssh_key("k", "ssh-ed25519 AAAA test").value.has_value());
  auto a = c.launch({"gpu_1x_a10", "us-east-1", "k", "neograde-r2-lc"});
  ASSERT_TRUE(a.value) << a.call.describe();
  auto r = terminate_and_confirm(c, {{*a.value, "neograde-r2-lc"}}, {}, {std::chrono::milliseconds(2000), std::chrono::milliseconds(10)});
  ASSERT_EQ(r.confirmed.size(), 1u);
  EXPECT_TRUE(r.leftovers.empty());
  EXPECT_EQ(emu_->model().live_instances(), 0u);
  EXPECT_TRUE(outstanding(read_journal(path).entries, "lambda", journal_origin(emu_->base_url())).empty());
}

namespace {

// Lambda's emulator under `quirks`, and a client of its one account with an SSH key registered.
struct lambda_account {
  lambda_account(emulator::quirk_set quirks, double time_scale, std::function<emulator::clock::time_point()> now = {})
      : emu(spec, options(std::move(quirks), time_scale, std::move(now))) {
    emu.start();
    client.emplace(spec, emu.base_url(), "key-one");
    (void)client->add_ssh_key("k", "ssh-ed25519 AAAA test");
  }
  static emulator::model_options options(emulator::quirk_set quirks, double time_scale, std::function<emulator::clock::time_point()> now) {
    emulator::model_options m;
    m.api_keys = {"key-one"};
    m.time_scale = time_scale;
    m.quirks = std::move(quirks);
    m.now = std::move(now);
    return m;
  }
  typed_result<std::string> launch(const std::string& name) { return client->launch({"gpu_1x_a10", "us-east-1", "k", name}); }

  const provider_spec& spec = test::spec("lambda");
  emulator::emulator emu;
  std::optional<provider_client> client;
};

}  // namespace

TEST(Teardown, AGhostIsALeftover) {
  lambda_account account({"ghost_after_terminate"}, 0);
  auto& c = *account.client;
  auto a = account.launch("neograde-r3-lc");
  ASSERT_TRUE(a.value) << a.call.describe();
  auto r = terminate_and_confirm(c, {}, [](const instance& i) { return i.name.starts_with("neograde-r3-"); },
                                 {std::chrono::milliseconds(300), std::chrono::milliseconds(10)});
  ASSERT_EQ(r.leftovers.size(), 1u);
  EXPECT_EQ(r.leftovers[0].id, *a.value);
  EXPECT_NE(r.leftovers[0].status.find("listed as"), std::string::npos) << r.leftovers[0].status;
  EXPECT_EQ(r.evidence.size(), 1u);
}

// A ghost (read gone, still listed running) or an undocumented status cannot end in gone:
// teardown stops after three such polls in a row instead of waiting out the time to gone, and
// says so; an instance that is merely slow to go (documented words) is waited for (issue 19).
TEST(Teardown, StopsWaitingForWhatCannotEndInGoneButWaitsForTheSlow) {
  struct scenario {
    emulator::quirk_set quirks;
    int give_up_after_polls;
    bool left_behind;
  };
  for (const auto& [quirks, give_up, left_behind] :
       {scenario{{"ghost_after_terminate"}, 3, true}, scenario{{"ghost_after_terminate", "status_words_upper_case"}, 3, true},
        scenario{{"ghost_after_terminate"}, 0, true}, scenario{{}, 3, false}}) {
    virtual_clock time;
    lambda_account account(quirks, 1, [&time] { return time.now(); });  // the spec's real timings, in virtual time
    auto& c = *account.client;
    auto a = account.launch("neograde-r4-lc");
    ASSERT_TRUE(a.value) << a.call.describe();
    teardown_options o;
    o.confirm_within = std::chrono::seconds(300);
    o.poll = std::chrono::seconds(5);
    o.clock = &time;
    o.give_up_after_polls = give_up;
    const auto started = time.now();
    auto r = terminate_and_confirm(c, {{*a.value, "neograde-r4-lc"}}, {}, o);
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(time.now() - started).count();
    const auto what = ::testing::PrintToString(quirks) + " give up after " + std::to_string(give_up);
    ASSERT_EQ(r.leftovers.size(), left_behind ? 1u : 0u) << what;
    if (!left_behind) {
      EXPECT_EQ(r.confirmed.size(), 1u) << what;
      continue;
    }
    if (give_up > 0) {
      EXPECT_LE(waited, 20 + 4 * 5) << what;  // the emulator's 20 s of terminating, then three polls
      EXPECT_NE(r.leftovers[0].status.find("3 polls in a row"), std::string::npos) << r.leftovers[0].status;
    } else {
      EXPECT_GE(waited, 300) << what;
    }
  }
}

// Where the provider has instance tags, every launch carries the run's tag.
TEST(RunTag, LaunchesCarryTheRunTagWhereTheProviderHasTags) {
  const auto& spec = test::spec("digitalocean");
  emulator::model_options m;
  m.api_keys = {"key-one"};
  m.time_scale = 0;
  emulator::emulator emu(spec, m);
  emu.start();
  provider_client c(spec, emu.base_url(), "key-one");
  auto r = c.launch({"gpu-h100x1-80gb", "nyc2", "", "neograde-0a1b2c3d-lc"});
  EXPECT_NE(r.call.evidence.request_body.find(R"("tags":["neograde-0a1b2c3d"])"), std::string::npos) << r.call.evidence.request_body;
}

namespace {

// One account on a catalogue provider's emulator in virtual time (the spec's own timings), its
// client journaling to `journal`.
struct catalogue_account {
  catalogue_account(const std::string& provider, const std::filesystem::path& journal_path)
      : spec(test::spec(provider)), emu(spec, options(time)) {
    emu.start();
    client.emplace(spec, emu.base_url(), "key-one");
    client->set_spend_ledger(
        std::make_shared<spend_ledger>(spend_permission{true, ""}, live(journal_path, 4, 100), "r9", provider, emu.base_url()));
  }
  static emulator::model_options options(virtual_clock& time) {
    emulator::model_options m;
    m.api_keys = {"key-one"};
    m.time_scale = 1;
    m.now = [&time] { return time.now(); };
    return m;
  }
  // The cheapest launchable row, launched as `name`.
  typed_result<std::string> launch(const std::string& name) {
    const auto pick = client->choose_offer();
    EXPECT_TRUE(pick.chosen.has_value()) << pick.explanation;
    const auto& o = *pick.chosen;
    return client->launch({.instance_type = o.instance_type,
                           .region = o.region,
                           .ssh_key_name = "",
                           .name = name,
                           .params = o.params,
                           .public_key = "ssh-ed25519 AAAA test"});
  }
  teardown_options teardown() {
    teardown_options o;
    o.confirm_within = std::chrono::seconds(900);
    o.poll = std::chrono::seconds(5);
    o.clock = &time;
    return o;
  }

  virtual_clock time;
  const provider_spec& spec;
  emulator::emulator emu;
  std::optional<provider_client> client;
};

}  // namespace

// io.net answers a create with an empty body, as its spec declares (launch id_from): the client
// finds the instance by the name it sent and journals it as created with that id (issue 23).
TEST(LaunchWithoutId, IsFoundByNameInTheListAndJournaledWithItsId) {
  const auto path = fresh_path("id-by-name.jsonl");
  catalogue_account account("ionet", path);
  auto a = account.launch("neograde-r9-lc");
  ASSERT_TRUE(a.value) << a.problem << " " << a.call.describe();
  EXPECT_TRUE(a.call.response->body.empty());
  ASSERT_EQ(account.client->ledger().instances().size(), 1u);
  EXPECT_EQ(account.client->ledger().instances()[0].id, *a.value);
  const auto open = outstanding(read_journal(path).entries, "ionet", journal_origin(account.emu.base_url()));
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].id, *a.value);
  EXPECT_EQ(open[0].name, "neograde-r9-lc");
}

// Where the lookup never succeeds the instance is still journaled by its name, and teardown (as
// neograde sweep does with the journal's outstanding entries) finds it by name and terminates it.
TEST(LaunchWithoutId, AnInstanceNeverIdentifiedIsTornDownByName) {
  const auto path = fresh_path("never-identified.jsonl");
  catalogue_account account("ionet", path);
  auto& c = *account.client;
  const auto pick = c.choose_offer();
  ASSERT_TRUE(pick.chosen) << pick.explanation;
  auto vars = c.launch_vars({.instance_type = pick.chosen->instance_type,
                             .region = pick.chosen->region,
                             .ssh_key_name = "",
                             .name = "neograde-r9-lost",
                             .params = pick.chosen->params,
                             .public_key = "ssh-ed25519 AAAA test"});
  auto sent = c.call(operation_id::launch, vars);  // the create alone: no lookup follows
  ASSERT_TRUE(sent.success) << sent.describe();
  ASSERT_EQ(c.ledger().instances().size(), 1u);
  EXPECT_TRUE(c.ledger().instances()[0].id.empty());
  std::vector<teardown_target> known;
  for (const auto& j : outstanding(read_journal(path).entries, "ionet", journal_origin(account.emu.base_url())))
    known.push_back({j.id, j.name});
  ASSERT_EQ(known.size(), 1u);
  EXPECT_EQ(known[0].name, "neograde-r9-lost");
  EXPECT_TRUE(known[0].id.empty());
  auto r = terminate_and_confirm(c, known, {}, account.teardown());
  ASSERT_EQ(r.confirmed.size(), 1u) << (r.leftovers.empty() ? "" : r.leftovers[0].status);
  EXPECT_TRUE(r.leftovers.empty());
  EXPECT_EQ(account.emu.model().live_instances(), 0u);
  EXPECT_TRUE(outstanding(read_journal(path).entries, "ionet", journal_origin(account.emu.base_url())).empty());
}

// A provider whose launch should name the id still fails without one: id_from is declared, never
// assumed.
TEST(LaunchWithoutId, IsAProblemWhereTheSpecDoesNotDeclareIt) {
  lambda_account account({"launch_without_id"}, 0);
  auto a = account.launch("neograde-r9-noid");
  EXPECT_TRUE(a.call.success);
  EXPECT_FALSE(a.value.has_value());
  EXPECT_EQ(a.problem, "the response carries no instance id");
}

// Spheron refuses a terminate before its 20-minute minimum runtime (timing.minimum_runtime):
// teardown reads the time left from the refusal, waits it out on the run clock and terminates
// again (issue 23).
TEST(MinimumRuntime, TeardownWaitsItOutAndTerminatesAgain) {
  const auto path = fresh_path("minimum-runtime.jsonl");
  catalogue_account account("spheron", path);
  auto& c = *account.client;
  const auto started = account.time.now();
  auto a = account.launch("neograde-r9-min");
  ASSERT_TRUE(a.value) << a.problem << " " << a.call.describe();

  auto early = c.terminate(*a.value);
  EXPECT_EQ(early.status(), 400);
  EXPECT_TRUE(refused_before_minimum_runtime(account.spec, early)) << early.response->body;
  ASSERT_TRUE(early.json);
  EXPECT_EQ(early.json->value("canTerminate", true), false);
  EXPECT_EQ(early.json->value("minimumRuntime", 0), 20);
  EXPECT_EQ(early.json->value("timeRemaining", 0), 20);

  auto r = terminate_and_confirm(c, {{*a.value, "neograde-r9-min"}}, {}, account.teardown());
  ASSERT_EQ(r.confirmed.size(), 1u) << (r.leftovers.empty() ? "" : r.leftovers[0].status);
  const auto waited = std::chrono::duration_cast<std::chrono::seconds>(account.time.now() - started).count();
  EXPECT_GE(waited, 1200);
  EXPECT_LE(waited, 1200 + 60 + 300);  // a minute's rounding in the refusal, then the time to gone
  EXPECT_EQ(account.emu.model().live_instances(), 0u);
  EXPECT_TRUE(outstanding(read_journal(path).entries, "spheron", journal_origin(account.emu.base_url())).empty());
}

TEST(MinimumRuntime, OnlyTheDeclaredRefusalIsWaitedFor) {
  const auto& spheron = test::spec("spheron");
  call_result other;
  other.response = http::response{400, {{"Content-Type", "application/json"}}, R"({"error":"bad","code":"VALIDATION_ERROR"})"};
  other.json = nlohmann::json::parse(other.response->body);
  EXPECT_FALSE(refused_before_minimum_runtime(spheron, other));
  call_result early = other;
  early.json = nlohmann::json{{"canTerminate", false}, {"timeRemaining", 3}};
  EXPECT_TRUE(refused_before_minimum_runtime(spheron, early));
  EXPECT_FALSE(refused_before_minimum_runtime(test::spec("lambda"), early));
}

// The spend estimate bills an instance at least its minimum runtime and the billing minimum
// (io.net's non-refundable first hour), and is unchanged where a spec declares neither.
TEST(SpendEstimate, HonoursMinimumRuntimeAndMinimumBilledTime) {
  const auto& lambda = test::spec("lambda");
  EXPECT_DOUBLE_EQ(billed_seconds_estimate(lambda), billed_seconds_estimate(lambda.timing.time_to_running_s, lambda.timing.time_to_gone_s));
  const auto& ionet = test::spec("ionet");
  EXPECT_GE(billed_seconds_estimate(ionet), 3600);
  const auto& spheron = test::spec("spheron");
  EXPECT_GE(billed_seconds_estimate(spheron), spheron.timing.minimum_runtime->seconds + spheron.timing.time_to_gone_s);
  // A spec whose instances could be terminated early is billed the minimum all the same.
  auto quick = spheron;
  quick.timing.time_to_running_s = 1;
  quick.timing.time_to_gone_s = 1;
  EXPECT_DOUBLE_EQ(billed_seconds_estimate(quick), std::max(1.0 + 900 + 0, 1200.0) + 1);
}
