// Deciding once, within the spec's own timings (issue 36): a list a few seconds behind single
// reads is read again before a verdict, a permanent ghost still fails, a restart that ends off and
// a stuck boot are decided when the evidence decides them, and the teardown does not wait the
// time to gone a second time. Every run here is at the spec's real timings on a virtual clock
// shared with the emulator, so the durations asserted are provider seconds whatever the machine.

#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/emulator/emulator.hpp>

#include "../support/emulated_run.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace neograde;

namespace {

struct timed_run : test::emulated_run {
  std::map<std::string, double> decided_at_s;  // virtual seconds from the run's start to each check's verdict
};

timed_run run_at_real_timings(const provider_spec& spec, emulator::quirk_set quirks) {
  timed_run out;
  static_cast<test::emulated_run&>(out) = test::run_on_virtual_clock(
      spec, std::move(quirks), 1.0, "decide", true, {}, [&out](const check_descriptor& d, double at) { out.decided_at_s[d.id] = at; });
  return out;
}

using test::outcome_of;

constexpr const char* each_once = "pagination.list.each_once";
constexpr const char* gone = "lifecycle.instance.gone_after_terminate";
constexpr const char* terminated = "lifecycle.instance.terminate_accepted";
constexpr const char* left_behind = "lifecycle.run.nothing_left_behind";

}  // namespace

// Prime Intellect's GET /pods/ 3 s behind GET /pods/{id}: the pages are walked again until the
// launches show, and the list is read again until the terminate shows, so nothing fails for it;
// a list that keeps the terminated pod listed running fails, after the spec's time to gone.
TEST(ListLag, AListThreeSecondsBehindPassesWhileAPermanentGhostFails) {
  const auto& spec = test::spec("primeintellect");
  const auto lagging = run_at_real_timings(spec, {"list_lags_get"});
  for (const char* id : {each_once, gone, "lifecycle.instance.visible_in_list", "pagination.list.metadata_truthful"}) {
    const auto& o = outcome_of(lagging.report, id);
    EXPECT_EQ(o.result, outcome::pass) << id << ": " << o.reason;
  }
  for (const auto& o : lagging.report.outcomes) EXPECT_NE(o.result, outcome::fail) << o.check_id << ": " << o.reason;
  EXPECT_EQ(lagging.live_after, 0u);

  const auto ghost = run_at_real_timings(spec, {"ghost_after_terminate"});
  const auto& o = outcome_of(ghost.report, gone);
  EXPECT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_NE(o.reason.find("a ghost that may still bill"), std::string::npos) << o.reason;
  EXPECT_FALSE(o.evidence.empty());
  // Decided at the time to gone from the terminate, not on one read.
  const double waited = ghost.decided_at_s.at(gone) - ghost.decided_at_s.at(terminated);
  EXPECT_GE(waited, spec.timing.time_to_gone_s) << o.reason;
  EXPECT_LE(waited, spec.timing.time_to_gone_s + 2 * spec.timing.poll_interval_s) << o.reason;
  EXPECT_EQ(outcome_of(ghost.report, left_behind).result, outcome::fail);
  RecordProperty("ghost_decided_s_after_terminate", std::to_string(waited));
}

// DigitalOcean-shaped: the reboot action completes and the droplet reads `off`, a documented
// stopped word, for good. The restart fails at the first read after the action, not after the
// 900 s time to running.
TEST(RestartEndsOff, IsDecidedAtOnceNotAfterTheTimeToRunning) {
  const auto& spec = test::spec("digitalocean");
  const auto run = run_at_real_timings(spec, {"restart_ends_off"});
  const auto& o = outcome_of(run.report, "lifecycle.instance.restart_returns_to_running");
  EXPECT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_NE(o.reason.find("\"off\", documented as stopped"), std::string::npos) << o.reason;
  EXPECT_FALSE(o.evidence.empty());
  // The reboot action takes the emulator's boot time; one read after it decides.
  const double boot_s = spec.emulator.at("boot_s").get<double>();
  EXPECT_LE(o.duration_ms / 1000, boot_s + 2 * spec.timing.poll_interval_s) << o.reason;
  EXPECT_LT(o.duration_ms / 1000, spec.timing.time_to_running_s) << o.reason;
  EXPECT_EQ(run.live_after, 0u);
  RecordProperty("restart_decided_after_s", std::to_string(o.duration_ms / 1000));
}

