#pragma once
// Stop requests (SIGINT, SIGTERM) and the teardown they must not interrupt.

#include <neograde/core/clock.hpp>

#include <chrono>
#include <stdexcept>

namespace neograde {

// SIGINT and SIGTERM set a flag; the run notices it at its next request or wait,
// stops checking and tears down what it created. While teardown runs, further signals are
// reported and ignored: stopping teardown would leave billed instances behind.
void install_stop_handlers();
[[nodiscard]] int stop_signal() noexcept;  // 0, or the first signal received
struct stop_requested : std::runtime_error {
  int signal;
  explicit stop_requested(int sig);
};
// Throws stop_requested when a signal arrived, except inside a teardown_scope.
void throw_if_stop_requested();
// Waits `d` on `clock`, noticing a stop request within a tenth of a second (throws as above).
void sleep_unless_stopped(run_clock& clock, std::chrono::milliseconds d);
class teardown_scope {
 public:
  teardown_scope();
  ~teardown_scope();
  teardown_scope(const teardown_scope&) = delete;
  teardown_scope& operator=(const teardown_scope&) = delete;
};

}  // namespace neograde
