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

struct run_options {
  std::string base_url;
  std::string api_key;
  std::string second_api_key;  // a second account, for isolation checks
  bool allow_spend = false;    // checks that launch instances run only when true
  bool probe_rate_limit = false;  // probe for a 429 (always on against the emulator)
  http::client_options http;
  std::string run_id;          // names what the run creates: neograde-<run_id>-...
  // Called once the target is known (emulated or live), before the first outcome.
  std::function<void(result_source, double time_scale)> on_start;
  std::function<void(const check_descriptor&, const check_outcome&)> on_outcome;
};

struct run_report {
  result_source source = result_source::unknown;
  double time_scale = 1.0;
  std::vector<check_outcome> outcomes;
  nlohmann::json measurements = nlohmann::json::object();
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
