#pragma once
// A self-contained HTML report over many scorecards: provenance banner, worst-to-best leaderboard
// (Bowtie), check-by-provider matrix (Autobahn), inline SVG charts, hall of shame and one section
// per provider with its evidence. The page has no script and requests nothing, so it opens offline.

#include <neograde/reports/scorecard.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace neograde::reports {

// What a card carries as recorded (measurements, evidence, the instance) is read as data: missing
// or wrong-typed fields render as blanks, never throw. Every scorecard text is HTML-escaped;
// `generated_at` is shown as given (escaped too). `sections`: HTML rendered elsewhere (the
// reliability section of reports/history.hpp), placed as given after the charts.
[[nodiscard]] std::string render_html(const std::vector<scorecard>& scorecards, const std::string& generated_at,
                                      const std::string& sections = "");

// Text as HTML element content or attribute value: & < > " ' escaped.
[[nodiscard]] std::string html_escape(std::string_view text);

}  // namespace neograde::reports
