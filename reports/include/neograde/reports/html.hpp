#pragma once
// A self-contained HTML report over many scorecards: an index with one provenance banner, the
// worst-to-best leaderboard (Bowtie), the check-by-provider matrix (Autobahn), inline SVG charts and
// the hall of shame, each provider linked to a page of its own (providers/<name>.html beside the
// index) with its grade, what failed and why with the evidence and a curl line, transparency,
// developer experience, hardware, measurements and history. No page has a script or requests
// anything, so the report opens offline; pages link to each other by relative paths.

#include <neograde/reports/scorecard.hpp>

#include <map>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace neograde::reports {

// What a card carries as recorded (measurements, evidence, the instance) is read as data: missing
// or wrong-typed fields render as blanks, never throw. Every scorecard text is HTML-escaped;
// `generated_at` is shown as given (escaped too). `sections`: HTML rendered elsewhere (the
// reliability section of reports/history.hpp), placed as given after the charts.
[[nodiscard]] std::string render_html(const std::vector<scorecard>& scorecards, const std::string& generated_at,
                                      const std::string& sections = "");

// Where each card's history is, by (provider id, source): its page and the anchor of its History
// heading ("providers/<name>.html#provider-<id>-history"), for the index's reliability table.
[[nodiscard]] std::map<std::pair<std::string, std::string>, std::string> provider_history_links(const std::vector<scorecard>& cards);

struct html_page {
  std::string path;  // relative to the index: providers/<name>.html
  std::string html;
};
struct html_site {
  std::string index;  // index.html, the same as render_html
  std::vector<html_page> providers;
};
// The index and a page per card (named by report_name, lower-cased, a repeated name suffixed -2,
// -3). `provider_sections`: HTML for one card's page, by (provider id, source), placed as given
// under "History" (a provider's reliability over time, reports/history.hpp).
[[nodiscard]] html_site render_html_site(const std::vector<scorecard>& scorecards, const std::string& generated_at,
                                         const std::string& sections = "",
                                         const std::map<std::pair<std::string, std::string>, std::string>& provider_sections = {});

// Text as HTML element content or attribute value: & < > " ' escaped.
[[nodiscard]] std::string html_escape(std::string_view text);

}  // namespace neograde::reports
