#pragma once
// Machine-readable views of scorecards for other tools: JUnit XML for CI systems, and a
// check-by-provider CSV matrix (Autobahn's comparison view) for spreadsheets and scripts.

#include <neograde/reports/scorecard.hpp>

#include <string>
#include <vector>

namespace neograde::reports {

// JUnit XML: one <testsuite> per scorecard, one <testcase> per check. fail and warn are
// <failure>s, errored is an <error>, skipped and the provider conditions are <skipped>.
[[nodiscard]] std::string render_junit(const std::vector<scorecard>& scorecards);

// RFC 4180 CSV, CRLF line endings: check_id, category, severity, then one outcome column per
// scorecard in the order given (a provider seen again is suffixed #2, #3, ...). A cell is empty
// when that scorecard lacks the check.
[[nodiscard]] std::string render_matrix_csv(const std::vector<scorecard>& scorecards);

}  // namespace neograde::reports
