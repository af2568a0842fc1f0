#pragma once
// Runs the check catalogue against one provider and streams outcomes as they are decided.

#include <neograde/clients/http.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/clients/journal.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace neograde::conformance {

// --remote-exec: copy neograde-gpu-smoke to the running instance over SSH, run it there before
// terminating, and keep its JSON as the run's hardware record.
struct remote_exec_options {
  std::string binary;    // the neograde-gpu-smoke to copy
  std::string identity;  // private key whose .pub the run registers; empty: a throw-away key
  std::string user = "ubuntu";
  int port = 22;
  std::vector<std::string> smoke_args;  // e.g. --expect h100-sxm5-80gb --count 8
  double ssh_wait_s = 600;   // how long after "running" SSH may take to answer
  double smoke_timeout_s = 300;
};

struct run_options {
  std::string base_url;
  std::string api_key;
  std::string second_api_key;  // a second account, for isolation checks
  bool allow_spend = false;    // checks that launch instances run only when true
  // Live mode's rules (budget, journal, confirmed teardown) also on loopback: how they are tested.
  bool treat_as_live = false;
  spend_budget budget;         // live mode only
  std::filesystem::path journal = default_journal_path();  // live mode only
  bool probe_rate_limit = false;  // probe for a 429 (always on against the emulator)
  http::client_options http;
  std::string run_id;          // names what the run creates: neograde-<run_id>-...
  // Spec timings this run replaces (--time-to-running, --time-to-gone), each {"value", "spec"}
  // in seconds: recorded in the results header, so a shortened run is never taken for a standard one.
  nlohmann::json timing_overrides = nlohmann::json::object();
  std::optional<remote_exec_options> remote;
  offer_pins pins;             // --instance-type, --region: which offer rows the run may launch
  // Replay: the clock the run sees (the cassette's) and the label of its results.
  run_clock* clock = nullptr;  // null: the real one
  std::optional<result_source> source;  // null: emulated or live, as the target identifies itself
  // Called once the target is known (emulated or live), before the first outcome, with the offer
  // selection (provider_client.hpp, offer_selection::to_json).
  std::function<void(result_source, double time_scale, const nlohmann::json& offer_selection)> on_start;
  std::function<void(const check_descriptor&, const check_outcome&)> on_outcome;
};

struct run_report {
  result_source source = result_source::unknown;
  double time_scale = 1.0;
  std::vector<check_outcome> outcomes;
  nlohmann::json measurements = nlohmann::json::object();
  // With --remote-exec: the instance, whether SSH answered, and the smoke test's document.
  nlohmann::json hardware;
  // Set when the run did not finish its checks (a signal, an error): why, and after which check.
  std::optional<std::string> stopped;
  int stop_signal = 0;
};

// A reason the run cannot start (unreachable host, TLS failure, rejected key), or nullopt.
struct preflight_failure {
  std::string message;
};

// billed_seconds_estimate (spend.hpp) for this run: with --remote-exec, the SSH wait and the
// smoke test are held too.
[[nodiscard]] double billed_seconds(const provider_spec& spec, const run_options& options);

// `identified`, when given, receives what the target is: emulated or live.
[[nodiscard]] std::optional<preflight_failure> preflight(const provider_spec& spec, const run_options& options,
                                                         result_source* identified = nullptr);

[[nodiscard]] run_report run(const provider_spec& spec, const run_options& options);

// True for localhost, 127.0.0.0/8 and ::1: targets where nothing can cost money.
[[nodiscard]] bool is_loopback_url(const std::string& url);

}  // namespace neograde::conformance
