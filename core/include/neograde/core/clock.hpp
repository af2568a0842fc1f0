#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

namespace neograde {

// Now as ISO 8601 UTC to the second: "2026-11-29T15:04:05Z".
[[nodiscard]] std::string utc_now_iso8601();
// As ISO 8601 UTC the time that many seconds ago (none: now).
[[nodiscard]] std::string utc_iso8601_ago(long long seconds);

// Now as an HTTP date (RFC 9110 §5.6.7 IMF-fixdate): "Sun, 29 Nov 2026 15:04:05 GMT".
[[nodiscard]] std::string http_date_now();

// Seconds from now until a UTC time written in `format` (strptime's): negative when it is past;
// nullopt when the text does not match. Any year is safe: no conversion to a clock that could
// overflow.
[[nodiscard]] std::optional<long long> seconds_until_utc(const std::string& text, const char* format);

// A duration the spec states in seconds of provider time, as run-clock time for a target that runs
// `scale` times as fast (an emulator's time scale; 1 against a real provider): whole milliseconds,
// cut down (or, `round_up`, up: a wait that must not end early), and at least `floor`. The one
// conversion: the lifecycle's deadlines and poll intervals, the launch steps', the teardown's and
// the minimum runtime's all go through it.
[[nodiscard]] inline std::chrono::milliseconds provider_time(double seconds, double scale,
                                                             std::chrono::milliseconds floor = std::chrono::milliseconds(0),
                                                             bool round_up = false) {
  const double ms = seconds * scale * 1000;
  return std::max(floor, std::chrono::milliseconds(static_cast<long long>(round_up ? std::ceil(ms) : ms)));
}

// The time a run sees. Real by default; a replay drives it from a cassette's timestamps, so that
// deadlines and measurements come out as they were recorded and nothing sleeps.
class run_clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~run_clock() = default;
  [[nodiscard]] virtual time_point now() = 0;
  virtual void sleep(std::chrono::milliseconds d) = 0;
};

// steady_clock and this_thread::sleep_for.
[[nodiscard]] run_clock& real_clock();

// Time that moves only when someone sleeps on it, and never by itself. A test gives the same
// virtual clock to a run and to the emulator it runs against: boots, polls, deadlines, retries
// and rate-limit refills then come out the same at any machine speed, and nothing really waits.
// Safe to read from the emulator's thread while the run's thread sleeps.
class virtual_clock final : public run_clock {
 public:
  [[nodiscard]] time_point now() override { return start_ + std::chrono::nanoseconds(elapsed_ns_.load()); }
  void sleep(std::chrono::milliseconds d) override {
    if (d.count() > 0) elapsed_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  }

 private:
  time_point start_ = std::chrono::steady_clock::now();
  std::atomic<long long> elapsed_ns_{0};
};

}  // namespace neograde
