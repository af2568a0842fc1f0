#include <neograde/reports/html.hpp>
#include <neograde/reports/exports.hpp>
#include <neograde/reports/measurements.hpp>

#include <neograde/core/finding.hpp>
#include <neograde/core/measurements.hpp>

#include "fields.hpp"

#include <neograde/reports/scorecard.hpp>
#include <neograde/reports/transparency.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <string_view>

namespace neograde::reports {
namespace {

using nlohmann::json;

// Bodies are evidence, not the report: a page with a few megabytes of JSON in it is unreadable.
constexpr std::size_t body_limit = 4000;
constexpr std::size_t shame_limit = 20;

// ---- Reading what the card carries as recorded (measurements, the instance, evidence): every
// field's type checked (fields.hpp).
constexpr auto field = &fields::at;
constexpr auto text_at = &fields::text;
constexpr auto number_at = &fields::number;
constexpr auto object_at = &fields::object;

// dump() throws on invalid UTF-8 unless told to replace it.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Strings as they are, anything else as JSON text.
std::string as_text(const json& j) { return j.is_string() ? j.get<std::string>() : dump(j); }

// ---- Writing.

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Ids and anchors from provider ids: [a-z0-9-] only, so they need no escaping anywhere.
std::string slug(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (out.size() >= 64) break;
    if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
      out += c;
    else
      out += '-';
  }
  return out.empty() ? "unknown" : out;
}

std::string format(double v, const char* spec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

// Table figures keep six significant digits; whole numbers print without a fraction.
std::string figure(double v) { return v == std::floor(v) && std::fabs(v) < 1e15 ? format(v, "%.0f") : format(v, "%.6g"); }

// Chart labels are short.
std::string short_figure(double v) { return std::fabs(v) >= 100 ? format(v, "%.0f") : format(v, "%.3g"); }

// The longest prefix of at most `limit` bytes that ends on a UTF-8 character boundary.
std::size_t utf8_prefix(const std::string& s, std::size_t limit) {
  if (s.size() <= limit) return s.size();
  std::size_t n = limit;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// Bodies are cut with a note saying how much was left out.
std::string cut(const std::string& s) {
  if (s.size() <= body_limit) return s;
  const auto n = utf8_prefix(s, body_limit);
  return s.substr(0, n) + "\n… (cut at " + std::to_string(n) + " of " + std::to_string(s.size()) + " bytes)";
}

// Outcomes become CSS classes, so only known names pass through.
std::string outcome_class(const std::string& outcome) {
  return outcome_from_string(outcome) == neograde::outcome::unknown ? "other" : outcome;
}

int severity_rank(const std::string& severity) { return neograde::severity_rank(severity_from_string(severity)); }

std::string severity_class(const std::string& severity) { return severity_rank(severity) < 4 ? severity : "other"; }

// ---- One card's place on the page.

struct placed_card {
  const scorecard* card = nullptr;
  std::string anchor;  // provider-<slug>, unique on the page
  std::string label;   // the name, with the run id when two cards share a name
  std::string page;    // its page beside the index: providers/<report_name>.html, unique
};

// The display name, else the id.
std::string name_of(const scorecard& card) {
  const auto& p = card.provider;
  return !p.display_name.empty() ? p.display_name : p.id.empty() ? "unnamed provider" : p.id;
}

// emulated, live, replay or unknown: also a CSS class.
std::string source_of(const scorecard& card) {
  const auto& s = card.source;
  return s == "emulated" || s == "live" || s == "replay" ? s : "unknown";
}

// By kind (kind_rank), then worst first, as Bowtie orders its leaderboard; unscored cards last
// in their kind.
std::vector<placed_card> place(const std::vector<scorecard>& cards) {
  std::vector<placed_card> views;
  for (const auto& c : cards) views.push_back({.card = &c});
  std::stable_sort(views.begin(), views.end(), [](const placed_card& a, const placed_card& b) {
    const int ka = kind_rank(a.card->provider.kind), kb = kind_rank(b.card->provider.kind);
    if (ka != kb) return ka < kb;
    const auto &sa = a.card->score, &sb = b.card->score;
    if (!sa || !sb) return sa.has_value() && !sb.has_value();
    return *sa < *sb;
  });
  std::set<std::string> anchors, pages;
  std::map<std::string, int> names;
  for (const auto& v : views) ++names[name_of(*v.card)];
  std::size_t position = 0;
  for (auto& v : views) {
    ++position;
    // Two cards may share an id (two runs of one provider): the later ones get a suffix.
    const auto& id = v.card->provider.id;
    const auto name = name_of(*v.card);
    const auto base = "provider-" + slug(id.empty() ? name : id);
    v.anchor = base;
    for (int n = 2; !anchors.insert(v.anchor).second; ++n) v.anchor = base + "-" + std::to_string(n);
    // report_name is [A-Za-z0-9_-]; lower-cased, so that two names never differ by case alone on a
    // case-insensitive file system.
    const auto page = slug(report_name(*v.card));
    v.page = page;
    for (int n = 2; !pages.insert(v.page).second; ++n) v.page = page + "-" + std::to_string(n);
    v.page = "providers/" + v.page + ".html";
    v.label = name;
    if (names[name] > 1) {
      const auto& run = v.card->run_id;
      v.label += " [" + (run.empty() ? "#" + std::to_string(position) : run) + "]";
    }
  }
  return views;
}

// ---- Sections.

void render_head(std::ostringstream& out, const std::string& title) {
  out << R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>)"
      << esc(title) << R"(</title>
<style>
:root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--grey:#57606a;--line:#d0d7de}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;max-width:1200px;margin:0 auto;padding:0 1rem 2rem}
h1{font-size:1.5rem;margin:.8rem 0 .4rem}
h2{font-size:1.2rem;margin:1.6rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1rem 0 .3rem}
h4{font-size:.95rem;margin:.8rem 0 .3rem}
table{border-collapse:collapse;margin:.3rem 0}
th,td{border:1px solid var(--line);padding:2px 6px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{background:#f6f8fa;border:1px solid var(--line);padding:6px;margin:.3rem 0;white-space:pre-wrap;overflow-wrap:anywhere}
a{color:#0969da}
.banner{border:2px solid;border-radius:4px;padding:.3rem .8rem;margin:.5rem 0}
.banner.emulated{background:#fff8c5;border-color:#d4a72c}
.banner.replay{background:#ddf4ff;border-color:#54aeff}
.banner.live{background:#dafbe1;border-color:#4ac26b}
.banner.unknown{background:#ffebe9;border-color:#ff8182}
.banner.observed{background:#fbefff;border-color:#c297ff}
.banner.mixed{background:#f6f8fa;border-color:#8c959f}
.banner li.emulated,.banner li.fictional{list-style:square}
.banner li strong{margin-right:.3rem}
nav.up{margin:.6rem 0 0}
.status{font-weight:600}
.was{font-weight:normal;color:var(--grey);font-size:.85em}
td.na,.o.na{background:#f6f8fa;color:var(--grey)}
.badge svg{vertical-align:middle}
table.grid td{white-space:nowrap}
span.kind{font-size:.75rem;font-weight:normal;color:var(--grey);border:1px solid var(--line);border-radius:3px;padding:0 4px}
.banner .headline{font-weight:700;margin:.2rem 0}
.banner ul{margin:.2rem 0;padding-left:1.2rem}
.meta,.note{color:var(--grey)}
td.pass,.o.pass{background:#dafbe1;color:var(--pass)}
td.fail,.o.fail{background:#ffebe9;color:var(--fail);font-weight:700}
td.warn,.o.warn{background:#fff8c5;color:var(--warn)}
td.errored,td.skipped,td.no_capacity,td.quota,td.rate_limited,td.other,.o.errored,.o.skipped,.o.no_capacity,.o.quota,.o.rate_limited,.o.other{background:#f6f8fa;color:var(--grey)}
td.absent{color:#afb8c1}
.o{padding:0 4px;border-radius:3px}
.sev.critical{color:var(--fail);font-weight:700}
.sev.high{color:var(--fail)}
.sev.medium{color:var(--warn)}
.sev.low,.sev.other{color:var(--grey)}
.scroll{overflow:auto;max-height:80vh;border:1px solid var(--line)}
.scroll table{margin:0}
#matrix thead th{position:sticky;top:0;background:#fff;z-index:1;white-space:nowrap}
#matrix td{white-space:nowrap;font-size:12px}
#matrix tr.category th{background:#eaeef2}
.legend span{margin-right:.5rem}
svg.chart{display:block;max-width:100%;height:auto}
svg.chart text{font-size:12px;fill:#1f2328}
.bar{fill:#8c959f}.bar.ttr{fill:#8250df}.bar.p50{fill:#0969da}.bar.p95{fill:#54aeff}
.bar.pass{fill:#2da44e}.bar.fail{fill:#cf222e}.bar.warn{fill:#d4a72c}
.ref{stroke:#1f2328;stroke-dasharray:4 3}
figure{margin:.6rem 0}
figcaption{font-weight:600}
.failure{border-left:3px solid var(--line);padding-left:.6rem;margin:.6rem 0}
.failure.fail{border-left-color:var(--fail)}
.failure.warn{border-left-color:#d4a72c}
.failure dl{display:grid;grid-template-columns:max-content auto;gap:0 .6rem;margin:.2rem 0}
.failure dt{font-weight:600}
.failure dd{margin:0}
summary{cursor:pointer}
@media print{
body{max-width:none;font-size:11px}
.scroll{max-height:none;overflow:visible;border:0}
#matrix thead th{position:static}
a{color:inherit;text-decoration:none}
section.provider{break-before:page}
tr,figure,.failure{break-inside:avoid}
}
</style>
</head>
<body>
)";
}

// The page's one banner: what each source present means, in a sentence each, then only what
// differs per provider (sources_banner); the versions and the generation time under it.
void render_provenance(std::ostringstream& out, const std::vector<scorecard>& cards, const std::vector<placed_card>& views,
                       const std::string& generated_at) {
  std::set<std::string> sources;
  for (const auto& v : views) sources.insert(source_of(*v.card));
  const auto css = sources.size() == 1 ? *sources.begin() : views.empty() ? std::string("unknown") : std::string("mixed");
  out << "<section id=\"provenance\">\n<div class=\"banner " << css
      << "\">\n<p class=\"headline\">Where these results come from</p>\n<ul>\n";
  for (const auto& line : sources_banner(cards)) out << "<li class=\"" << line.kind << "\">" << esc(line.text) << "</li>\n";
  out << "</ul>\n";
  std::vector<std::string> suites, specs;
  for (const auto& v : views) {
    const auto& suite = v.card->suite_version;
    if (!suite.empty() && std::find(suites.begin(), suites.end(), suite) == suites.end()) suites.push_back(suite);
    const auto& id = v.card->provider.id;
    const auto spec = (id.empty() ? name_of(*v.card) : id) + " " + v.card->spec_version;
    if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
  }
  auto join = [](const std::vector<std::string>& items) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
    return s.empty() ? std::string("unknown") : s;
  };
  out << "<p class=\"meta\">Generated " << esc(generated_at) << " · neograde suite " << esc(join(suites))
      << " · specs: " << esc(join(specs)) << " · grading: reports/README.md in the neograde repository</p>\n</div>\n</section>\n";
}

std::string score_text(const std::optional<double>& score) { return score ? format(*score, "%.1f") : "n/a"; }

std::string tier_text(const scorecard& card) {
  std::string capped;
  for (const auto& c : card.tier_capped_by) capped += (capped.empty() ? "" : ", ") + c;
  const auto& tier = card.tier;
  std::string s = "<strong>" + esc(tier.empty() ? "n/a" : tier) + "</strong>";
  if (!capped.empty()) s += " <span class=\"note\">(a critical failure caps the tier at Bronze: " + esc(capped) + ")</span>";
  return s;
}

// A check's status as a reader knows it (check_status), with the outcome beside it where the
// two differ; the class keeps the outcome's colour.
std::string status_html(const std::string& outcome, const std::string& reason) {
  const auto status = check_status(outcome, reason);
  const auto label = status_label(outcome, reason);
  if (label == status) return esc(status);
  return esc(status) + " <span class=\"was\">(" + esc(outcome.empty() ? std::string("no outcome") : outcome) + ")</span>";
}

std::string status_class(const std::string& outcome, const std::string& reason) {
  return check_status(outcome, reason) == "not applicable" ? "na" : outcome_class(outcome);
}

void render_leaderboard(std::ostringstream& out, const std::vector<placed_card>& views) {
  out << "<section id=\"leaderboard\">\n<h2>Leaderboard</h2>\n<p class=\"note\">Ranked within each kind of provider (a "
         "marketplace is not a neocloud), worst first; cards without a graded outcome last. Each provider's page has what failed "
         "and why, with the evidence. Checks by status: pass; fail (a warn, a SHOULD missed, counts as a fail and is said so); not "
         "applicable; unknown (errored, skipped for another reason, or a provider condition such as no capacity).</p>\n";
  int rank = 0;
  std::string group;
  for (const auto& v : views) {
    if (const auto title = kind_title(v.card->provider.kind); rank == 0 || title != group) {
      if (rank != 0) out << "</tbody>\n</table>\n";
      group = title;
      rank = 0;
      out << "<h3 class=\"kind\">" << esc(title) << "</h3>\n<table>\n<thead><tr><th>rank</th><th>provider</th><th>kind</th>"
          << "<th>source</th><th>score</th><th>tier</th><th>pass</th><th>fail</th><th>not applicable</th><th>unknown</th></tr></thead>\n"
             "<tbody>\n";
    }
    const auto n = count_statuses(*v.card);
    const auto& p = v.card->provider;
    out << "<tr data-provider=\"" << esc(p.id) << "\"><td class=\"num\">" << ++rank << "</td><td><a href=\"" << v.page << "\">"
        << esc(v.label) << "</a>" << (p.fictional ? " (fictional)" : "") << "</td><td>" << esc(p.kind) << "</td><td>"
        << esc(source_of(*v.card)) << "</td><td class=\"num\">" << score_text(v.card->score) << "</td><td>" << tier_text(*v.card)
        << "</td><td class=\"num\">" << n.pass << "</td><td class=\"num\">" << n.fail
        << (n.warn > 0 ? " <span class=\"was\">(" + std::to_string(n.warn) + " warn)</span>" : "") << "</td><td class=\"num\">"
        << n.not_applicable << "</td><td class=\"num\">" << n.unknown << "</td></tr>\n";
  }
  if (!views.empty()) out << "</tbody>\n</table>\n";
  out << "</section>\n";
}

// The category of a check: its own field, else the first part of its id.
std::string category_of(const check_row& check) {
  return check.category.empty() ? check.check_id.substr(0, check.check_id.find('.')) : check.category;
}

void render_matrix(std::ostringstream& out, const std::vector<placed_card>& views) {
  std::map<std::string, std::set<std::string>> rows;                 // category -> check ids
  std::map<std::string, std::string> category;                       // check id -> category
  std::vector<std::map<std::string, const check_row*>> by_provider;  // per view: check id -> check
  for (const auto& v : views) {
    auto& checks = by_provider.emplace_back();
    for (const auto& c : v.card->checks) {
      const auto& id = c.check_id;
      if (id.empty()) continue;
      checks.emplace(id, &c);
      if (category.emplace(id, category_of(c)).second) rows[category[id]].insert(id);
    }
  }
  out << "<section id=\"matrix\">\n<h2>Checks by provider</h2>\n";
  if (rows.empty()) {
    out << "<p>No checks recorded.</p>\n</section>\n";
    return;
  }
  out << "<p class=\"legend\">";
  out << "<span class=\"o pass\">pass</span><span class=\"o fail\">fail</span><span class=\"o warn\">fail (warn)</span>"
         "<span class=\"o na\">not applicable</span><span class=\"o other\">unknown (errored, skipped, a provider condition)</span>"
         "<span>– absent: not run for that provider.</span> The outcome is in brackets where it differs from the status; hover a "
         "cell for the reason.</p>\n";
  out << "<div class=\"scroll\">\n<table>\n<thead><tr><th>check</th>";
  for (const auto& v : views)
    out << "<th data-provider=\"" << esc(v.card->provider.id) << "\"><a href=\"" << v.page << "\">" << esc(v.label) << "</a></th>";
  out << "</tr></thead>\n";
  for (const auto& [cat, ids] : rows) {
    out << "<tbody>\n<tr class=\"category\"><th colspan=\"" << views.size() + 1 << "\">" << esc(cat) << "</th></tr>\n";
    for (const auto& id : ids) {
      out << "<tr><th><code>" << esc(id) << "</code></th>";
      for (const auto& checks : by_provider) {
        const auto it = checks.find(id);
        if (it == checks.end()) {
          out << "<td class=\"absent\" title=\"not run\">–</td>";
          continue;
        }
        const auto& c = *it->second;
        out << "<td class=\"" << status_class(c.outcome, c.reason) << "\" title=\"" << esc(c.reason) << "\">"
            << status_html(c.outcome, c.reason) << "</td>";
      }
      out << "</tr>\n";
    }
    out << "</tbody>\n";
  }
  out << "</table>\n</div>\n</section>\n";
}

struct bar {
  std::string label;
  double value;
  std::string css;  // bar class: ttr, p50, p95, pass, fail, warn, other
};

// A horizontal bar chart; `reference` draws a dashed line (100% of datasheet).
void render_bar_chart(std::ostringstream& out, const std::string& title, const std::string& unit, const std::vector<bar>& bars,
                      std::optional<double> reference = std::nullopt) {
  constexpr std::size_t label_max = 60;  // bytes; longer labels end in an ellipsis
  std::size_t longest = 0;
  for (const auto& b : bars) longest = std::max(longest, std::min(b.label.size(), label_max + 1));
  // About 7 px a character at 12 px; bars keep 380 px and their value labels 90 px.
  const int label_w = std::clamp(static_cast<int>(longest) * 7 + 10, 120, 440), bar_w = 380, row_h = 20, width = label_w + bar_w + 90;
  const int height = static_cast<int>(bars.size()) * row_h + 10;
  double max = reference.value_or(0);
  for (const auto& b : bars) max = std::max(max, b.value);
  if (max <= 0) max = 1;
  auto x_of = [&](double v) { return label_w + bar_w * std::max(0.0, v) / max; };
  out << "<figure>\n<figcaption>" << esc(title) << "</figcaption>\n<svg class=\"chart\" viewBox=\"0 0 " << width << " " << height
      << "\" width=\"" << width << "\" height=\"" << height << "\" role=\"img\" aria-label=\"" << esc(title) << "\">\n";
  int y = 5;
  for (const auto& b : bars) {
    const auto label = b.label.size() > label_max ? b.label.substr(0, utf8_prefix(b.label, label_max)) + "…" : b.label;
    out << "<text x=\"" << label_w - 6 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">" << esc(label) << "</text>"
        << "<rect class=\"bar " << b.css << "\" x=\"" << label_w << "\" y=\"" << y + 3 << "\" width=\""
        << format(x_of(b.value) - label_w, "%.1f") << "\" height=\"" << row_h - 6 << "\"></rect>"
        << "<text x=\"" << format(x_of(b.value) + 4, "%.1f") << "\" y=\"" << y + 14 << "\">" << esc(short_figure(b.value)) << " "
        << esc(unit) << "</text>\n";
    y += row_h;
  }
  if (reference)
    out << "<line class=\"ref\" x1=\"" << format(x_of(*reference), "%.1f") << "\" y1=\"0\" x2=\"" << format(x_of(*reference), "%.1f")
        << "\" y2=\"" << height << "\"></line>\n";
  out << "</svg>\n</figure>\n";
}

void render_charts(std::ostringstream& out, const std::vector<placed_card>& views) {
  std::vector<bar> running, latency, gpu;
  for (const auto& v : views) {
    const auto& m = v.card->measurements;
    if (const auto t = number_at(m, "time_to_running_s")) running.push_back({v.label, *t, "ttr"});
    const auto& lat = object_at(m, "latency_read_ms");
    if (const auto p = number_at(lat, "p50")) latency.push_back({v.label + " p50", *p, "p50"});
    if (const auto p = number_at(lat, "p95")) latency.push_back({v.label + " p95", *p, "p95"});
    for (const auto& hw : v.card->hardware)
      for (const auto& g : hw.gpus)
        for (const auto& gm : g.measurements)
          if (gm.pct_of_datasheet)
            gpu.push_back({v.label + " GPU " + (g.index ? figure(g.index->as_double()) : "?") + " " + gm.name,
                           gm.pct_of_datasheet->as_double(), outcome_class(gm.verdict)});
  }
  out << "<section id=\"charts\">\n<h2>Charts</h2>\n";
  if (running.empty()) out << "<p>No provider recorded a time to running.</p>\n";
  else
    render_bar_chart(out, "Time from launch to running (measurements.time_to_running_s)", "s", running);
  if (latency.empty()) out << "<p>No provider recorded read latency.</p>\n";
  else
    render_bar_chart(out, "Read latency, p50 and p95 (measurements.latency_read_ms)", "ms", latency);
  if (gpu.empty()) out << "<p>No hardware was measured: no scorecard carries a GPU smoke test.</p>\n";
  else
    render_bar_chart(out, "GPU measurements as % of datasheet (dashed line: 100%)", "%", gpu, 100.0);
  out << "</section>\n";
}

// Declared transparency the evidence contradicts: named first in the hall of shame.
void render_contradictions(std::ostringstream& out, const std::vector<placed_card>& views) {
  std::ostringstream rows;
  for (const auto& v : views)
    for (const auto& c : v.card->transparency_claims)
      if (c.verdict == "contradicted")
        rows << "<tr data-provider=\"" << esc(v.card->provider.id) << "\"><td><a href=\"" << v.page << "#" << v.anchor << "-transparency\">"
             << esc(v.label) << "</a>" << (v.card->provider.fictional ? " (fictional)" : "") << "</td><td>" << esc(c.claim) << "</td><td>"
             << esc(c.declared) << "</td><td>" << esc(c.measured) << "</td><td>" << esc(c.evidence) << "</td></tr>\n";
  if (rows.str().empty()) return;
  out << "<h3>Transparency contradicted</h3>\n<table class=\"contradictions\">\n<thead><tr><th>provider</th><th>claim</th><th>declared</th>"
         "<th>measured</th><th>evidence</th></tr></thead>\n<tbody>\n"
      << rows.str() << "</tbody>\n</table>\n";
}

void render_hall_of_shame(std::ostringstream& out, const std::vector<placed_card>& views) {
  struct entry {
    const placed_card* view;
    const finding_row* failure;
    std::size_t index;
  };
  std::vector<entry> entries;
  for (const auto& v : views) {
    const auto& failures = v.card->failures;
    for (std::size_t i = 0; i < failures.size(); ++i)
      if (outcome_from_string(failures[i].outcome) == outcome::fail) entries.push_back({&v, &failures[i], i});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    const int sa = severity_rank(a.failure->severity), sb = severity_rank(b.failure->severity);
    if (sa != sb) return sa < sb;
    return a.view->label < b.view->label;
  });
  out << "<section id=\"hall-of-shame\">\n<h2>Hall of shame</h2>\n";
  render_contradictions(out, views);
  if (entries.empty()) {
    out << "<p>No check failed.</p>\n</section>\n";
    return;
  }
  out << "<table>\n<thead><tr><th>provider</th><th>check</th><th>severity</th><th>finding</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < entries.size() && i < shame_limit; ++i) {
    const auto& [v, f, index] = entries[i];
    const auto& severity = f->severity;
    const auto& p = v->card->provider;
    out << "<tr data-provider=\"" << esc(p.id) << "\"><td><a href=\"" << v->page << "\">" << esc(v->label) << "</a>"
        << (p.fictional ? " (fictional)" : "") << "</td><td><a href=\"" << v->page << "#" << v->anchor << "-failure-" << index
        << "\"><code>" << esc(f->check_id) << "</code></a></td><td class=\"sev " << severity_class(severity) << "\">" << esc(severity)
        << "</td><td>" << esc(f->reason) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (entries.size() > shame_limit)
    out << "<p class=\"note\">" << entries.size() - shame_limit << " more failures are listed on the providers' pages.</p>\n";
  out << "</section>\n";
}

void render_facts(std::ostringstream& out, const placed_card& v) {
  const auto& card = *v.card;
  const auto& p = card.provider;
  auto row = [&](const char* name, const std::string& html) { out << "<tr><th>" << name << "</th><td>" << html << "</td></tr>\n"; };
  out << "<table class=\"facts\">\n";
  row("id", "<code>" + esc(p.id) + "</code>");
  row("kind", esc(p.kind));
  row("source", esc(source_of(card)));
  row("score", score_text(card.score) + " / 100");
  row("tier", tier_text(card));
  row("run", "<code>" + esc(card.run_id) + "</code>, " + esc(card.started_at) + " to " + esc(card.finished_at) +
                 (card.complete ? "" : " (interrupted)"));
  row("spec", esc(card.spec_version) + ", API " + esc(p.api_version));
  row("suite", "neograde " + esc(card.suite_version));
  // URLs are text, not links: the page requests nothing, and a reader copies them on purpose.
  row("base URL", "<code>" + esc(card.base_url) + "</code>");
  row("docs", "<code>" + esc(p.docs_url) + "</code>");
  if (const auto t = transparency_summary(card); !t.empty()) row("transparency", esc(t));
  out << "</table>\n";
}

// The measurements without a type of their own in one table of dotted names, and a table for each
// array of objects in them; then a table each for the typed ones (reports/measurements.hpp);
// developer_experience has its own section. Values in words, never JSON text.
void render_measurements(std::ostringstream& out, const scorecard& card) {
  const auto untyped = untyped_measurement_rows(card.measurements);
  const auto tables = measurement_tables(card.measurements);
  out << "<h3>Measurements</h3>\n";
  if (untyped.rows.empty() && untyped.grids.empty() && tables.empty()) {
    out << "<p>None recorded.</p>\n";
    return;
  }
  if (!untyped.rows.empty()) {
    out << "<table>\n<thead><tr><th>measurement</th><th>value</th></tr></thead>\n<tbody>\n";
    for (const auto& [name, value] : untyped.rows)
      out << "<tr><td><code>" << esc(name) << "</code></td><td class=\"num\">" << esc(value) << "</td></tr>\n";
    out << "</tbody>\n</table>\n";
  }
  for (const auto& g : untyped.grids) {
    out << "<h4><code>" << esc(g.name) << "</code></h4>\n<table class=\"grid\">\n<thead><tr>";
    for (const auto& c : g.columns) out << "<th>" << esc(c) << "</th>";
    out << "</tr></thead>\n<tbody>\n";
    for (const auto& row : g.rows) {
      out << "<tr>";
      for (const auto& cell : row) out << "<td>" << esc(cell) << "</td>";
      out << "</tr>\n";
    }
    out << "</tbody>\n</table>\n";
  }
  for (const auto& t : tables) {
    out << "<h4>" << esc(t.title) << "</h4>\n<table class=\"measurement\">\n<tbody>\n";
    for (const auto& [label, value] : t.rows) out << "<tr><th>" << esc(label) << "</th><td>" << esc(value) << "</td></tr>\n";
    out << "</tbody>\n</table>\n";
  }
}

void render_categories(std::ostringstream& out, const scorecard& card) {
  const auto& categories = card.categories;
  out << "<h3>Category scores</h3>\n";
  if (categories.empty()) {
    out << "<p>None recorded.</p>\n";
    return;
  }
  out << "<table>\n<thead><tr><th>category</th><th>score</th><th>outcomes</th></tr></thead>\n<tbody>\n";
  for (const auto& [name, c] : categories) {
    std::string counts;
    for (const auto& [k, n] : c.counts)
      if (k != "score")  // an outcome so named is lost in the JSON, where the category's score is
        counts += (counts.empty() ? "" : ", ") + std::string("<span class=\"o ") + outcome_class(k) + "\">" + esc(k) + " " + figure(n) +
                  "</span>";
    out << "<tr><td>" << esc(name) << "</td><td class=\"num\">" << score_text(c.score) << "</td><td>" << counts << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

// A recorded number as a table figure; `none` when there is none.
std::string figure(const std::optional<json_number>& n, const char* none) { return n ? figure(n->as_double()) : none; }

void render_gpu_table(std::ostringstream& out, const hardware_summary& hw) {
  if (hw.gpus.empty()) return;
  out << "<table>\n<thead><tr><th>GPU</th><th>name</th><th>SKU</th><th>measurement</th><th>value</th>"
         "<th>% of datasheet</th><th>verdict</th></tr></thead>\n<tbody>\n";
  for (const auto& g : hw.gpus) {
    for (const auto& m : g.measurements) {
      const auto& verdict = m.verdict;
      out << "<tr><td class=\"num\">" << figure(g.index, "?") << "</td><td>" << esc(g.name) << "</td><td>" << esc(g.sku)
          << "</td><td><code>" << esc(m.name) << "</code></td><td class=\"num\">" << figure(m.value, "n/a") << " " << esc(m.unit)
          << "</td><td class=\"num\">" << (m.pct_of_datasheet ? format(m.pct_of_datasheet->as_double(), "%.1f") + "%" : "") << "</td><td"
          << (verdict.empty() ? "" : " class=\"" + outcome_class(verdict) + "\"") << ">" << esc(verdict) << "</td></tr>\n";
    }
  }
  out << "</tbody>\n</table>\n";
}

void render_problems(std::ostringstream& out, const hardware_summary& hw) {
  if (hw.problems.empty()) return;
  out << "<table>\n<thead><tr><th>check</th><th>GPU</th><th>verdict</th><th>finding</th></tr></thead>\n<tbody>\n";
  for (const auto& p : hw.problems)
    out << "<tr><td><code>" << esc(p.id) << "</code></td><td>" << figure(p.gpu, "node") << "</td><td class=\"" << outcome_class(p.verdict)
        << "\">" << esc(p.verdict) << "</td><td>" << esc(p.message) << "</td></tr>\n";
  out << "</tbody>\n</table>\n";
}

// Each declared claim beside its evidence and verdict; then the developer-experience timings.
void render_transparency(std::ostringstream& out, const placed_card& v) {
  const auto& card = *v.card;
  if (!card.transparency_claims.empty()) {
    out << "<h3 id=\"" << v.anchor
        << "-transparency\">Transparency: declared vs measured</h3>\n<table class=\"claims\">\n<thead><tr><th>claim</th>"
           "<th>declared</th><th>measured</th><th>verdict</th><th>evidence</th></tr></thead>\n<tbody>\n";
    for (const auto& c : card.transparency_claims) {
      // A claim's verdict takes the colour of the outcome it amounts to.
      const auto verdict_class = c.verdict == "contradicted" ? to_string(outcome::fail)
                                 : c.verdict == "consistent" ? to_string(outcome::pass)
                                                             : std::string("other");
      out << "<tr><td>" << esc(c.claim) << "</td><td>" << (c.declared.empty() ? "<em>not declared</em>" : esc(c.declared))
          << (c.declared_source.empty() ? "" : "<br><span class=\"note\">" + esc(c.declared_source) + "</span>") << "</td><td>"
          << esc(c.measured) << "</td><td class=\"" << verdict_class << "\">" << esc(c.verdict) << "</td><td>" << esc(c.evidence)
          << "</td></tr>\n";
    }
    out << "</tbody>\n</table>\n";
  }
  const auto rows = developer_experience_rows(card);
  if (rows.empty()) return;
  out << "<h3>Developer experience</h3>\n<table class=\"dx\">\n<tbody>\n";
  for (const auto& [label, value] : rows) out << "<tr><th>" << esc(label) << "</th><td>" << esc(value) << "</td></tr>\n";
  out << "</tbody>\n</table>\n";
}

// People's observations of creating an account, each under its OBSERVED banner: never mixed with
// the measured developer-experience timings above them, never in the score.
void render_observations(std::ostringstream& out, const placed_card& v) {
  const auto& card = *v.card;
  if (card.observations.empty()) return;
  out << "<div class=\"observations\" id=\"" << v.anchor << "-observed\">\n<h3>Developer experience: OBSERVED</h3>\n";
  for (const auto& o : card.observations) {
    out << "<div class=\"observation\" data-observed-by=\"" << esc(o.observed_by) << "\" data-observed-at=\"" << esc(o.observed_at)
        << "\">\n<div class=\"banner observed\"><p class=\"headline\">" << esc(observed_label(o))
        << "</p></div>\n<table class=\"dx observed\">\n<tbody>\n"
        << "<tr><th>Sign-up</th><td>" << esc(signup_text(o)) << "</td></tr>\n"
        << "<tr><th>Verification asked for</th><td>" << esc(verification_text(o)) << "</td></tr>\n"
        << "<tr><th>Free credits</th><td>" << esc(credits_text(o)) << "</td></tr>\n";
    if (!o.credits_promised_where.empty()) out << "<tr><th>Credits promised at</th><td>" << esc(o.credits_promised_where) << "</td></tr>\n";
    // Links only: the page requests nothing (the schema admits http(s) and file: URLs alone).
    for (const auto& e : o.evidence)
      out << "<tr><th>Evidence</th><td><a href=\"" << esc(e.url) << "\" rel=\"noreferrer nofollow\">" << esc(e.url) << "</a> (read "
          << esc(e.read_at) << ")" << (e.what.empty() ? "" : ": " + esc(e.what)) << "</td></tr>\n";
    if (!o.notes.empty()) out << "<tr><th>Notes</th><td>" << esc(o.notes) << "</td></tr>\n";
    out << "</tbody>\n</table>\n</div>\n";
  }
  out << "</div>\n";
}

void render_hardware(std::ostringstream& out, const scorecard& card) {
  if (card.hardware.empty()) return;
  out << "<h3>Hardware: GPU smoke test on the delivered instance</h3>\n";
  for (const auto& hw : card.hardware) {
    const auto& inst = hw.instance;
    const auto& status = hw.status;
    out << "<p>Instance <code>" << esc(text_at(inst, "id")) << "</code> (" << esc(text_at(inst, "type"))
        << (text_at(inst, "region").empty() ? "" : ", " + esc(text_at(inst, "region"))) << ")"
        << (hw.time_to_ssh_s ? ", SSH answered " + figure(hw.time_to_ssh_s, "") + " s after running" : "") << ".</p>\n";
    out << "<p>Verdict: <strong class=\"o " << outcome_class(status) << "\">" << esc(status.empty() ? "?" : status) << "</strong> "
        << esc(hw.reason) << "</p>\n";
    render_gpu_table(out, hw);
    render_problems(out, hw);
  }
}

// Headers are [name, value] pairs; an object of name: value is read too.
std::string headers_text(const json& headers) {
  std::string s;
  if (headers.is_object())
    for (const auto& [name, value] : headers.items()) s += name + ": " + as_text(value) + "\n";
  if (!headers.is_array()) return s;
  for (const auto& h : headers) {
    if (h.is_array() && h.size() >= 2) s += as_text(h[0]) + ": " + as_text(h[1]) + "\n";
    else
      s += as_text(h) + "\n";
  }
  return s;
}

// The exchange as the Markdown renderer's render_exchange writes it: request, then response.
void render_exchange(std::ostringstream& out, const json& e, std::size_t n) {
  const auto status = number_at(e, "status");
  const auto error = text_at(e, "error");
  std::string request = text_at(e, "method") + " " + text_at(e, "url") + "\n" + headers_text(field(e, "request_headers"));
  const auto deliberate = text_at(e, "deliberate");
  if (const auto body = text_at(e, "request_body"); !body.empty()) request += "\n" + cut(body) + "\n";
  if (const auto note = fields::body_note(e, "request_body_digest"); !note.empty()) request += "\n" + note + "\n";
  std::string response;
  if (!error.empty()) {
    response = "(no response: " + error + ")";
  } else {
    response = "HTTP " + (status ? figure(*status) : std::string("?")) + "\n" + headers_text(field(e, "response_headers"));
    if (const auto body = text_at(e, "response_body"); !body.empty()) response += "\n" + cut(body);
    if (const auto note = fields::body_note(e, "response_body_digest"); !note.empty()) response += "\n" + note;
  }
  out << "<details class=\"exchange\"><summary>Evidence " << n << ": " << esc(text_at(e, "method")) << " <code>" << esc(text_at(e, "url"))
      << "</code> → " << esc(!error.empty() ? "no response" : "HTTP " + (status ? figure(*status) : std::string("?")))
      << (deliberate.empty() ? std::string() : " (deliberately invalid: " + esc(deliberate) + ")") << "</summary>\n"
      << "<pre class=\"request\">" << esc(request) << "</pre>\n<pre class=\"response\">" << esc(response) << "</pre>\n</details>\n";
}

void render_failure(std::ostringstream& out, const placed_card& v, const finding_row& f, std::size_t index) {
  const auto& outcome = f.outcome;
  const auto& severity = f.severity;
  out << "<article class=\"failure " << outcome_class(outcome) << "\" id=\"" << v.anchor << "-failure-" << index << "\">\n"
      << "<h4><code>" << esc(f.check_id) << "</code> <span class=\"o " << outcome_class(outcome) << "\">" << esc(outcome)
      << "</span> <span class=\"sev " << severity_class(severity) << "\">" << esc(severity) << "</span></h4>\n"
      << "<dl><dt>Requirement</dt><dd>" << esc(f.requirement_text) << "</dd><dt>Source</dt><dd>" << esc(f.check_source)
      << "</dd><dt>Finding</dt><dd>" << esc(f.reason) << "</dd></dl>\n";
  if (!f.reproduce.empty()) out << "<p>Reproduce:</p>\n<pre class=\"reproduce\">" << esc(f.reproduce) << "</pre>\n";
  std::size_t n = 0;
  for (const auto& e : fields::as_array(f.evidence))
    if (e.is_object()) render_exchange(out, e, ++n);
  out << "</article>\n";
}

// Every check of the card with its status, the outcome beside it where they differ.
void render_checks(std::ostringstream& out, const placed_card& v) {
  const auto& card = *v.card;
  out << "<h2 id=\"" << v.anchor << "-checks\">All checks (" << card.checks.size() << ")</h2>\n";
  if (card.checks.empty()) {
    out << "<p>No check was recorded.</p>\n";
    return;
  }
  out << "<table class=\"checks\">\n<thead><tr><th>check</th><th>category</th><th>severity</th><th>status</th><th>reason</th></tr>"
         "</thead>\n<tbody>\n";
  for (const auto& c : card.checks)
    out << "<tr><td><code>" << esc(c.check_id) << "</code></td><td>" << esc(c.category) << "</td><td class=\"sev "
        << severity_class(c.severity) << "\">" << esc(c.severity) << "</td><td class=\"" << status_class(c.outcome, c.reason) << "\">"
        << status_html(c.outcome, c.reason) << "</td><td>" << esc(c.reason) << "</td></tr>\n";
  out << "</tbody>\n</table>\n";
}

// The grade: score and tier beside the checks by status, each with the outcomes behind it.
void render_grade(std::ostringstream& out, const placed_card& v) {
  const auto& card = *v.card;
  const auto n = count_statuses(card);
  std::map<std::string, std::map<std::string, int>> behind;  // status -> outcome -> checks
  for (const auto& c : card.checks) ++behind[check_status(c.outcome, c.reason)][c.outcome.empty() ? "no outcome" : c.outcome];
  out << "<h2 id=\"" << v.anchor << "-grade\">Grade</h2>\n<p class=\"grade\">Score <strong>" << score_text(card.score)
      << "</strong> / 100, tier " << tier_text(card) << "</p>\n";
  out << "<table class=\"statuses\">\n<thead><tr><th>status</th><th>checks</th><th>outcomes</th></tr></thead>\n<tbody>\n";
  for (const auto& [status, css, count] :
       std::initializer_list<std::tuple<const char*, const char*, int>>{{"pass", "pass", n.pass},
                                                                        {"fail", "fail", n.fail},
                                                                        {"not applicable", "na", n.not_applicable},
                                                                        {"unknown", "other", n.unknown}}) {
    std::string outcomes;
    for (const auto& [o, k] : behind[status]) outcomes += (outcomes.empty() ? "" : ", ") + o + " " + std::to_string(k);
    out << "<tr><td class=\"" << css << "\">" << status << "</td><td class=\"num\">" << count << "</td><td>" << esc(outcomes)
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void render_provider(std::ostringstream& out, const placed_card& v, const std::string& history, const std::string& badge_svg) {
  const auto& card = *v.card;
  out << "<nav class=\"up\"><a href=\"../index.html\">All providers: leaderboard, matrix, charts</a></nav>\n";
  out << "<section class=\"provider\" id=\"" << v.anchor << "\" data-provider=\"" << esc(card.provider.id) << "\">\n<h1>" << esc(v.label)
      << (card.provider.fictional ? " (fictional)" : "") << " <span class=\"kind\">"
      << esc(card.provider.kind.empty() ? "kind unknown" : card.provider.kind) << "</span></h1>\n";
  out << "<div class=\"banner " << source_of(card) << "\"><p class=\"headline\">" << esc(provenance_banner(card)) << "</p>";
  if (const auto t = timing_overrides_summary(card); !t.empty()) out << "<p class=\"timings\">Timings " << esc(t) << "</p>";
  if (const auto t = rate_limit_summary(card); !t.empty()) out << "<p class=\"ratelimit\">Rate limit " << esc(t) << "</p>";
  out << "</div>\n";
  if (!badge_svg.empty()) out << "<p class=\"badge\">" << badge_svg << "</p>\n";
  render_grade(out, v);
  const auto& failures = card.failures;
  out << "<h2 id=\"" << v.anchor << "-findings\">What failed and why (" << failures.size() << ")</h2>\n";
  if (failures.empty()) out << "<p>No check failed or warned.</p>\n";
  for (std::size_t i = 0; i < failures.size(); ++i) render_failure(out, v, failures[i], i);
  out << "<h2>The provider and the run</h2>\n";
  render_facts(out, v);
  render_transparency(out, v);
  render_observations(out, v);
  render_hardware(out, card);
  render_measurements(out, card);
  render_categories(out, card);
  if (!history.empty()) out << "<h2 id=\"" << v.anchor << "-history\">History</h2>\n" << history;
  render_checks(out, v);
  out << "</section>\n";
}

// The index: the one banner, the leaderboard, the matrix, the charts, `sections`, the hall of shame.
std::string render_index(const std::vector<scorecard>& scorecards, const std::vector<placed_card>& views, const std::string& generated_at,
                         const std::string& sections) {
  std::ostringstream out;
  render_head(out, "neograde report");
  out << "<h1>neograde report</h1>\n";
  render_provenance(out, scorecards, views, generated_at);
  render_leaderboard(out, views);
  render_matrix(out, views);
  render_charts(out, views);
  out << sections;
  render_hall_of_shame(out, views);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace

std::string render_html(const std::vector<scorecard>& scorecards, const std::string& generated_at, const std::string& sections) {
  return render_index(scorecards, place(scorecards), generated_at, sections);
}

std::map<std::pair<std::string, std::string>, std::string> provider_history_links(const std::vector<scorecard>& cards) {
  std::map<std::pair<std::string, std::string>, std::string> links;
  for (const auto& v : place(cards))
    links.emplace(std::make_pair(v.card->provider.id, v.card->source), v.page + "#" + v.anchor + "-history");
  return links;
}

html_site render_html_site(const std::vector<scorecard>& scorecards, const std::string& generated_at, const std::string& sections,
                           const std::map<std::pair<std::string, std::string>, std::string>& provider_sections) {
  const auto views = place(scorecards);
  html_site site{.index = render_index(scorecards, views, generated_at, sections), .providers = {}};
  for (const auto& v : views) {
    std::ostringstream out;
    render_head(out, name_of(*v.card) + ": neograde scorecard");
    const auto it = provider_sections.find({v.card->provider.id, v.card->source});
    render_provider(out, v, it == provider_sections.end() ? std::string() : it->second, render_badge_svg(*v.card));
    out << "<p class=\"meta\">Generated " << esc(generated_at) << " · grading: reports/README.md in the neograde repository</p>\n";
    out << "</body>\n</html>\n";
    site.providers.push_back({.path = v.page, .html = out.str()});
  }
  return site;
}

std::string html_escape(std::string_view text) { return esc(text); }

}  // namespace neograde::reports
