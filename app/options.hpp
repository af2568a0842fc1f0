#pragma once
// What the commands are told: the options several of them share, and reading them, before any
// request, into a spec with its variables and a session's options (clients/session.hpp).

#include "commands.hpp"

#include <neograde/clients/session.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/core/spec.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace neograde::app {

// Loads a spec by name or path; throws usage_error with the file and JSON pointer of a fault.
[[nodiscard]] provider_spec load_spec_or_throw(const std::string& name_or_path);

// The API key given, or else the spec's environment variable's; throws usage_error when neither.
[[nodiscard]] std::string api_key_or_throw(const provider_spec& spec, const std::string& given);

// Live mode's options, shared by the commands that may create instances.
struct live_cli {
  double max_spend_usd = 5.0;
  std::string journal;  // empty: the default (clients/journal.hpp)
  bool treat_as_live = false;
};
// --max-spend, --journal and the hidden --treat-as-live.
void add_live_options(CLI::App* cmd, live_cli& o);

// What a run is pointed at besides URL and key: the spec's variables (--set NAME=VALUE) and
// the offer to launch (--instance-type, --region).
struct target_cli {
  std::vector<std::string> sets;
  std::string instance_type;
  std::string region;
};
// --set always; --instance-type and --region with `pins`.
void add_target_options(CLI::App* cmd, target_cli& o, bool pins = true);

// Gives spec.variables the values a run against a live (or emulated) target sends: live,
// --set, then each variable's environment variable, then its default (an emulator placeholder
// never); on the emulator, its own values. Throws usage_error, before any request, naming every
// required variable left unset and its environment variable, or a --set the spec does not declare.
void apply_variables(provider_spec& spec, const target_cli& o, bool live);
// The variables a live run was given no value for and the spec says where to read
// (variable_decl::from: Spheron's team id, the first team of GET /api/teams), read with the
// run's key; a usage_error naming the variable's --set and environment variable when they
// cannot be read. Nothing is sent where every variable has its value.
void discover_variables(provider_spec& spec, const session_options& so);

// What a conformance run is told besides where it goes and with which key: conformance and
// preflight (which predicts a conformance run) both take these.
struct run_cli {
  std::string second_api_key;
  std::string ca_file;
  conformance::rdap_run_options rdap;  // --rdap-url, --no-rdap (conformance only)
  bool allow_spend = false;
  bool read_only = false;  // conformance --read-only: the audit, which creates nothing
  bool probe_rate_limit = false;
  int max_instances = 1;
  std::optional<double> time_to_running_s, time_to_gone_s;  // replace the spec's (staging APIs, test doubles)
  live_cli live;
  target_cli target;
};

// Completes the session's options (whose base_url is set) and the run's from `o`, before any
// request: checks the URL, gives the spec the run's variables, and sets the pins, CA, live mode,
// --allow-spend, the budget, the journal and the rate-limit probe; applies --time-to-running and
// --time-to-gone to the spec and returns what they replaced, each {"value", "spec"} in seconds.
// Throws usage_error for a URL that is not http(s) or a required variable left unset.
[[nodiscard]] nlohmann::json apply_run_cli(session_options& session, conformance::run_options& run, provider_spec& spec, const run_cli& o);

// --time-to-running and --time-to-gone.
void add_timing_options(CLI::App* cmd, run_cli& o);

}  // namespace neograde::app
