#include <neograde/reports/exports.hpp>

#include <neograde/reports/scorecard.hpp>

#include <neograde/core/finding.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

namespace neograde::reports {
namespace {

// ---- XML ----------------------------------------------------------------------------------

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// XML 1.0 section 2.2, production [2] Char.
bool is_xml_char(std::uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
         (cp >= 0x10000 && cp <= 0x10FFFF);
}

// Length of the UTF-8 sequence starting at s[i] and its code point; 0 when the bytes there are
// not well-formed UTF-8 (bad lead or continuation byte, truncated, overlong, or a surrogate).
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto lead = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  if (lead < 0x80) {
    cp = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) len = 2, cp = lead & 0x1F;
  else if ((lead & 0xF0) == 0xE0)
    len = 3, cp = lead & 0x0F;
  else if ((lead & 0xF8) == 0xF0)
    len = 4, cp = lead & 0x07;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Text from a provider's responses or a hand-edited file may hold anything. The five markup
// characters become entities; characters XML 1.0 forbids (C0 controls other than tab, LF and CR)
// and bytes that are not UTF-8 become U+FFFD, so the document stays well-formed. CR is written
// as a reference because parsers normalise a literal one to LF; in attributes tab and LF are too,
// because attribute-value normalisation would turn them into spaces.
void append_xml(std::string& out, std::string_view s, bool attribute) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t len = decode_utf8(s, i, cp);
    if (len == 0) {
      out += replacement;
      ++i;
      continue;
    }
    if (!is_xml_char(cp)) out += replacement;
    else if (cp == '&')
      out += "&amp;";
    else if (cp == '<')
      out += "&lt;";
    else if (cp == '>')
      out += "&gt;";
    else if (cp == '"')
      out += "&quot;";
    else if (cp == '\'')
      out += "&apos;";
    else if (cp == '\r')
      out += "&#13;";
    else if (attribute && cp == '\n')
      out += "&#10;";
    else if (attribute && cp == '\t')
      out += "&#9;";
    else
      out.append(s.substr(i, len));
    i += len;
  }
}

std::string xml_text(std::string_view s) {
  std::string out;
  append_xml(out, s, false);
  return out;
}

std::string xml_attr(std::string_view s) {
  std::string out;
  append_xml(out, s, true);
  return out;
}

enum class junit_kind { passed, failure, error, skipped };

// fail and warn both become <failure>: JUnit has no "passed with a warning", and a missed SHOULD
// is a finding a CI reader should see, not a pass; type="warn" lets a consumer tell it apart from
// a failed MUST, whose type is the check's severity. errored means the harness broke, JUnit's
// <error>. skipped and the provider conditions (no_capacity, quota, rate_limited) say nothing
// about conformance, so they are <skipped>. An outcome this code does not know is an <error>, so
// that a new or corrupt outcome is noticed instead of passing silently.
junit_kind classify(const std::string& word) {
  const auto o = outcome_from_string(word);
  if (o == outcome::pass) return junit_kind::passed;
  if (is_finding(o)) return junit_kind::failure;
  if (o == outcome::skipped || is_provider_condition(o)) return junit_kind::skipped;
  return junit_kind::error;
}

struct suite_counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  suite_counts& operator+=(const suite_counts& o) {
    tests += o.tests, failures += o.failures, errors += o.errors, skipped += o.skipped;
    return *this;
  }
};

std::string count_attrs(const suite_counts& c) {
  return " tests=\"" + std::to_string(c.tests) + "\" failures=\"" + std::to_string(c.failures) + "\" errors=\"" + std::to_string(c.errors) +
         "\" skipped=\"" + std::to_string(c.skipped) + "\"";
}

std::string property(const char* name, const std::string& value) {
  return "      <property name=\"" + std::string(name) + "\" value=\"" + xml_attr(value) + "\"/>\n";
}

