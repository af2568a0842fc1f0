#pragma once
// Runs the check catalogue against one provider and streams outcomes as they are decided.

#include <neograde/clients/http.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

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
  bool probe_rate_limit = false;  // probe for a 429 (always on against the emulator)
  http::client_options http;
  std::string run_id;          // names what the run creates: neograde-<run_id>-...
  std::optional<remote_exec_options> remote;
  // Called once the target is known (emulated or live), before the first outcome.
  std::function<void(result_source, double time_scale)> on_start;
  std::function<void(const check_descriptor&, const check_outcome&)> on_outcome;
};

struct run_report {
  result_source source = result_source::unknown;
  double time_scale = 1.0;
  std::vector<check_outcome> outcomes;
  nlohmann::json measurements = nlohmann::json::object();
  // With --remote-exec: the instance, whether SSH answered, and the smoke test's document.
  nlohmann::json hardware;
};

// A reason the run cannot start (unreachable host, TLS failure, rejected key), or nullopt.
struct preflight_failure {
  std::string message;
};

[[nodiscard]] std::optional<preflight_failure> preflight(const provider_spec& spec, const run_options& options);

[[nodiscard]] run_report run(const provider_spec& spec, const run_options& options);

// True for localhost, 127.0.0.0/8 and ::1: targets where nothing can cost money.
[[nodiscard]] bool is_loopback_url(const std::string& url);

// A fresh run id: 8 lowercase hex digits.
[[nodiscard]] std::string new_run_id();

}  // namespace neograde::conformance
