#include <neograde/reports/measurements.hpp>
#include <neograde/reports/scorecard.hpp>
#include <neograde/reports/transparency.hpp>

#include <neograde/core/finding.hpp>
#include <neograde/core/measurements.hpp>

#include "fields.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>

namespace neograde::reports {
namespace {

std::optional<double> score_of(double earned, double possible) {
  if (possible <= 0) return std::nullopt;
  return std::round(1000.0 * earned / possible) / 10.0;
}

constexpr auto md_escape = &fields::md_escape;

std::string fence(const std::string& s) {
  std::string f = "```";
  while (s.find(f) != std::string::npos) f += '`';
  return f + "\n" + s + "\n" + f + "\n";
}

std::string render_exchange(const nlohmann::json& e) {
  std::ostringstream out;
  if (const auto d = e.value("deliberate", ""); !d.empty()) out << "(deliberately invalid: " << d << ")\n";
  out << e.value("method", "") << " " << e.value("url", "") << "\n";
  for (const auto& h : e.value("request_headers", nlohmann::json::array()))
    out << h[0].get<std::string>() << ": " << h[1].get<std::string>() << "\n";
  if (const auto b = e.value("request_body", ""); !b.empty()) out << "\n" << b << "\n";
  if (const auto note = fields::body_note(e, "request_body_digest"); !note.empty()) out << "\n" << note << "\n";
  out << "\n";
  if (const auto err = e.value("error", ""); !err.empty()) {
    out << "(no response: " << err << ")";
    return out.str();
  }
  out << "HTTP " << e.value("status", 0) << "\n";
  for (const auto& h : e.value("response_headers", nlohmann::json::array()))
    out << h[0].get<std::string>() << ": " << h[1].get<std::string>() << "\n";
  auto body = e.value("response_body", "");
  if (body.size() > 2000) body = body.substr(0, 2000) + "… (" + std::to_string(body.size()) + " bytes)";
  if (!body.empty()) out << "\n" << body;
  if (const auto note = fields::body_note(e, "response_body_digest"); !note.empty()) out << "\n" << note;
  return out.str();
}

// A hardware record comes from an instance: its fields are read with their types checked.
constexpr auto text_at = &fields::text;

std::optional<json_number> number_at(const nlohmann::json& j, const char* key) {
  if (!fields::number(j, key)) return std::nullopt;
  return fields::at(j, key).get<json_number>();
}

// The scorecard's view of one hardware record: status, each GPU's graded measurements, and the
// smoke test's failing and amber checks.
hardware_summary hardware_summary_of(const nlohmann::json& rec) {
  hardware_summary out{.status = text_at(rec, "status"),
                       .reason = text_at(rec, "reason"),
                       .address = text_at(rec, "address"),
                       .time_to_ssh_s = number_at(rec, "time_to_ssh_s"),
                       .instance = rec.contains("instance") && rec["instance"].is_object() ? rec["instance"] : nlohmann::json(nullptr)};
  const auto& smoke = fields::object(rec, "smoke");
  out.origin = text_at(rec, "origin");
  if (const auto& fp = fields::at(smoke, "fingerprint"); fp.is_object()) out.fingerprint = fp;
  for (const auto& g : fields::array(smoke, "gpus")) {
    if (!g.is_object()) continue;
    auto& gpu = out.gpus.emplace_back(gpu_summary{.index = number_at(g, "index"), .name = text_at(g, "name"), .sku = text_at(g, "sku")});
    const auto& measurements = fields::object(g, "measurements");
    for (auto it = measurements.begin(); it != measurements.end(); ++it)
      gpu.measurements.push_back({.name = it.key(),
                                  .value = number_at(*it, "value"),
                                  .unit = text_at(*it, "unit"),
                                  .pct_of_datasheet = number_at(*it, "pct_of_datasheet"),
                                  .verdict = text_at(*it, "verdict")});
  }
  for (const auto& c : fields::array(smoke, "checks")) {
    const auto verdict = text_at(c, "verdict");
    if (is_finding(outcome_from_string(verdict)))
      out.problems.push_back({.id = text_at(c, "id"), .gpu = number_at(c, "gpu"), .verdict = verdict, .message = text_at(c, "message")});
  }
  return out;
}

std::string number_text(const std::optional<json_number>& n) { return n ? n->text() : "null"; }

// The footer's measurements: those without a type of their own in one table of dotted names (and
// a table for each array of objects in them), then a table each for the typed ones
// (reports/measurements.hpp); developer_experience has its own section. Never JSON text.
std::string render_measurements(const nlohmann::json& measurements) {
  std::ostringstream md;
  const auto tables = measurement_tables(measurements);
  const auto untyped = untyped_measurement_rows(measurements);
  if (untyped.rows.empty() && untyped.grids.empty() && tables.empty()) return "";
  md << "## Measurements\n";
  if (!untyped.rows.empty()) {
    md << "\n| measurement | value |\n|---|---|\n";
    for (const auto& [name, value] : untyped.rows) md << "| " << md_escape(name) << " | " << md_escape(value) << " |\n";
  }
  for (const auto& g : untyped.grids) {
    md << "\n### " << md_escape(g.name) << "\n\n|";
    for (const auto& c : g.columns) md << " " << md_escape(c) << " |";
    md << "\n|";
    for (std::size_t i = 0; i < g.columns.size(); ++i) md << "---|";
    md << "\n";
    for (const auto& row : g.rows) {
      md << "|";
      for (const auto& cell : row) md << " " << md_escape(cell) << " |";
      md << "\n";
    }
  }
  for (const auto& t : tables) {
    md << "\n### " << t.title << "\n\n| | |\n|---|---|\n";
    for (const auto& [label, value] : t.rows) md << "| " << md_escape(label) << " | " << md_escape(value) << " |\n";
  }
  md << "\n";
  return md.str();
}

std::string render_hardware(const scorecard& card) {
  std::ostringstream md;
  md << "## Hardware: GPU smoke test on the delivered instance\n\n";
  for (const auto& hw : card.hardware) {
    md << "- Instance: `" << md_escape(text_at(hw.instance, "id")) << "` (" << md_escape(text_at(hw.instance, "type")) << ")"
       << (hw.time_to_ssh_s ? ", SSH answered " + hw.time_to_ssh_s->text() + " s after running" : "") << "\n";
    md << "- Verdict: **" << md_escape(hw.status) << "**: " << md_escape(hw.reason) << "\n\n";
    if (!hw.gpus.empty()) {
      md << "| GPU | name | SKU | measurement | value | % of datasheet | verdict |\n|---|---|---|---|---|---|---|\n";
      for (const auto& g : hw.gpus)
        for (const auto& m : g.measurements)
          md << "| " << number_text(g.index) << " | " << md_escape(g.name) << " | " << md_escape(g.sku) << " | " << md_escape(m.name)
             << " | " << number_text(m.value) << " " << md_escape(m.unit) << " | "
             << (m.pct_of_datasheet ? m.pct_of_datasheet->text() + "%" : std::string("")) << " | " << md_escape(m.verdict) << " |\n";
      md << "\n";
    }
    if (!hw.problems.empty()) {
      md << "| check | GPU | verdict | finding |\n|---|---|---|---|\n";
      for (const auto& p : hw.problems)
        md << "| `" << md_escape(p.id) << "` | " << (p.gpu ? p.gpu->text() : std::string("node")) << " | " << md_escape(p.verdict) << " | "
           << md_escape(p.message) << " |\n";
      md << "\n";
    }
  }
  return md.str();
}

std::optional<rate_limit_coverage> rate_limit_of(const run_record& run) {
  if (!run.footer) return std::nullopt;
  const auto rl = measurement::read<measurement::rate_limit>(fields::at(*run.footer, "measurements"));
  if (!rl || !rl->probed) return std::nullopt;
  return rate_limit_coverage{.probed = *rl->probed, .met_in_traffic = static_cast<int>(rl->met_in_traffic)};
}

}  // namespace

namespace {
// Why the run stopped before it decided every check: the footer's word, or that it has none.
std::string stopped_because(const run_record& run) {
  if (!run.footer) return "it ended without its footer";
  const auto& m = fields::object(*run.footer, "measurements");
  return fields::text(m, "stopped");
}
}  // namespace

scorecard build_scorecard(const run_record& run) {
  const auto& h = run.header;
  scorecard card{.provider = {.id = h.value("provider", ""),
                              .display_name = h.value("display_name", ""),
                              .kind = h.value("provider_kind", ""),
                              .fictional = h.value("fictional", false),
                              .docs_url = h.value("docs_url", ""),
                              .api_version = h.value("api_version", ""),
                              .transparency = h.contains("transparency") && h["transparency"].is_object() ? h["transparency"]
                                                                                                          : nlohmann::json(nullptr)},
                 .spec_version = h.value("spec_version", ""),
                 .suite_version = h.value("suite_version", ""),
                 .run_id = h.value("run_id", ""),
                 .source = h.value("source", "unknown"),
                 .base_url = h.value("base_url", ""),
                 .started_at = h.value("started_at", ""),
                 .finished_at = run.footer ? run.footer->value("finished_at", "") : "",
                 .complete = run.footer.has_value() && stopped_because(run).empty(),
                 .read_only = h.value("read_only", false),
                 .timing_overrides = fields::object(fields::object(h, "timing"), "overridden"),
                 .rate_limit = rate_limit_of(run),
                 .measurements = run.footer ? run.footer->value("measurements", nlohmann::json::object()) : nlohmann::json::object()};

  std::map<std::string, std::pair<double, double>> by_category;  // earned, possible
  double earned = 0, possible = 0;
  for (const auto& o : run.outcomes) {
    const auto result = o.value("outcome", "unknown");
    const auto category = o.value("category", "");
    const auto sev = o.value("severity", "low");
    const auto graded = outcome_from_string(result);
    const auto level = severity_from_string(sev);
    ++card.counts[result];
    ++card.categories[category].counts[result];
    if (auto c = credit(graded)) {
      earned += weight(level) * *c;
      possible += weight(level);
      by_category[category].first += weight(level) * *c;
      by_category[category].second += weight(level);
    }
    card.checks.push_back({.check_id = o.value("check_id", ""),
                           .category = category,
                           .severity = sev,
                           .requirement = o.value("requirement", ""),
                           .outcome = result,
                           .reason = o.value("reason", "")});
    if (is_finding(graded)) {
      card.failures.push_back({.check_id = o.value("check_id", ""),
                               .outcome = result,
                               .severity = sev,
                               .requirement_text = o.value("requirement_text", ""),
                               .check_source = o.value("check_source", ""),
                               .reason = o.value("reason", ""),
                               .reproduce = o.value("reproduce", ""),
                               .evidence = o.value("evidence", nlohmann::json::array())});
      if (graded == outcome::fail && level == severity::critical) card.tier_capped_by.push_back(o.value("check_id", ""));
    }
  }
  for (auto& [name, category] : card.categories) category.score = score_of(by_category[name].first, by_category[name].second);
  // A run that stopped early (a signal, a bug of ours) decided only the checks it reached: a score
  // of those would be a verdict the provider could refute, so an incomplete run has none.
  if (card.complete) card.score = score_of(earned, possible);
  card.tier = to_string(tier_for(card.score, !card.tier_capped_by.empty()));
  for (const auto& hw : run.hardware) card.hardware.push_back(hardware_summary_of(hw));
  card.transparency_claims = grade_transparency(card);
  card.provenance = provenance_banner(card);
  return card;
}

std::string transparency_summary(const scorecard& card) {
  const auto& t = card.provider.transparency;
  if (!t.is_object() || t.empty()) return "";
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

std::string timing_overrides_summary(const scorecard& card) {
  const auto& t = card.timing_overrides;
  if (!t.is_object() || t.empty()) return {};
  std::string what;
  for (auto it = t.begin(); it != t.end(); ++it) {
    const auto& v = it.value();
    what += (what.empty() ? "" : "; ") + it.key() + " " + (v.is_object() ? v.value("value", nlohmann::json()).dump() : v.dump()) +
            " s (spec: " + (v.is_object() ? v.value("spec", nlohmann::json()).dump() : "?") + " s)";
  }
  return "non-standard, set by the user: " + what + "; not comparable with a run under the spec's timings";
}

std::string rate_limit_summary(const scorecard& card) {
  if (!card.rate_limit || card.rate_limit->probed) return {};
  return "not probed: the rate-limit checks judged only the " + std::to_string(card.rate_limit->met_in_traffic) +
         " 429(s) the run met in its own traffic (--probe-rate-limit probes for one)";
}

std::string provenance_banner(const scorecard& card) {
  const auto& source = card.source;
  const auto& name = card.provider.display_name;
  std::string audit = card.read_only ? " A READ-ONLY AUDIT: nothing was launched; the checks that create something were not run." : "";
  if (!card.complete) {
    const auto why = fields::text(card.measurements, "stopped");
    audit += " AN INCOMPLETE RUN" + (why.empty() ? std::string() : " (" + why + ")") +
             ": it stopped before deciding every check; the checks it did not reach are unknown, and it has no "
             "score or tier.";
  }
  if (source == "emulated" && card.provider.fictional)
    return "EMULATED, FICTIONAL PROVIDER: " + name +
           " does not exist. It is neograde's demonstration of findings, served by the embedded emulator "
           "with quirks switched on." +
           audit;
  if (source == "emulated")
    return "EMULATED: these results come from neograde's embedded emulator of the " + name +
           " API, built from its public documentation. They grade the emulator, not " + name +
           "'s service, and are not a rating of the real provider." + audit;
  if (source == "replay") return "REPLAY: regraded from a recorded run; no request reached " + name + "." + audit;
  if (source == "live") return "LIVE: measured against " + card.base_url + " on " + card.started_at + "." + audit;
  return "UNKNOWN SOURCE: the origin of these results is not recorded; do not rely on them." + audit;
}

std::string check_status(const std::string& outcome_name, const std::string& reason) {
  switch (outcome_from_string(outcome_name)) {
    case outcome::pass: return "pass";
    case outcome::fail:
    case outcome::warn: return "fail";
    case outcome::skipped: return reason.starts_with("not applicable") ? "not applicable" : "unknown";
    default: return "unknown";
  }
}

std::string status_label(const std::string& outcome_name, const std::string& reason) {
  const auto status = check_status(outcome_name, reason);
  if (status == outcome_name || (status == "not applicable" && outcome_name == to_string(outcome::skipped))) return status;
  return status + " (" + (outcome_name.empty() ? std::string("no outcome") : outcome_name) + ")";
}

status_counts count_statuses(const scorecard& card) {
  status_counts n;
  for (const auto& c : card.checks) {
    const auto status = check_status(c.outcome, c.reason);
    if (status == "pass") ++n.pass;
    else if (status == "fail") {
      ++n.fail;
      n.warn += outcome_from_string(c.outcome) == outcome::warn;
    } else if (status == "not applicable")
      ++n.not_applicable;
    else
      ++n.unknown;
  }
  return n;
}

namespace {

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

std::string display_name(const scorecard& card) {
  return !card.provider.display_name.empty() ? card.provider.display_name
         : card.provider.id.empty()          ? "unnamed provider"
                                             : card.provider.id;
}

std::string providers(std::size_t n) { return std::to_string(n) + (n == 1 ? " provider" : " providers"); }

}  // namespace

std::vector<banner_line> sources_banner(const std::vector<scorecard>& cards) {
  std::map<std::string, std::vector<std::string>> by_source;
  std::vector<std::string> fictional, audits, live, timings, unprobed, observed;
  auto add = [](std::vector<std::string>& v, std::string s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
  };
  for (const auto& c : cards) {
    const auto name = display_name(c);
    const auto source = c.source == "emulated" || c.source == "replay" || c.source == "live" ? c.source : std::string("unknown");
    add(by_source[source], name);
    if (c.provider.fictional) add(fictional, name);
    if (c.read_only) add(audits, name + " (" + source + ")");
    if (source == "live")
      add(live, name + " at " + (c.base_url.empty() ? std::string("an unrecorded URL") : c.base_url) + " on " + c.started_at);
    if (const auto t = timing_overrides_summary(c); !t.empty()) add(timings, name);
    if (c.rate_limit && !c.rate_limit->probed) add(unprobed, name);
    for (const auto& o : c.observations) add(observed, name + " (by " + o.observed_by + " on " + o.observed_at + ")");
  }
  std::vector<banner_line> out;
  if (cards.empty()) out.push_back({"unknown", "NO SCORECARDS: nothing was graded."});
  if (const auto& e = by_source["emulated"]; !e.empty())
    out.push_back({"emulated", "EMULATED (" + providers(e.size()) +
                                   "): these results come from neograde's embedded emulators, each built from a provider's public "
                                   "documentation, not from the providers' services. They show how the suite grades each documented "
                                   "API and are NOT a rating of the real providers."});
  if (!fictional.empty())
    out.push_back({"fictional",
                   "FICTIONAL PROVIDERS, which do not exist (neograde's demonstration of findings, emulated with quirks "
                   "switched on): " +
                       name_list(fictional) + "."});
  if (const auto& r = by_source["replay"]; !r.empty())
    out.push_back({"replay", "REPLAY (" + providers(r.size()) +
                                 "): regraded from recorded runs; no request reached the providers: " + name_list(r) + "."});
  if (!live.empty())
    out.push_back({"live", "LIVE (" + providers(live.size()) + "): measured against the providers' services: " + name_list(live) + "."});
  if (const auto& u = by_source["unknown"]; !u.empty())
    out.push_back({"unknown", "UNKNOWN SOURCE (" + providers(u.size()) +
                                  "): the origin of these results is not recorded; do not rely on them: " + name_list(u) + "."});
  if (!audits.empty())
    out.push_back({"audit", "A READ-ONLY AUDIT, in which nothing was launched and the checks that create something were not run: " +
                                name_list(audits) + "."});
  if (!timings.empty())
    out.push_back(
        {"timings", "Timings replaced by the user, so not comparable with a run under the spec's timings: " + name_list(timings) + "."});
  if (!unprobed.empty())
    out.push_back({"ratelimit", "Rate limit not probed (the rate-limit checks judged only the 429s the run met in its own traffic): " +
                                    name_list(unprobed) + "."});
  if (!observed.empty())
    out.push_back({"observed",
                   "OBSERVED: a person's dated account of creating an account, not measured by neograde and not part of "
                   "the score: " +
                       name_list(observed) + "."});
  return out;
}

std::string sources_summary(const std::vector<scorecard>& cards) {
  std::string out;
  for (const auto& l : sources_banner(cards)) out += (out.empty() ? "" : " ") + l.text;
  return out;
}

std::string report_name(const scorecard& card) {
  std::string name;
  for (const char c : card.provider.id.substr(0, 96))
    name += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ? c : '_';
  if (name.empty()) name = "unnamed";
  const auto& s = card.source;
  if (s != "emulated") name += "-" + std::string(s == "live" || s == "replay" ? s : "unknown");
  return name;
}

std::string score_text(const scorecard& card, const char* none) { return card.score ? json_number{*card.score}.text() : none; }

namespace {

// People's observations, each under its OBSERVED label, apart from everything the run measured.
std::string render_observations_markdown(const scorecard& card) {
  if (card.observations.empty()) return "";
  std::ostringstream md;
  md << "## Developer experience: OBSERVED\n\n";
  for (const auto& o : card.observations) {
    md << "> **" << md_escape(observed_label(o)) << "**\n\n| | |\n|---|---|\n";
    md << "| Sign-up | " << md_escape(signup_text(o)) << " |\n";
    md << "| Verification asked for | " << md_escape(verification_text(o)) << " |\n";
    md << "| Free credits | " << md_escape(credits_text(o)) << " |\n";
    if (!o.credits_promised_where.empty()) md << "| Credits promised at | " << md_escape(o.credits_promised_where) << " |\n";
    for (const auto& e : o.evidence)
      md << "| Evidence | <" << md_escape(e.url) << "> (read " << md_escape(e.read_at) << ")"
         << (e.what.empty() ? "" : ": " + md_escape(e.what)) << " |\n";
    if (!o.notes.empty()) md << "| Notes | " << md_escape(o.notes) << " |\n";
    md << "\n";
  }
  return md.str();
}

}  // namespace

std::string render_markdown(const scorecard& card) {
  std::ostringstream md;
  const auto& p = card.provider;
  md << "# " << p.display_name << ": neograde scorecard\n\n";
  md << "> **" << provenance_banner(card) << "**\n\n";
  md << "| | |\n|---|---|\n";
  md << "| Provider | " << p.display_name << " (`" << p.id << "`, " << p.kind << ") |\n";
  if (const auto t = transparency_summary(card); !t.empty()) md << "| Transparency | " << md_escape(t) << " |\n";
  md << "| Source | " << card.source << " |\n";
  if (const auto t = timing_overrides_summary(card); !t.empty()) md << "| Timings | **" << md_escape(t) << "** |\n";
  if (const auto t = rate_limit_summary(card); !t.empty()) md << "| Rate limit | " << md_escape(t) << " |\n";
  md << "| Spec | " << p.id << " " << card.spec_version << ", API " << md_escape(p.api_version) << " |\n";
  md << "| Suite | neograde " << card.suite_version << " |\n";
  md << "| Run | `" << card.run_id << "`, " << card.started_at << (card.complete ? "" : " (interrupted)") << " |\n";
  md << "| Score | " << score_text(card) << " / 100 |\n";
  md << "| Tier | **" << card.tier << "**";
  if (!card.tier_capped_by.empty()) md << " (capped by critical failures)";
  md << " |\n\n";

  // The statuses a reader knows, each with the outcomes behind it (reports/README.md, Status).
  md << "## Checks by status\n\n| status | checks | outcomes |\n|---|---|---|\n";
  const auto n = count_statuses(card);
  std::map<std::string, std::map<std::string, int>> behind;  // status -> outcome -> checks
  for (const auto& c : card.checks) ++behind[check_status(c.outcome, c.reason)][c.outcome.empty() ? "no outcome" : c.outcome];
  for (const auto& [status, count] : std::initializer_list<std::pair<const char*, int>>{
           {"pass", n.pass}, {"fail", n.fail}, {"not applicable", n.not_applicable}, {"unknown", n.unknown}}) {
    std::string outcomes;
    for (const auto& [o, k] : behind[status]) outcomes += (outcomes.empty() ? "" : ", ") + o + " " + std::to_string(k);
    md << "| " << status << " | " << count << " | " << md_escape(outcomes) << " |\n";
  }
  md << "\n";
  md << render_measurements(card.measurements);
  md << render_transparency_markdown(card);
  md << render_observations_markdown(card);
  if (!card.hardware.empty()) md << render_hardware(card);
  md << "## Checks\n\n| check | category | severity | outcome | status | reason |\n|---|---|---|---|---|---|\n";
  for (const auto& c : card.checks)
    md << "| `" << md_escape(c.check_id) << "` | " << md_escape(c.category) << " | " << md_escape(c.severity) << " | "
       << md_escape(c.outcome) << " | " << check_status(c.outcome, c.reason) << " | " << md_escape(c.reason) << " |\n";
  md << "\n";
  if (!card.failures.empty()) {
    md << "## Findings, with evidence\n\n";
    for (const auto& f : card.failures) {
      md << "### `" << f.check_id << "` (" << f.outcome << ", " << f.severity << ")\n\n";
      md << "- Requirement: " << f.requirement_text << "\n";
      md << "- Source: " << f.check_source << "\n";
      md << "- Finding: " << f.reason << "\n";
      if (!f.reproduce.empty()) md << "- Reproduce:\n\n" << fence(f.reproduce);
      md << "\n";
      for (const auto& e : f.evidence) md << fence(render_exchange(e)) << "\n";
    }
  }
  return md.str();
}

namespace {
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kinds{{{"neocloud", "Neoclouds"},
                                                                              {"marketplace", "Marketplaces"},
                                                                              {"aggregator", "Aggregators"},
                                                                              {"depin", "DePIN networks"},
                                                                              {"hyperscaler", "Hyperscalers"}}};
}  // namespace

int kind_rank(const std::string& kind) {
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i].first == kind) return static_cast<int>(i);
  return static_cast<int>(kinds.size());
}