// One <testsuite> for one scorecard; adds its counts to `total`.
std::string render_suite(const scorecard& card, suite_counts& total) {
  const auto& id = card.provider.id;
  const auto source = card.source.empty() ? std::string("unknown") : card.source;

  // The reproduce command of each finding, by check id (the first finding that has one).
  std::map<std::string, std::string> reproduce;
  for (const auto& f : card.failures)
    if (!f.reproduce.empty()) reproduce.emplace(f.check_id, f.reproduce);

  suite_counts counts;
  std::string cases;
  for (const auto& c : card.checks) {
    const auto& check_id = c.check_id;
    const auto& outcome = c.outcome;
    const auto& reason = c.reason;
    ++counts.tests;
    cases += "    <testcase classname=\"" + xml_attr(id + "." + c.category) + "\" name=\"" + xml_attr(check_id) + "\" time=\"0\"";
    switch (classify(outcome)) {
      case junit_kind::passed: cases += "/>\n"; break;
      case junit_kind::failure: {
        ++counts.failures;
        const auto& severity = c.severity;
        const auto warned = outcome_from_string(outcome) == neograde::outcome::warn;
        const auto type = warned ? to_string(neograde::outcome::warn) : severity.empty() ? std::string("unknown") : severity;
        std::string body = reason;
        if (const auto it = reproduce.find(check_id); it != reproduce.end()) body += "\nreproduce: " + it->second;
        cases += ">\n      <failure message=\"" + xml_attr(reason) + "\" type=\"" + xml_attr(type) + "\">" + xml_text(body) +
                 "</failure>\n    </testcase>\n";
        break;
      }
      case junit_kind::error:
        ++counts.errors;
        cases += ">\n      <error message=\"" + xml_attr(reason) + "\" type=\"" + xml_attr(outcome.empty() ? "unknown" : outcome) + "\">" +
                 xml_text(reason) + "</error>\n    </testcase>\n";
        break;
      case junit_kind::skipped:
        ++counts.skipped;
        cases += ">\n      <skipped message=\"" + xml_attr(reason.empty() ? outcome : outcome + ": " + reason) + "\"/>\n    </testcase>\n";
        break;
    }
  }
  total += counts;

  const auto& started_at = card.started_at;
  std::string out = "  <testsuite name=\"" + xml_attr(id + " (" + source + ")") + "\"" + count_attrs(counts) + " time=\"0\"";
  if (!started_at.empty()) out += " timestamp=\"" + xml_attr(started_at) + "\"";
  out += ">\n    <properties>\n";
  out += property("source", source);
  out += property("provenance", provenance_banner(card));
  out += property("suite_version", card.suite_version);
  out += property("spec_version", card.spec_version);
  out += property("score", score_text(card));
  out += property("tier", card.tier);
  out += "    </properties>\n";
  out += cases;
  out += "  </testsuite>\n";
  return out;
}

// ---- CSV ----------------------------------------------------------------------------------

// RFC 4180 section 2: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled.
// Fields are otherwise written as they are: no spreadsheet formula guard (a leading apostrophe
// before '=', '+', '-', '@'), because scripts read this file too and it would change the data.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  return out + "\r\n";
}

}  // namespace

std::string render_junit(const std::vector<scorecard>& cards) {
  suite_counts total;
  std::string suites;
  for (const auto& card : cards) suites += render_suite(card, total);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"neograde\"" + count_attrs(total) + " time=\"0\">\n" + suites +
         "</testsuites>\n";
}

std::string render_matrix_csv(const std::vector<scorecard>& cards) {
  struct row_info {
    std::string category, severity;
  };
  std::map<std::string, row_info> rows;                     // by check id
  std::vector<std::map<std::string, std::string>> columns;  // per card: check id -> outcome
  std::vector<std::string> header{"check_id", "category", "severity"};
  std::set<std::string> names;

  for (const auto& card : cards) {
    // A provider graded twice (emulated and live, say) gets one column per scorecard.
    const auto& id = card.provider.id;
    std::string name = id;
    for (int n = 2; !names.insert(name).second; ++n) name = id + "#" + std::to_string(n);
    header.push_back(name);

    auto& column = columns.emplace_back();
    for (const auto& c : card.checks) {
      column.emplace(c.check_id, c.outcome);  // the first outcome of a check id counts
      auto& info = rows[c.check_id];
      if (info.category.empty()) info.category = c.category;
      if (info.severity.empty()) info.severity = c.severity;
    }
  }

  std::vector<std::pair<std::string, const row_info*>> order;
  for (const auto& [id, info] : rows) order.emplace_back(id, &info);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return std::tie(a.second->category, a.first) < std::tie(b.second->category, b.first); });

  std::string out = csv_row(header);
  for (const auto& [id, info] : order) {
    std::vector<std::string> fields{id, info->category, info->severity};
    for (const auto& column : columns) {
      const auto it = column.find(id);
      fields.push_back(it == column.end() ? std::string() : it->second);
    }
    out += csv_row(fields);
  }
  return out;
}

