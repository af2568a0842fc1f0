#pragma once
// The one poll loop: look, decide or wait a poll interval, until a deadline on the run's clock.

#include <neograde/core/clock.hpp>

namespace neograde {

// Looks until a look decides or `deadline` passes: `look` returns an engaged optional (the
// decision) or an empty one (not yet); `wait` runs between looks (a poll interval). It looks at
// least once, and the look made at or past the deadline is the last, so that a decision reached
// just in time counts. Empty: undecided at the deadline. The lifecycle's waits and the teardown's
// use it, so that each is decided once, within the spec's own timings (issue 36).
template <class Look, class Wait>
auto poll_until(run_clock& clock, run_clock::time_point deadline, Look&& look, Wait&& wait) -> decltype(look()) {
  for (;;) {
    if (auto decided = look()) return decided;
    if (clock.now() >= deadline) return {};
    wait();
  }
}

}  // namespace neograde
