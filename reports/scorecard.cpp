#include <neograde/reports/scorecard.hpp>

#include "fields.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace neograde::reports {
namespace {

double weight(const std::string& severity) {
  if (severity == "critical") return 8;
  if (severity == "high") return 4;
  if (severity == "medium") return 2;
  return 1;
}

// Credit a graded outcome earns; nullopt for outcomes that are not graded (errored, skipped and
// provider conditions say nothing about conformance).
std::optional<double> credit(const std::string& outcome) {
  if (outcome == "pass") return 1.0;
  if (outcome == "warn") return 0.5;
  if (outcome == "fail") return 0.0;
  return std::nullopt;
}

std::string tier_for(double score) {
  if (score >= 95) return "Platinum";
  if (score >= 85) return "Gold";
  if (score >= 70) return "Silver";
  if (score >= 50) return "Bronze";
  return "Underperform";
}

int tier_rank(const std::string& tier) {
  static const std::vector<std::string> order{"Underperform", "Bronze", "Silver", "Gold", "Platinum"};
  return static_cast<int>(std::find(order.begin(), order.end(), tier) - order.begin());
}

nlohmann::json score_of(double earned, double possible) {
  if (possible <= 0) return nullptr;
  return std::round(1000.0 * earned / possible) / 10.0;
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string fence(const std::string& s) {
  std::string f = "```";
  while (s.find(f) != std::string::npos) f += '`';
  return f + "\n" + s + "\n" + f + "\n";
}

std::string render_exchange(const nlohmann::json& e) {
  std::ostringstream out;
  if (const auto d = e.value("deliberate", ""); !d.empty()) out << "(deliberately invalid: " << d << ")\n";
  out << e.value("method", "") << " " << e.value("url", "") << "\n";
  for (const auto& h : e.value("request_headers", nlohmann::json::array())) out << h[0].get<std::string>() << ": " << h[1].get<std::string>() << "\n";
  if (const auto b = e.value("request_body", ""); !b.empty()) out << "\n" << b << "\n";
  out << "\n";
  if (const auto err = e.value("error", ""); !err.empty()) {
    out << "(no response: " << err << ")";
    return out.str();
  }
  out << "HTTP " << e.value("status", 0) << "\n";
  for (const auto& h : e.value("response_headers", nlohmann::json::array())) out << h[0].get<std::string>() << ": " << h[1].get<std::string>() << "\n";
  auto body = e.value("response_body", "");
  if (body.size() > 2000) body = body.substr(0, 2000) + "… (" + std::to_string(body.size()) + " bytes)";
  if (!body.empty()) out << "\n" << body;
  return out.str();
}

// A hardware record comes from an instance: its fields are read with their types checked.
constexpr auto text_at = &fields::text;
constexpr auto number_at = &fields::number_or_null;

// The scorecard's view of one hardware record: status, each GPU's graded measurements, and the
// smoke test's failing and amber checks.
nlohmann::json hardware_summary(const nlohmann::json& rec) {
  nlohmann::json out = {{"status", text_at(rec, "status")},
                        {"reason", text_at(rec, "reason")},
                        {"address", text_at(rec, "address")},
                        {"time_to_ssh_s", number_at(rec, "time_to_ssh_s")},
                        {"instance", rec.contains("instance") && rec["instance"].is_object() ? rec["instance"] : nlohmann::json(nullptr)},
                        {"gpus", nlohmann::json::array()},
                        {"problems", nlohmann::json::array()}};
  const auto smoke = rec.contains("smoke") && rec["smoke"].is_object() ? rec["smoke"] : nlohmann::json::object();
  if (smoke.contains("gpus") && smoke["gpus"].is_array())
    for (const auto& g : smoke["gpus"]) {
      if (!g.is_object()) continue;
      nlohmann::json gpu = {{"index", number_at(g, "index")}, {"name", text_at(g, "name")}, {"sku", text_at(g, "sku")},
                            {"measurements", nlohmann::json::array()}};
      if (g.contains("measurements") && g["measurements"].is_object())
        for (const auto& [name, m] : g["measurements"].items())
          gpu["measurements"].push_back({{"name", name}, {"value", number_at(m, "value")}, {"unit", text_at(m, "unit")},
                                         {"pct_of_datasheet", number_at(m, "pct_of_datasheet")}, {"verdict", text_at(m, "verdict")}});
      out["gpus"].push_back(gpu);
    }
  if (smoke.contains("checks") && smoke["checks"].is_array())
    for (const auto& c : smoke["checks"]) {
      const auto verdict = text_at(c, "verdict");
      if (verdict == "fail" || verdict == "warn")
        out["problems"].push_back({{"id", text_at(c, "id")}, {"gpu", number_at(c, "gpu")}, {"verdict", verdict},
                                   {"message", text_at(c, "message")}});
    }
  return out;
}

std::string render_hardware(const nlohmann::json& card) {
  std::ostringstream md;
  md << "## Hardware: GPU smoke test on the delivered instance\n\n";
  for (const auto& hw : card["hardware"]) {
    const auto& inst = hw["instance"];
    md << "- Instance: `" << md_escape(text_at(inst, "id")) << "` (" << md_escape(text_at(inst, "type")) << ")"
       << (hw["time_to_ssh_s"].is_number() ? ", SSH answered " + hw["time_to_ssh_s"].dump() + " s after running" : "") << "\n";
    md << "- Verdict: **" << md_escape(hw.value("status", "")) << "**: " << md_escape(hw.value("reason", "")) << "\n\n";
    if (!hw["gpus"].empty()) {
      md << "| GPU | name | SKU | measurement | value | % of datasheet | verdict |\n|---|---|---|---|---|---|---|\n";
      for (const auto& g : hw["gpus"])
        for (const auto& m : g["measurements"])
          md << "| " << g["index"].dump() << " | " << md_escape(g.value("name", "")) << " | " << md_escape(g.value("sku", ""))
             << " | " << md_escape(m.value("name", "")) << " | " << m["value"].dump() << " " << md_escape(m.value("unit", ""))
             << " | " << (m["pct_of_datasheet"].is_null() ? std::string("") : m["pct_of_datasheet"].dump() + "%") << " | "
             << md_escape(m.value("verdict", "")) << " |\n";
      md << "\n";
    }
    if (!hw["problems"].empty()) {
      md << "| check | GPU | verdict | finding |\n|---|---|---|---|\n";
      for (const auto& p : hw["problems"])
        md << "| `" << md_escape(p.value("id", "")) << "` | " << (p["gpu"].is_null() ? std::string("node") : p["gpu"].dump())
           << " | " << md_escape(p.value("verdict", "")) << " | " << md_escape(p.value("message", "")) << " |\n";
      md << "\n";
    }
  }
  return md.str();
}

}  // namespace

nlohmann::json build_scorecard(const run_record& run) {
  const auto& h = run.header;
  nlohmann::json card;
  card["scorecard_version"] = 1;
  card["provider"] = {{"id", h.value("provider", "")},
                      {"display_name", h.value("display_name", "")},
                      {"kind", h.value("provider_kind", "")},
                      {"fictional", h.value("fictional", false)},
                      {"docs_url", h.value("docs_url", "")},
                      {"api_version", h.value("api_version", "")},
                      {"transparency", h.contains("transparency") && h["transparency"].is_object() ? h["transparency"]
                                                                                                  : nlohmann::json(nullptr)}};
  card["spec_version"] = h.value("spec_version", "");
  card["suite_version"] = h.value("suite_version", "");
  card["run_id"] = h.value("run_id", "");
  card["source"] = h.value("source", "unknown");
  card["base_url"] = h.value("base_url", "");
  card["started_at"] = h.value("started_at", "");
  card["finished_at"] = run.footer ? run.footer->value("finished_at", "") : "";
  card["complete"] = run.footer.has_value();
  // Timings a user replaced: the run is not comparable with one under the spec's timings.
  card["timing_overrides"] = h.contains("timing") && h["timing"].is_object() && h["timing"].contains("overridden") &&
                                     h["timing"]["overridden"].is_object()
                                 ? h["timing"]["overridden"]
                                 : nlohmann::json::object();

  std::map<std::string, int> counts;
  std::map<std::string, std::pair<double, double>> by_category;  // earned, possible
  std::map<std::string, std::map<std::string, int>> category_counts;
  double earned = 0, possible = 0;
  nlohmann::json checks = nlohmann::json::array(), failures = nlohmann::json::array(), capped_by = nlohmann::json::array();
  for (const auto& o : run.outcomes) {
    const auto result = o.value("outcome", "unknown");
    const auto category = o.value("category", "");
    const auto sev = o.value("severity", "low");
    ++counts[result];
    ++category_counts[category][result];
    if (auto c = credit(result)) {
      earned += weight(sev) * *c;
      possible += weight(sev);
      by_category[category].first += weight(sev) * *c;
      by_category[category].second += weight(sev);
    }
    checks.push_back({{"check_id", o.value("check_id", "")}, {"category", category}, {"severity", sev},
                      {"requirement", o.value("requirement", "")}, {"outcome", result}, {"reason", o.value("reason", "")}});
    if (result == "fail" || result == "warn") {
      failures.push_back({{"check_id", o.value("check_id", "")},
                          {"outcome", result},
                          {"severity", sev},
                          {"requirement_text", o.value("requirement_text", "")},
                          {"check_source", o.value("check_source", "")},
                          {"reason", o.value("reason", "")},
                          {"reproduce", o.value("reproduce", "")},
                          {"evidence", o.value("evidence", nlohmann::json::array())}});
      if (result == "fail" && sev == "critical") capped_by.push_back(o.value("check_id", ""));
    }
  }
  card["counts"] = counts;
  nlohmann::json categories = nlohmann::json::object();
  for (const auto& [name, c] : category_counts) {
    categories[name] = c;
    categories[name]["score"] = score_of(by_category[name].first, by_category[name].second);
  }
  card["categories"] = categories;
  card["score"] = score_of(earned, possible);
  if (possible <= 0) {
    card["tier"] = "Not graded";
  } else {
    std::string tier = tier_for(card["score"].get<double>());
    // A critical failure (auth bypass, instances left billing, ...) caps the tier at Bronze.
    if (!capped_by.empty() && tier_rank(tier) > tier_rank("Bronze")) tier = "Bronze";
    card["tier"] = tier;
  }
  card["tier_capped_by"] = capped_by;
  card["runs"] = 1;  // neograde report merges runs and says how many
  card["flaky_checks"] = nlohmann::json::array();
  card["hardware"] = nlohmann::json::array();
  for (const auto& hw : run.hardware) card["hardware"].push_back(hardware_summary(hw));
  card["measurements"] = run.footer ? run.footer->value("measurements", nlohmann::json::object()) : nlohmann::json::object();
  card["checks"] = checks;
  card["failures"] = failures;
  card["provenance"] = provenance_banner(card);
  return card;
}

std::string transparency_summary(const nlohmann::json& card) {
  const auto& t = fields::object(fields::object(card, "provider"), "transparency");
  if (t.empty()) return "";
  std::string out = "hardware: " + fields::text(t, "hardware");
  if (const auto src = fields::text(t, "hardware_source"); !src.empty()) out += " (" + src + ")";
  for (const auto& d : fields::array(t, "deprecations"))
    out += "; deprecated: " + fields::text(d, "what") + " on " + fields::text(d, "date") + " (" + fields::text(d, "source") + ")";
  if (const auto rl = fields::text(t, "rate_limits"); !rl.empty()) {
    out += "; rate limits: " + rl;
    if (const auto src = fields::text(t, "rate_limits_source"); !src.empty()) out += " (" + src + ")";
  }
  return out;
}

std::string timing_overrides_summary(const nlohmann::json& card) {
  if (!card.is_object() || !card.contains("timing_overrides")) return {};
  const auto& t = card["timing_overrides"];
  if (!t.is_object() || t.empty()) return {};
  std::string what;
  for (const auto& [name, v] : t.items())
    what += (what.empty() ? "" : "; ") + name + " " + (v.is_object() ? v.value("value", nlohmann::json()).dump() : v.dump()) +
            " s (spec: " + (v.is_object() ? v.value("spec", nlohmann::json()).dump() : "?") + " s)";
  return "non-standard, set by the user: " + what + "; not comparable with a run under the spec's timings";
}

std::string provenance_banner(const nlohmann::json& card) {
  const auto source = fields::text(card, "source");
  const auto name = fields::text(fields::at(card, "provider"), "display_name");
  if (source == "emulated" && fields::flag(fields::at(card, "provider"), "fictional"))
    return "EMULATED, FICTIONAL PROVIDER: " + name +
           " does not exist. It is neograde's demonstration of findings, served by the embedded emulator "
           "with quirks switched on.";
  if (source == "emulated")
    return "EMULATED: these results come from neograde's embedded emulator of the " + name +
           " API, built from its public documentation. They grade the emulator, not " + name +
           "'s service, and are not a rating of the real provider.";
  if (source == "replay") return "REPLAY: regraded from a recorded run; no request reached " + name + ".";
  if (source == "live")
    return "LIVE: measured against " + fields::text(card, "base_url") + " on " + fields::text(card, "started_at") + ".";
  return "UNKNOWN SOURCE: the origin of these results is not recorded; do not rely on them.";
}

std::string render_markdown(const nlohmann::json& card) {
  std::ostringstream md;
  const auto& p = card["provider"];
  md << "# " << p.value("display_name", "") << ": neograde scorecard\n\n";
  md << "> **" << provenance_banner(card) << "**\n\n";
  md << "| | |\n|---|---|\n";
  md << "| Provider | " << p.value("display_name", "") << " (`" << p.value("id", "") << "`, " << p.value("kind", "") << ") |\n";
  if (const auto t = transparency_summary(card); !t.empty()) md << "| Transparency | " << md_escape(t) << " |\n";
  md << "| Source | " << card.value("source", "") << " |\n";
  if (const auto t = timing_overrides_summary(card); !t.empty()) md << "| Timings | **" << md_escape(t) << "** |\n";
  md << "| Spec | " << p.value("id", "") << " " << card.value("spec_version", "") << ", API " << md_escape(p.value("api_version", "")) << " |\n";
  md << "| Suite | neograde " << card.value("suite_version", "") << " |\n";
  md << "| Run | `" << card.value("run_id", "") << "`, " << card.value("started_at", "") << (card.value("complete", false) ? "" : " (interrupted)") << " |\n";
  md << "| Score | " << (card["score"].is_null() ? std::string("n/a") : card["score"].dump()) << " / 100 |\n";
  md << "| Tier | **" << card.value("tier", "") << "**";
  if (!card["tier_capped_by"].empty()) md << " (capped by critical failures)";
  md << " |\n\n";

  md << "## Outcomes\n\n| outcome | count |\n|---|---|\n";
  for (const auto& [k, v] : card["counts"].items()) md << "| " << k << " | " << v.get<int>() << " |\n";
  md << "\n";
  if (!card["measurements"].empty()) {
    md << "## Measurements\n\n| measurement | value |\n|---|---|\n";
    for (const auto& [k, v] : card["measurements"].items()) md << "| " << k << " | " << v.dump() << " |\n";
    md << "\n";
  }
  if (card.contains("hardware") && !card["hardware"].empty()) md << render_hardware(card);
  md << "## Checks\n\n| check | category | severity | outcome | reason |\n|---|---|---|---|---|\n";
  for (const auto& c : card["checks"])
    md << "| `" << c.value("check_id", "") << "` | " << c.value("category", "") << " | " << c.value("severity", "") << " | "
       << c.value("outcome", "") << " | " << md_escape(c.value("reason", "")) << " |\n";
  md << "\n";
  if (!card["failures"].empty()) {
    md << "## Findings, with evidence\n\n";
    for (const auto& f : card["failures"]) {
      md << "### `" << f.value("check_id", "") << "` (" << f.value("outcome", "") << ", " << f.value("severity", "") << ")\n\n";
      md << "- Requirement: " << f.value("requirement_text", "") << "\n";
      md << "- Source: " << f.value("check_source", "") << "\n";
      md << "- Finding: " << f.value("reason", "") << "\n";
      if (const auto r = f.value("reproduce", ""); !r.empty()) md << "- Reproduce:\n\n" << fence(r);
      md << "\n";
      for (const auto& e : f["evidence"]) md << fence(render_exchange(e)) << "\n";
    }
  }
  return md.str();
}

std::string render_index_markdown(const std::vector<nlohmann::json>& cards) {
  std::ostringstream md;
  md << "# neograde scorecards\n\n";
  bool all_emulated = std::all_of(cards.begin(), cards.end(), [](const auto& c) { return c.value("source", "") == "emulated"; });
  if (all_emulated)
    md << "> **EMULATED: every result below comes from neograde's embedded emulators, not from the providers' services. "
          "They show how the suite grades each documented API and are not a rating of any real provider. "
          "Providers marked fictional do not exist.**\n\n";
  md << "| provider | kind | source | score | tier | pass | fail | warn | other | scorecard |\n|---|---|---|---|---|---|---|---|---|---|\n";
  auto sorted = cards;
  // Worst first, as Bowtie orders its leaderboard.
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a["score"].is_null() ? false : b["score"].is_null() ? true : a["score"].template get<double>() < b["score"].template get<double>();
  });
  for (const auto& c : sorted) {
    const auto& p = c["provider"];
    int pass = 0, fail = 0, warn = 0, other = 0;
    for (const auto& [k, v] : c["counts"].items()) {
      if (k == "pass") pass = v;
      else if (k == "fail") fail = v;
      else if (k == "warn") warn = v;
      else other += v.get<int>();
    }
    const auto id = p.value("id", "");
    md << "| " << p.value("display_name", "") << (p.value("fictional", false) ? " (fictional)" : "") << " | "
       << p.value("kind", "") << " | " << c.value("source", "") << " | "
       << (c["score"].is_null() ? std::string("n/a") : c["score"].dump()) << " | " << c.value("tier", "") << " | " << pass
       << " | " << fail << " | " << warn << " | " << other << " | [" << id << "](providers/" << id << "/scorecard.md) |\n";
  }
  md << "\nGrading: see reports/README.md in the neograde repository.\n";
  return md.str();
}

}  // namespace neograde::reports
