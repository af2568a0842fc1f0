#pragma once
// The one poll loop: look, decide or wait a poll interval, until a deadline on the run's clock, a
// count of looks, or a status nobody documented has been read too often in a row.

#include <neograde/core/clock.hpp>

#include <functional>
#include <optional>
#include <type_traits>

namespace neograde {

// Give up after this many looks in a row that read a status the spec does not document: neograde
// cannot tell when such an instance runs or is gone, and waiting out the deadline decides nothing
// more (issue 19).
inline constexpr int undocumented_looks_allowed = 3;

struct poll_limits {
  run_clock::time_point deadline = run_clock::time_point::max();
  int max_looks = 0;           // at most this many looks (0: no count)
  int undocumented_looks = 0;  // end after this many undocumented reads in a row (0: never)
  // Asked before each wait: true ends the poll (a stop request). Waits that throw
  // (sleep_unless_stopped) interrupt it too.
  std::function<bool()> interrupted;
};

// What one look read, for the undocumented-status rule: a documented status resets the count, an
// undocumented one adds to it, nothing read leaves it as it was.
struct poll_look {
  enum class read { nothing, documented, undocumented } status = read::nothing;
  void documented() { status = read::documented; }
  void undocumented() { status = read::undocumented; }
  void undocumented_if(bool u) { status = u ? read::undocumented : read::documented; }
};

enum class poll_end { decided, deadline, looks, undocumented, interrupted };

template <class T>
struct poll_result {
  std::optional<T> decided;
  poll_end end = poll_end::deadline;
  int looks = 0;
  int undocumented = 0;  // undocumented reads in a row at the end
};

// Looks until a look decides (returns an engaged optional) or a limit is reached. It looks at
// least once, and the look made at or past the deadline is the last, so that a decision reached
// just in time counts; the undocumented rule is judged before the deadline. The lifecycle's waits,
// the launch steps' and the teardown's use it, so that each is decided once, within the spec's own
// timings (issue 36).
template <class Look, class Wait>
auto poll_until(run_clock& clock, const poll_limits& limits, Look&& look, Wait&& wait)
    -> poll_result<typename std::invoke_result_t<Look&, poll_look&>::value_type> {
  poll_result<typename std::invoke_result_t<Look&, poll_look&>::value_type> out;
  for (;;) {
    poll_look l;
    ++out.looks;
    // A look is as of when it is sent: one sent before the deadline and answered after it (a slow
    // answer, a retry's wait, another thread's wait on a shared virtual clock) is not the last.
    const auto sent = clock.now();
    if (auto decided = look(l)) {
      out.decided = std::move(decided);
      out.end = poll_end::decided;
      return out;
    }
    if (l.status != poll_look::read::nothing) out.undocumented = l.status == poll_look::read::undocumented ? out.undocumented + 1 : 0;
    if (limits.undocumented_looks > 0 && out.undocumented >= limits.undocumented_looks) return out.end = poll_end::undocumented, out;
    if (sent >= limits.deadline) return out.end = poll_end::deadline, out;
    if (limits.max_looks > 0 && out.looks >= limits.max_looks) return out.end = poll_end::looks, out;
    if (limits.interrupted && limits.interrupted()) return out.end = poll_end::interrupted, out;
    wait();
  }
}

// The deadline alone, with a look that takes nothing: empty when undecided at the deadline.
template <class Look, class Wait>
auto poll_until(run_clock& clock, run_clock::time_point deadline, Look&& look, Wait&& wait) -> decltype(look()) {
  return poll_until(
             clock, poll_limits{.deadline = deadline}, [&](poll_look&) { return look(); }, wait)
      .decided;
}

}  // namespace neograde
