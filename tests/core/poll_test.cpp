#include <neograde/core/poll.hpp>

#include <gtest/gtest.h>

#include <optional>

using namespace neograde;
using namespace std::chrono_literals;

namespace {
auto waiting_on(virtual_clock& c) {
  return [&c] { c.sleep(10ms); };
}
}  // namespace

TEST(PollUntil, ReturnsTheFirstDecisionWithoutWaitingFurther) {
  virtual_clock clock;
  const auto start = clock.now();
  int looks = 0;
  const auto decided = poll_until(
      clock, start + 1s, [&]() -> std::optional<int> { return ++looks == 3 ? std::optional(42) : std::nullopt; }, waiting_on(clock));
  EXPECT_EQ(decided, 42);
  EXPECT_EQ(looks, 3);
  EXPECT_EQ(clock.now() - start, 20ms);
}

TEST(PollUntil, LooksOnceWhenTheDeadlineHasPassedAndAtTheDeadlineLast) {
  virtual_clock clock;
  int looks = 0;
  auto never = [&]() -> std::optional<bool> {
    ++looks;
    return std::nullopt;
  };
  EXPECT_FALSE(poll_until(clock, clock.now(), never, waiting_on(clock)).has_value());
  EXPECT_EQ(looks, 1);
  looks = 0;
  const auto start = clock.now();
  EXPECT_FALSE(poll_until(clock, start + 100ms, never, waiting_on(clock)).has_value());
  EXPECT_EQ(looks, 11);  // at 0, 10, ..., 100 ms: the look at the deadline counts
  EXPECT_EQ(clock.now() - start, 100ms);
  // A decision reached at the deadline stands.
  const auto late = clock.now();
  EXPECT_EQ(
      poll_until(
          clock, late + 30ms, [&]() -> std::optional<bool> { return clock.now() - late >= 30ms ? std::optional(true) : std::nullopt; },
          waiting_on(clock)),
      true);
}

// A look is as of when it is sent: one answered only after the deadline (a slow answer, a retry's
// wait, another thread's wait on a shared virtual clock) is not the last, and the look sent after
// it decides. Before, the deadline was read after the look: a stop read once, at its very start,
// was judged never to have taken effect (fuzz on four connections, CI of 2026-12-06).
TEST(PollUntil, ALookAnsweredAfterTheDeadlineIsNotTheLast) {
  virtual_clock clock;
  const auto start = clock.now();
  int looks = 0;
  const auto decided = poll_until(
      clock, start + 100ms,
      [&]() -> std::optional<bool> {
        if (++looks > 1) return clock.now() - start >= 100ms ? std::optional(true) : std::nullopt;
        clock.sleep(150ms);  // the first answer arrives past the deadline, read as of its start
        return std::nullopt;
      },
      waiting_on(clock));
  EXPECT_EQ(decided, true);
  EXPECT_EQ(looks, 2);
}

TEST(PollUntilLimits, StopsAtTheCountOfLooks) {
  virtual_clock clock;
  int looks = 0;
  const auto r = poll_until(
      clock, poll_limits{.max_looks = 4},
      [&](poll_look&) -> std::optional<bool> {
        ++looks;
        return std::nullopt;
      },
      waiting_on(clock));
  EXPECT_FALSE(r.decided.has_value());
  EXPECT_EQ(r.end, poll_end::looks);
  EXPECT_EQ(looks, 4);
  EXPECT_EQ(r.looks, 4);
}

// Three undocumented reads in a row end the poll; a documented read starts the count again, and a
// look that read nothing leaves it as it was.
TEST(PollUntilLimits, GivesUpAfterThreeUndocumentedStatusesInARow) {
  virtual_clock clock;
  const auto start = clock.now();
  // u u d u (nothing) u u: the sixth read is the third undocumented in a row.
  const poll_look::read reads[] = {poll_look::read::undocumented, poll_look::read::undocumented, poll_look::read::documented,
                                   poll_look::read::undocumented, poll_look::read::nothing,      poll_look::read::undocumented,
                                   poll_look::read::undocumented, poll_look::read::documented};
  int i = 0;
  const auto r = poll_until(
      clock, poll_limits{.deadline = start + 1s, .undocumented_looks = undocumented_looks_allowed},
      [&](poll_look& l) -> std::optional<bool> {
        l.status = reads[i++];
        return std::nullopt;
      },
      waiting_on(clock));
  EXPECT_EQ(r.end, poll_end::undocumented);
  EXPECT_EQ(r.undocumented, 3);
  EXPECT_EQ(i, 7);
  EXPECT_EQ(clock.now() - start, 60ms);
}

TEST(PollUntilLimits, AnInterruptionEndsThePollBeforeTheNextWait) {
  virtual_clock clock;
  int looks = 0;
  const auto r = poll_until(
      clock, poll_limits{.deadline = clock.now() + 1s, .interrupted = [&] { return looks == 2; }},
      [&](poll_look&) -> std::optional<bool> {
        ++looks;
        return std::nullopt;
      },
      waiting_on(clock));
  EXPECT_EQ(r.end, poll_end::interrupted);
  EXPECT_EQ(looks, 2);
}
