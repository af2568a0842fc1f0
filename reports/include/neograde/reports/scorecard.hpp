#pragma once
// Scorecards: a graded summary of one run, rendered as JSON and Markdown, and an index of many.
// The grading formula is documented in reports/README.md.

#include <neograde/reports/results.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace neograde::reports {

// Weighted score, tier and counts of one run.
[[nodiscard]] nlohmann::json build_scorecard(const run_record& run);

// The timings a user replaced for the run (--time-to-running, --time-to-gone), as one line that
// says the run is not comparable with a standard one; "" for a run under the spec's timings.
[[nodiscard]] std::string timing_overrides_summary(const nlohmann::json& scorecard);

// The provenance banner every output carries: EMULATED, REPLAY or LIVE, and what that means.
[[nodiscard]] std::string provenance_banner(const nlohmann::json& scorecard);

// The spec's transparency metadata in one line ("hardware: owns (source); deprecated: ..."), or
// "" when the spec says nothing.
[[nodiscard]] std::string transparency_summary(const nlohmann::json& scorecard);

[[nodiscard]] std::string render_markdown(const nlohmann::json& scorecard);
[[nodiscard]] std::string render_index_markdown(const std::vector<nlohmann::json>& scorecards);

}  // namespace neograde::reports
