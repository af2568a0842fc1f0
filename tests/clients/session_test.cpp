// The run session: one probe, one spending rule, one run name, for every command.

#include <neograde/clients/session.hpp>

#include <neograde/clients/cassette.hpp>
#include <neograde/clients/run_names.hpp>
#include <neograde/core/errors.hpp>
#include <neograde/emulator/emulator.hpp>

#include "../support/scripted_server.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

using namespace neograde;

namespace {

struct running_emulator {
  emulator::model_options model;
  std::unique_ptr<emulator::emulator> emu;
  explicit running_emulator(const provider_spec& spec) {
    model.api_keys = emulator::make_api_keys(spec, 2, "session");
    model.time_scale = 0.25;
    emu = std::make_unique<emulator::emulator>(spec, model);
    emu->start();
  }
};

}  // namespace

TEST(Session, ProbesOnceAndNamesWhatItFound) {
  const auto& spec = test::spec("lambda");
  running_emulator e(spec);
  session s(spec, {.base_url = e.emu->base_url(), .api_key = e.model.api_keys[0]});
  ASSERT_TRUE(s.probe().has_value());
  EXPECT_EQ(s.probe_operation(), operation_id::list);  // a read that needs the key
  EXPECT_FALSE(s.unusable().has_value());
  EXPECT_EQ(s.provenance(), result_source::emulated);
  EXPECT_DOUBLE_EQ(s.time_scale(), 0.25);
  EXPECT_FALSE(s.live());
  // No run id given: a new one, and what the run creates is named so that a sweep finds it.
  EXPECT_TRUE(is_run_name(s.prefix() + "lc")) << s.prefix();
  EXPECT_EQ(s.second(), nullptr);
}

TEST(Session, ATargetThatCannotBeUsedIsAValueNotAnException) {
  const auto& spec = test::spec("lambda");
  running_emulator e(spec);
  session rejected(spec, {.base_url = e.emu->base_url(), .api_key = "not-a-key-it-knows"});
  ASSERT_TRUE(rejected.unusable().has_value());
  EXPECT_EQ(rejected.unusable()->why, run_stop::kind::target_unusable);
  EXPECT_NE(rejected.unusable()->message.find("the API key was rejected"), std::string::npos) << rejected.unusable()->message;
  EXPECT_NE(rejected.unusable()->message.find(spec.auth.env), std::string::npos) << "names the variable to set";

  const auto closed = e.emu->base_url();
  e.emu->stop();
  session unreachable(spec, {.base_url = closed, .api_key = e.model.api_keys[0], .http = {.connect_timeout = std::chrono::seconds(2)}});
  ASSERT_TRUE(unreachable.unusable().has_value());
  EXPECT_NE(unreachable.unusable()->message.find("cannot reach"), std::string::npos) << unreachable.unusable()->message;

  EXPECT_THROW((void)session(spec, {.base_url = "ftp://example.com/"}), config_error);
}

TEST(Session, OneSpendingRuleForEveryCommand) {
  const auto& spec = test::spec("lambda");
  running_emulator e(spec);
  const auto url = e.emu->base_url();
  const auto key = e.model.api_keys[0];
  unsetenv(live_opt_in_env);
  // Loopback costs nothing: spending is allowed without --allow-spend...
  EXPECT_TRUE(session(spec, {.base_url = url, .api_key = key}).spend().allowed);
  // ...unless the run is read-only.
  session read_only(spec, {.base_url = url, .api_key = key, .read_only = true});
  EXPECT_FALSE(read_only.spend().allowed);
  EXPECT_TRUE(read_only.spend().read_only);
  EXPECT_EQ(read_only.spend().refusal, read_only_refusal);
  // Live rules: the flag and NEOGRADE_LIVE=1, both.
  EXPECT_FALSE(session(spec, {.base_url = url, .api_key = key, .treat_as_live = true}).spend().allowed);
  session flag_only(spec, {.base_url = url, .api_key = key, .allow_spend = true, .treat_as_live = true});
  EXPECT_FALSE(flag_only.spend().allowed);
  EXPECT_NE(flag_only.spend().refusal.find("NEOGRADE_LIVE=1 is not set"), std::string::npos);
  // A journal that cannot be opened refuses spending; the run itself goes on.
  setenv(live_opt_in_env, "1", 1);
  session no_journal(spec, {.base_url = url,
                            .api_key = key,
                            .allow_spend = true,
                            .treat_as_live = true,
                            .journal = "/proc/neograde-cannot-be-here/journal.jsonl"});
  unsetenv(live_opt_in_env);
  EXPECT_FALSE(no_journal.spend().allowed);
  EXPECT_NE(no_journal.spend().refusal.find("the journal cannot be opened"), std::string::npos) << no_journal.spend().refusal;
  EXPECT_FALSE(no_journal.unusable().has_value());
}

