#pragma once
// One conformance run against an in-process emulator of `spec`, the run and the emulator sharing
// a virtual clock: boots, polls, retries and the rate limit's refills come out the same however
// fast or busy the machine is (issue 19). The mutation matrix and the lifecycle's timing tests
// use it.

#include <neograde/clients/session.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/emulator/emulator.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neograde::test {

struct emulated_run {
  conformance::run_report report;
  std::size_t live_after = 0;  // instances the emulator still holds when the run has ended
  double ended_at_s = 0;       // virtual seconds from the run's start to its end
};

// The emulator of `spec` on a virtual clock, with two accounts, and a session against it as a run
// makes one (read-only without `allow_spend`).
class virtual_emulator {
 public:
  virtual_emulator(const provider_spec& spec, emulator::quirk_set quirks, double scale, const std::string& run_id, bool allow_spend)
      : emu_(spec, model(spec, std::move(quirks), scale, run_id)) {
    emu_.start();
    session_.emplace(spec, session_options{.base_url = emu_.base_url(),
                                           .api_key = keys_[0],
                                           .second_api_key = keys_[1],
                                           .read_only = !allow_spend,
                                           .run_id = run_id + "00",
                                           .http = {.sleep = [this](std::chrono::milliseconds d) { time_.sleep(d); }},
                                           .clock = &time_});
  }
  [[nodiscard]] session& target() { return *session_; }
  [[nodiscard]] virtual_clock& time() { return time_; }
  [[nodiscard]] emulator::emulator& emu() { return emu_; }

 private:
  emulator::model_options model(const provider_spec& spec, emulator::quirk_set quirks, double scale, const std::string& run_id) {
    emulator::model_options m;
    m.api_keys = keys_ = emulator::make_api_keys(spec, 2, run_id);
    m.quirks = std::move(quirks);
    m.time_scale = scale;
    m.now = [this] { return time_.now(); };
    return m;
  }
  virtual_clock time_;
  std::vector<std::string> keys_;
  emulator::emulator emu_;
  std::optional<session> session_;
};

// `on_outcome`, when set, is also told the virtual seconds since the start of each verdict.
inline emulated_run run_on_virtual_clock(const provider_spec& spec, emulator::quirk_set quirks, double scale, const std::string& run_id,
                                         bool allow_spend = true, conformance::run_options options = {},
                                         const std::function<void(const check_descriptor&, double)>& decided = {}) {
  virtual_emulator target(spec, std::move(quirks), scale, run_id, allow_spend);
  auto& time = target.time();
  const auto start = time.now();
  auto seconds = [&] { return std::chrono::duration<double>(time.now() - start).count(); };
  if (decided) {
    auto inner = options.on_outcome;
    options.on_outcome = [&, inner](const check_descriptor& d, const check_outcome& o) {
      if (inner) inner(d, o);
      decided(d, seconds());
    };
  }
  emulated_run out{conformance::run(target.target(), options)};
  out.ended_at_s = seconds();
  out.live_after = target.emu().model().live_instances();
  return out;
}

inline const check_outcome& outcome_of(const conformance::run_report& r, const std::string& id) {
  for (const auto& o : r.outcomes)
    if (o.check_id == id) return o;
  throw std::runtime_error("no outcome for " + id);
}

}  // namespace neograde::test
