#include <neograde/clients/stop.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>

namespace neograde {

namespace {
std::atomic<int> received{0};
// Per thread: concurrent runs (app/concurrent.hpp) each tear down on their own thread, and one
// run's teardown must not keep another from noticing the stop.
thread_local int teardown_depth = 0;

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  if (received.compare_exchange_strong(expected, sig)) {
    constexpr char msg[] = "\nneograde: stopping: tearing down what this run created (wait; kill -9 leaves it to `neograde sweep`)\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
  } else {
    constexpr char msg[] = "\nneograde: teardown in progress, not stopping it: instances would stay billed\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
  }
}
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int stop_signal() noexcept { return received.load(); }

stop_requested::stop_requested(int sig)
    : std::runtime_error(std::string("stopped by ") + (sig == SIGINT    ? "SIGINT"
                                                       : sig == SIGTERM ? "SIGTERM"
                                                                        : "a signal")),
      signal(sig) {}

void throw_if_stop_requested() {
  if (const int sig = received.load(); sig != 0 && teardown_depth == 0) throw stop_requested(sig);
}

void sleep_unless_stopped(run_clock& clock, std::chrono::milliseconds d) {
  using namespace std::chrono_literals;
  for (;;) {
    throw_if_stop_requested();
    if (d <= 0ms) return;
    const auto slice = std::min<std::chrono::milliseconds>(d, 100ms);
    clock.sleep(slice);
    d -= slice;
  }
}

teardown_scope::teardown_scope() { ++teardown_depth; }
teardown_scope::~teardown_scope() { --teardown_depth; }

}  // namespace neograde