TEST(Session, BudgetsWithTheOneBilledEstimate) {
  const auto& spec = test::spec("lambda");
  running_emulator e(spec);
  session plain(spec, {.base_url = e.emu->base_url(), .api_key = e.model.api_keys[0]});
  session held(spec, {.base_url = e.emu->base_url(), .api_key = e.model.api_keys[0], .extra_hold_s = 600});
  EXPECT_DOUBLE_EQ(plain.rules().billed_seconds_per_instance,
                   billed_seconds_estimate(spec.timing.time_to_running_s, spec.timing.time_to_gone_s));
  EXPECT_DOUBLE_EQ(held.rules().billed_seconds_per_instance, plain.rules().billed_seconds_per_instance + 600);
}

TEST(Session, HttpOptionsChangeOnlyBeforeTheClientsAreMade) {
  const auto& spec = test::spec("lambda");
  running_emulator e(spec);
  session s(spec, {.base_url = e.emu->base_url(), .api_key = e.model.api_keys[0], .second_api_key = e.model.api_keys[1]});
  int attempts = 0;
  s.configure_http([&](http::client_options& o) { o.before_attempt = [&] { ++attempts; }; });
  (void)s.primary().call(operation_id::list);
  (void)s.second()->call(operation_id::list);
  EXPECT_EQ(attempts, 2) << "both accounts' clients take the options; the probe is not counted";
  EXPECT_EQ(&s.primary().ledger(), &s.second()->ledger()) << "one ledger for the run";
  EXPECT_THROW(s.configure_http([](http::client_options&) {}), std::logic_error);
}

TEST(Session, AReplayIsLabelledReplayAndSendsNothing) {
  const auto& spec = test::spec("lambda");
  const auto path = std::filesystem::temp_directory_path() / ("neograde-session-" + std::to_string(::getpid()) + ".cassette");
  std::string url;
  {
    running_emulator e(spec);
    url = e.emu->base_url();
    session recording(spec, {.base_url = url, .api_key = e.model.api_keys[0], .run_id = "0badcafe", .record = path});
    EXPECT_TRUE(recording.selection().chosen.has_value());
  }
  auto loaded = load_cassette(path);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->header.recorded_source, result_source::emulated);
  EXPECT_EQ(loaded->header.run_id, "0badcafe");
  auto from = std::make_shared<replayer>(std::move(*loaded));
  session replay(spec, {.base_url = url, .api_key = "no-key", .run_id = "0badcafe", .replay = from});
  EXPECT_FALSE(replay.probe().has_value()) << "nothing is probed in a replay";
  EXPECT_EQ(replay.provenance(), result_source::replay);
  EXPECT_TRUE(replay.selection().chosen.has_value());
  EXPECT_DOUBLE_EQ(replay.time_scale(), 0.25) << "learned from the recorded answers";
  EXPECT_EQ(from->remaining(), 0u);
  EXPECT_FALSE(from->failure().has_value());
  std::filesystem::remove(path);
}

// A 429's Retry-After is waited out on the run's clock: with a virtual clock, the wait moves it
// and costs no real time, so a test's verdict does not hang on the machine's speed.
TEST(Session, RetriesWaitOnTheRunsClock) {
  const auto& spec = test::spec("lambda");
  test::scripted_server server({{test::scripted_server::response(429, "{}", "Retry-After: 20\r\n"), true},
                                {test::scripted_server::response(200, R"({"data":[]})"), true}});
  virtual_clock time;
  const auto started = time.now();
  session s(spec, {.base_url = server.url().substr(0, server.url().size() - 1), .api_key = "k", .clock = &time});
  ASSERT_TRUE(s.probe().has_value());
  EXPECT_EQ(s.probe()->status(), 200) << s.probe()->describe();
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(time.now() - started).count(), 20);
}
