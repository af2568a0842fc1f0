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
  std::optional<std::string> stopped;  // the run did not finish: why, and after which check
  int stop_signal = 0;
};

[[nodiscard]] run_summary run_and_report(const provider_spec& spec, conformance::run_options options,
                                         const std::filesystem::path& out_dir);

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

// Completes `run` (whose base_url is set) from `o`, before any request: checks the URL, gives the
// spec the run's variables, and sets the pins, CA, live mode, the spending rule (the emulator
// costs nothing unless treated as live), the budget, the journal and the rate-limit probe.
// Throws usage_error for a URL that is not http(s) or a required variable left unset.
void apply_run_cli(conformance::run_options& run, provider_spec& spec, const run_cli& o);

// --time-to-running and --time-to-gone.
void add_timing_options(CLI::App* cmd, run_cli& o);

// Loads a spec by name or path; throws usage_error with the file and JSON pointer of a fault.
[[nodiscard]] provider_spec load_spec_or_throw(const std::string& name_or_path);

}  // namespace neograde::app
