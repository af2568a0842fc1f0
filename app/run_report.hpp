#pragma once
// What a run leaves behind: conformance run into results.jsonl, scorecard.json and scorecard.md;
// the report formats of many scorecards; and the exit code and message of a run that stopped.

#include "commands.hpp"

#include <neograde/conformance/runner.hpp>
#include <neograde/reports/history.hpp>
#include <neograde/reports/scorecard.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neograde::app {

struct run_summary {
  reports::scorecard scorecard;
  int failed = 0;                   // checks with outcome fail
  std::optional<run_stop> stopped;  // the run did not finish: why, and after which check
};

// Opens results.jsonl from the session (its provenance, spend permission and offer selection)
// before the first check, runs conformance, and writes the scorecard from what was written.
// `timing_overrides`: the spec timings the run replaced (apply_run_cli), for the header.
// `shared_terminal`: other runs print beside this one, so no progress line overwrites another.
[[nodiscard]] run_summary run_and_report(session& s, conformance::run_options options, const nlohmann::json& timing_overrides,
                                         const std::filesystem::path& out_dir, bool shared_terminal = false);

// The exit code and message of a run that stopped (exit_for_signal, exit_usage or exit_bug),
// printed to stderr; `what` names the run ("the run", "the campaign"), `where` its results.
[[nodiscard]] int report_stop(const run_stop& stop, const std::string& what, const std::string& where);

// Writes every format of a report into `out_dir`: scorecard.json (the cards), index.md,
// providers/<name>/scorecard.md and .json, index.html and a page per provider
// (providers/<name>.html), badges/<name>.svg and .json, junit.xml, matrix.csv; with reliability
// figures (a history), also reliability.json and reliability.md, their section in index.md and
// index.html, and each provider's trend on its page. `generated_at` (default: now) is what the
// pages say they were generated at. Returns index.html's path.
std::filesystem::path write_report(const std::vector<reports::scorecard>& cards, const std::filesystem::path& out_dir,
                                   const std::vector<reports::reliability>& reliability = {}, const std::string& generated_at = "");

}  // namespace neograde::app
