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

// A provider's badge (badges/<name>.svg and .json in a report): the label names the source,
// which a badge never leaves out ("neograde EMULATED", LIVE, REPLAY, UNKNOWN SOURCE); the message
// is the tier, the score and the run's date ("Bronze 91.6 · 2026-12-05", "Not graded · ...");
// the colour the tier's.
struct badge {
  std::string label;
  std::string message;
  std::string color;  // a shields.io named colour (brightgreen, green, yellowgreen, orange, red, lightgrey)
  std::string hex;    // the same as #rrggbb, for the SVG
  std::string title;  // for people and screen readers: the provider's name, label and message
};
[[nodiscard]] badge badge_of(const scorecard& card);

// The badge as a standalone SVG document (plain text elements, every text XML-escaped, characters
// XML forbids replaced), which an HTML page may also inline.
[[nodiscard]] std::string render_badge_svg(const scorecard& card);

// The shields.io "endpoint" form (https://shields.io/badges/endpoint-badge): schemaVersion 1,
// label, message, color.
[[nodiscard]] std::string render_badge_json(const scorecard& card);

}  // namespace neograde::reports