// Prime Intellect-shaped: a pod stuck PROVISIONING (a documented pending word). reaches_running is
// decided at the time to running from the launch, and the run ends soon after with every verdict
// written and nothing left behind.
TEST(StuckBoot, IsDecidedAtTheTimeToRunningAndTheRunEndsSoonAfter) {
  const auto& spec = test::spec("primeintellect");
  const auto run = run_at_real_timings(spec, {"stuck_booting"});
  const char* running = "lifecycle.instance.reaches_running";
  const auto& o = outcome_of(run.report, running);
  EXPECT_EQ(o.result, outcome::fail) << o.reason;
  const double launched_at = run.decided_at_s.at("lifecycle.instance.launch_returns_id");
  EXPECT_GE(run.decided_at_s.at(running) - launched_at, spec.timing.time_to_running_s) << o.reason;
  EXPECT_LE(run.decided_at_s.at(running) - launched_at, spec.timing.time_to_running_s + 2 * spec.timing.poll_interval_s) << o.reason;
  EXPECT_LE(run.ended_at_s - run.decided_at_s.at(running), 90) << "the run went on after the stuck boot was decided";
  EXPECT_EQ(run.report.outcomes.size(), conformance::catalogue().size());
  EXPECT_FALSE(run.report.stopped.has_value());
  EXPECT_EQ(outcome_of(run.report, left_behind).result, outcome::pass) << outcome_of(run.report, left_behind).reason;
  EXPECT_EQ(run.live_after, 0u);
  RecordProperty("running_decided_s_after_launch", std::to_string(run.decided_at_s.at(running) - launched_at));
  RecordProperty("run_ended_s_after_that", std::to_string(run.ended_at_s - run.decided_at_s.at(running)));
}

// Lambda's timings (300 s to gone) with terminated instances that stay listed active: the run
// ends within the time to gone plus 90 s of the terminate, gone_after_terminate failed, the leak
// reported.
TEST(DecideOnce, LambdaGhostsEndTheRunWithinTheTimeToGonePlusNinetySeconds) {
  const auto& spec = test::spec("lambda");
  ASSERT_EQ(spec.timing.time_to_gone_s, 300);
  const auto run = run_at_real_timings(spec, {"ghost_after_terminate"});
  EXPECT_EQ(outcome_of(run.report, gone).result, outcome::fail) << outcome_of(run.report, gone).reason;
  EXPECT_EQ(outcome_of(run.report, left_behind).result, outcome::fail) << outcome_of(run.report, left_behind).reason;
  const double from_terminate = run.ended_at_s - run.decided_at_s.at(terminated);
  EXPECT_LE(from_terminate, spec.timing.time_to_gone_s + 90) << "virtual seconds from the terminate to the end of the run";
  RecordProperty("virtual_s_from_terminate_to_end", std::to_string(from_terminate));
}

// An instance that stays terminating for good: the lifecycle waits the time to gone once; the
// teardown terminates and reads it once more and reports the leak, without waiting again.
TEST(DecideOnce, TheTeardownDoesNotWaitTheTimeToGoneASecondTime) {
  const auto& spec = test::spec("lambda");
  const auto run = run_at_real_timings(spec, {"terminate_stuck"});
  const auto& o = outcome_of(run.report, gone);
  EXPECT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_NE(o.reason.find("not gone"), std::string::npos) << o.reason;
  const auto& leak = outcome_of(run.report, left_behind);
  EXPECT_EQ(leak.result, outcome::fail) << leak.reason;
  EXPECT_NE(leak.reason.find("did not wait again"), std::string::npos) << leak.reason;
  const double from_terminate = run.ended_at_s - run.decided_at_s.at(terminated);
  EXPECT_LE(from_terminate, spec.timing.time_to_gone_s + 90) << "virtual seconds from the terminate to the end of the run";
  RecordProperty("virtual_s_from_terminate_to_end", std::to_string(from_terminate));
}