std::string kind_title(const std::string& kind) {
  const auto rank = static_cast<std::size_t>(kind_rank(kind));
  return rank < kinds.size() ? std::string(kinds[rank].second) : "Other kinds";
}

std::string render_index_markdown(const std::vector<scorecard>& cards) {
  std::ostringstream md;
  md << "# neograde scorecards\n\n";
  md << "> **" << md_escape(sources_summary(cards)) << "**\n\n";
  md << "Providers are ranked within their kind (a marketplace is not a neocloud), worst first.\n";
  std::vector<const scorecard*> sorted;
  for (const auto& c : cards) sorted.push_back(&c);
  // By kind, then worst first, as Bowtie orders its leaderboard.
  std::stable_sort(sorted.begin(), sorted.end(), [](const scorecard* a, const scorecard* b) {
    const int ka = kind_rank(a->provider.kind), kb = kind_rank(b->provider.kind);
    if (ka != kb) return ka < kb;
    return !a->score ? false : !b->score ? true : *a->score < *b->score;
  });
  std::string group;
  for (const auto* c : sorted) {
    const auto& p = c->provider;
    if (const auto title = kind_title(p.kind); title != group || c == sorted.front()) {
      group = title;
      md << "\n## " << title << "\n\n"
         << "| provider | kind | source | score | tier | pass | fail (of which warn) | not applicable | unknown | scorecard "
            "|\n|---|---|---|---|---|---|---|---|---|---|\n";
    }
    const auto n = count_statuses(*c);
    md << "| " << md_escape(p.display_name) << (p.fictional ? " (fictional)" : "") << " | " << md_escape(p.kind) << " | " << c->source
       << " | " << score_text(*c) << " | " << c->tier << " | " << n.pass << " | " << n.fail << " (" << n.warn << ") | " << n.not_applicable
       << " | " << n.unknown << " | [" << md_escape(p.id) << "](providers/" << report_name(*c) << "/scorecard.md) |\n";
  }
  md << "\nGrading: see reports/README.md in the neograde repository.\n";
  return md.str();
}

}  // namespace neograde::reports
