#pragma once
// Runs conformance for one provider and writes results.jsonl, scorecard.json and scorecard.md.

#include "commands.hpp"

#include <neograde/conformance/runner.hpp>
#include <neograde/core/spec.hpp>
#include <neograde/reports/scorecard.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neograde::app {

struct run_summary {
  reports::scorecard scorecard;
  int failed = 0;  // checks with outcome fail
  std::optional<run_stop> stopped;  // the run did not finish: why, and after which check
};

// Opens results.jsonl from the session (its provenance, spend permission and offer selection)
// before the first check, runs conformance, and writes the scorecard from what was written.
// `timing_overrides`: the spec timings the run replaced (apply_run_cli), for the header.
[[nodiscard]] run_summary run_and_report(session& s, conformance::run_options options, const nlohmann::json& timing_overrides,
                                         const std::filesystem::path& out_dir);

// The exit code and message of a run that stopped (exit_for_signal, exit_usage or exit_bug),
// printed to stderr; `what` names the run ("the run", "the campaign"), `where` its results.
[[nodiscard]] int report_stop(const run_stop& stop, const std::string& what, const std::string& where);

// Writes every format of a report into `out_dir`: scorecard.json (the cards), index.md,
// providers/<id>/scorecard.md and .json, index.html, junit.xml, matrix.csv. Returns index.html's path.
std::filesystem::path write_report(const std::vector<reports::scorecard>& cards, const std::filesystem::path& out_dir);

// The API key given, or else the spec's environment variable's; throws usage_error when neither.
[[nodiscard]] std::string api_key_or_throw(const provider_spec& spec, const std::string& given);

// What a conformance run is told besides where it goes and with which key: conformance and
// preflight (which predicts a conformance run) both take these.
struct run_cli {
  std::string second_api_key;
  std::string ca_file;
  bool allow_spend = false;
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
[[nodiscard]] nlohmann::json apply_run_cli(session_options& session, conformance::run_options& run, provider_spec& spec,
                                           const run_cli& o);

// --time-to-running and --time-to-gone.
void add_timing_options(CLI::App* cmd, run_cli& o);

// Loads a spec by name or path; throws usage_error with the file and JSON pointer of a fault.
[[nodiscard]] provider_spec load_spec_or_throw(const std::string& name_or_path);

}  // namespace neograde::app