namespace {

// The width of text in 11 px Verdana, roughly (shields.io measures it; this only needs to be
// close, as textLength fits the text to the width given).
double text_width(std::string_view s) {
  double w = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const auto len = decode_utf8(s, i, cp);
    i += len == 0 ? 1 : len;
    if (cp == ' ') w += 3.9;
    else if (cp == '.' || cp == ',' || cp == ':' || cp == 'i' || cp == 'l' || cp == 'j' || cp == 'I')
      w += 3.5;
    else if ((cp >= 'A' && cp <= 'Z') || cp == 'm' || cp == 'w' || cp == 'M' || cp == 'W')
      w += 7.7;
    else if (cp < 0x80)
      w += 6.6;
    else
      w += 8.5;
  }
  return w;
}

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

badge badge_of(const scorecard& card) {
  badge b;
  const auto& s = card.source;
  b.label = "neograde " + std::string(s == "emulated" ? "EMULATED" : s == "live" ? "LIVE" : s == "replay" ? "REPLAY" : "UNKNOWN SOURCE");
  const auto date = (card.finished_at.empty() ? card.started_at : card.finished_at).substr(0, 10);
  const auto t = tier_from_string(card.tier).value_or(tier::not_graded);
  b.message = card.score ? card.tier + " " + score_text(card) : std::string("Not graded");
  if (!date.empty()) b.message += " \u00b7 " + date;
  switch (card.score ? t : tier::not_graded) {
    case tier::platinum: b.color = "brightgreen", b.hex = "#44cc11"; break;
    case tier::gold: b.color = "green", b.hex = "#97ca00"; break;
    case tier::silver: b.color = "yellowgreen", b.hex = "#a4a61d"; break;
    case tier::bronze: b.color = "orange", b.hex = "#fe7d37"; break;
    case tier::underperform: b.color = "red", b.hex = "#e05d44"; break;
    default: b.color = "lightgrey", b.hex = "#9f9f9f";
  }
  const auto& p = card.provider;
  b.title = (p.display_name.empty() ? p.id : p.display_name) + (p.fictional ? " (fictional)" : "") + ": " + b.label + ", " + b.message;
  return b;
}

std::string render_badge_svg(const scorecard& card) {
  const auto b = badge_of(card);
  const double lw = text_width(b.label), mw = text_width(b.message);
  const double left = lw + 12, right = mw + 12, width = left + right;
  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"neograde-badge\" width=\"" + px(width) + "\" height=\"20\" viewBox=\"0 0 " +
         px(width) + " 20\" role=\"img\" aria-label=\"" + xml_attr(b.title) + "\">";
  out += "<title>" + xml_text(b.title) + "</title>";
  out += "<rect width=\"" + px(left) + "\" height=\"20\" fill=\"#555555\"/>";
  out += "<rect x=\"" + px(left) + "\" width=\"" + px(right) + "\" height=\"20\" fill=\"" + b.hex + "\"/>";
  out += "<g fill=\"#ffffff\" font-family=\"Verdana,DejaVu Sans,Geneva,sans-serif\" font-size=\"11\">";
  out += "<text x=\"6\" y=\"14\" textLength=\"" + px(lw) + "\">" + xml_text(b.label) + "</text>";
  out += "<text x=\"" + px(left + 6) + "\" y=\"14\" textLength=\"" + px(mw) + "\">" + xml_text(b.message) + "</text>";
  out += "</g></svg>\n";
  return out;
}

std::string render_badge_json(const scorecard& card) {
  const auto b = badge_of(card);
  const nlohmann::json j = {{"schemaVersion", 1}, {"label", b.label}, {"message", b.message}, {"color", b.color}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace neograde::reports
