#include <neograde/reports/transparency.hpp>

#include <neograde/core/measurements.hpp>
#include <neograde/core/supply.hpp>
#include <neograde/gpu_smoke/transparency.hpp>

#include "fields.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace neograde::reports {
namespace {

using nlohmann::json;
constexpr auto text = &fields::text;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The latest hardware record that carries a fingerprint, or null.
const hardware_summary* fingerprinted(const scorecard& card) {
  for (auto it = card.hardware.rbegin(); it != card.hardware.rend(); ++it)
    if (it->fingerprint.is_object()) return &*it;
  return nullptr;
}

// The RDAP owner of the instance's address as the run recorded it (docs/address-owner.md).
const json& address_owner(const scorecard& card) { return fields::object(card.measurements, "address_owner"); }

std::string owner_organisation(const json& owner) { return text(fields::object(owner, "organisation"), "name"); }

std::vector<std::string> texts(const json& j, const char* key) {
  std::vector<std::string> out;
  for (const auto& v : fields::array(j, key))
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::vector<std::string> aggregated(const json& t) {
  std::vector<std::string> out;
  for (const auto& a : fields::array(t, "aggregates"))
    if (auto p = text(a, "provider"); !p.empty()) out.push_back(p);
  return out;
}

// Who owns the instance's address, against the registrants the spec names: consistent when it is
// one of them; contradicted when it is another provider's declared own (for a provider that claims
// to own or colocate its hardware); unverified otherwise, with the organisation named.
claim_row address_claim(const scorecard& card, const transparency_evidence& all) {
  const auto& t = card.provider.transparency;
  const auto declared = texts(t, "address_registrants");
  std::string joined;
  for (const auto& d : declared) joined += (joined.empty() ? "" : ", ") + d;
  claim_row row{.claim = "address", .declared = joined, .declared_source = text(t, "address_registrants_source"), .verdict = "unverified"};
  const auto& owner = address_owner(card);
  const auto status = text(owner, "status");
  if (owner.empty()) {
    row.measured = "not looked up (RDAP runs in live runs with an instance address)";
    return row;
  }
  row.evidence = "RDAP " + (text(owner, "final_url").empty() ? text(owner, "query_url") : text(owner, "final_url"));
  if (status != "found") {
    const auto why = text(owner, "error").empty() ? text(owner, "reason") : text(owner, "error");
    row.measured = "no owner found (" + status + (why.empty() ? "" : ": " + why) + ")";
    return row;
  }
  const auto org = owner_organisation(owner);
  row.measured = "registered to " + (org.empty() ? std::string("an unnamed organisation") : org) +
                 (text(owner, "country").empty() ? "" : " (" + text(owner, "country") + ")");
  if (org.empty()) return row;
  const auto org_l = lower(org);
  auto matches = [&](const std::string& name) {
    const auto n = lower(name);
    return !n.empty() && (org_l.find(n) != std::string::npos || n.find(org_l) != std::string::npos);
  };
  if (std::any_of(declared.begin(), declared.end(), matches)) {
    row.verdict = "consistent";
    return row;
  }
  for (const auto& [name, provider] : all.registrants) {
    if (provider == card.provider.id || !matches(name)) continue;
    const auto hw = text(t, "hardware");
    row.measured += ", which " + provider + "'s spec declares as its own";
    row.verdict = hw == "owns" || hw == "colocates" ? "contradicted" : "consistent";
    return row;
  }
  return row;
}

// The providers an aggregator names, against GPUs and addresses seen at them.
claim_row aggregates_claim(const scorecard& card, const transparency_evidence& all, const std::vector<gpu_smoke::gpu_sighting>& seen) {
  const auto& t = card.provider.transparency;
  const auto named = aggregated(t);
  std::string joined;
  for (const auto& n : named) joined += (joined.empty() ? "" : ", ") + n;
  claim_row row{.claim = "aggregates", .declared = joined, .verdict = "unverified"};
  for (const auto& a : fields::array(t, "aggregates"))
    if (auto src = text(a, "source"); !src.empty()) row.declared_source += (row.declared_source.empty() ? "" : "; ") + src;
  std::set<std::string> found;
  for (const auto& s : seen)
    if (std::find(named.begin(), named.end(), s.provider) != named.end()) found.insert(s.provider + " (GPU seen on " + s.date + ")");
  const auto org = lower(owner_organisation(address_owner(card)));
  for (const auto& [name, provider] : all.registrants)
    if (!org.empty() && org.find(name) != std::string::npos && std::find(named.begin(), named.end(), provider) != named.end())
      found.insert(provider + " (address registrant)");
  if (found.empty()) {
    row.measured = "no run shows which provider served the instance";
    return row;
  }
  for (const auto& f : found) row.measured += (row.measured.empty() ? "served by " : ", ") + f;
  row.verdict = "consistent";
  return row;
}

// Who supplies the catalogue, as measured from the run's offer rows (core/supply.hpp), against the
// supply the spec claims. Shown for every aggregator and DePIN network, claim or not: what a buyer
// asks of them is whose GPUs they are.
bool shows_supply(const scorecard& card) {
  const auto& kind = card.provider.kind;
  return kind == "aggregator" || kind == "depin" || fields::at(card.provider.transparency, "supply").is_object() ||
         fields::at(card.measurements, measurement::supply_composition::key).is_object();
}

claim_row supply_claim(const scorecard& card) {
  const auto measured = measurement::read<measurement::supply_composition>(card.measurements);
  const auto v = judge_supply(fields::at(card.provider.transparency, "supply"), measured);
  return {.claim = "supply",
          .declared = v.declared,
          .declared_source = v.source,
          .measured = v.measured,
          .verdict = v.verdict,
          .evidence = measured ? "the offer rows the run listed, by the supplier each names (offer field underlying_provider)" : ""};
}

std::string seconds_or(const std::optional<double>& n, const std::string& none) {
  if (!n) return none;
  std::ostringstream out;
  out << *n << " s";
  return out.str();
}

}  // namespace

transparency_evidence evidence_of(const std::vector<scorecard>& cards) {
  transparency_evidence all;
  for (const auto& card : cards) {
    for (const auto& name : texts(card.provider.transparency, "address_registrants"))
      if (!name.empty()) all.registrants.emplace(lower(name), card.provider.id);
    for (const auto& hw : card.hardware)
      for (const auto& hash : gpu_smoke::gpu_uuid_hashes(json{{"fingerprint", hw.fingerprint}}))
        all.gpus.push_back({.provider = card.provider.id, .source = card.source, .date = card.started_at.substr(0, 10), .uuid_hash = hash});
  }
  return all;
}

std::vector<claim_row> grade_transparency(const scorecard& card, const transparency_evidence& all) {
  const auto& t = card.provider.transparency;
  if (!t.is_object() || t.empty()) return {};
  std::vector<gpu_smoke::gpu_sighting> elsewhere;
  for (const auto& g : all.gpus)
    if (g.provider != card.provider.id && g.source == card.source)
      elsewhere.push_back({.provider = g.provider, .date = g.date, .uuid_hash = g.uuid_hash});

  std::vector<claim_row> rows;
  const auto* hw = fingerprinted(card);
  const json doc = hw ? json{{"fingerprint", hw->fingerprint}} : json::object();
  const gpu_smoke::hardware_claim claim{.hardware = text(t, "hardware"), .machine = text(t, "machine")};
  for (const auto& v : gpu_smoke::grade_claims(claim, doc, elsewhere)) {
    claim_row row{.claim = v.claim,
                  .declared = v.declared,
                  .declared_source = text(t, v.claim == "machine" ? "machine_source" : "hardware_source"),
                  .measured = v.measured,
                  .verdict = v.verdict,
                  .evidence = v.evidence};
    if (hw && hw->origin == "fixture") {
      row.measured = "(fixture) " + row.measured;
      row.evidence = "fixture smoke record (demonstration, not a measurement); " + row.evidence;
    }
    rows.push_back(std::move(row));
  }
  if (!texts(t, "address_registrants").empty() || !address_owner(card).empty()) rows.push_back(address_claim(card, all));
  if (!aggregated(t).empty()) rows.push_back(aggregates_claim(card, all, elsewhere));
  if (shows_supply(card)) rows.push_back(supply_claim(card));
  return rows;
}

void grade_transparency_across(std::vector<scorecard>& cards) {
  const auto all = evidence_of(cards);
  for (auto& card : cards) card.transparency_claims = grade_transparency(card, all);
}

std::vector<std::pair<std::string, std::string>> developer_experience_rows(const scorecard& card) {
  const auto dx = measurement::read<measurement::developer_experience>(card.measurements);
  if (!dx || fields::object(card.measurements, measurement::developer_experience::key).empty()) return {};
  const auto& refused = dx->launch_refused;
  const auto& ok = dx->launch_succeeded;
  const auto requested = dx->launch_requested_at.value_or("");
  return {
      {"Launch requested", requested.empty() ? "no launch was requested" : requested},
      {"Launch attempts", std::to_string(dx->launch_attempts) + (ok ? *ok ? ", one accepted" : ", none accepted" : "") + "; refused: " +
                              std::to_string(refused.capacity) + " for capacity, " + std::to_string(refused.quota) + " for quota, " +
                              std::to_string(refused.funds) + " for funds, " + std::to_string(refused.error) + " by an error"},
      {"Time to running", seconds_or(dx->time_to_running_s, "not reached")},
      {"Time to first SSH command", seconds_or(dx->time_to_ssh_s, "not measured (needs --remote-exec)")},
      {"Time to first CUDA kernel", seconds_or(dx->time_to_first_kernel_s, "not measured (needs --remote-exec)")},
      {"API answered", dx->api_answered ? (*dx->api_answered ? "yes" : "no") : "unknown"},
  };
}

std::string render_transparency_markdown(const scorecard& card) {
  std::ostringstream md;
  if (!card.transparency_claims.empty()) {
    md << "## Transparency: declared vs measured\n\n| claim | declared | measured | verdict | evidence |\n|---|---|---|---|---|\n";
    for (const auto& c : card.transparency_claims)
      md << "| " << c.claim << " | " << fields::md_escape(c.declared.empty() ? "(not declared)" : c.declared)
         << (c.declared_source.empty() ? "" : " (" + fields::md_escape(c.declared_source) + ")") << " | " << fields::md_escape(c.measured)
         << " | " << (c.verdict == "contradicted" ? "**contradicted**" : c.verdict) << " | " << fields::md_escape(c.evidence) << " |\n";
    md << "\n";
    for (const auto& c : card.transparency_claims)
      if (c.verdict == "contradicted")
        md << "- **Finding:** " << card.provider.display_name << " declares " << c.claim << " `" << fields::md_escape(c.declared)
           << "`, but " << fields::md_escape(c.measured) << " (" << fields::md_escape(c.evidence) << ")\n";
    md << "\n";
  }
  if (const auto rows = developer_experience_rows(card); !rows.empty()) {
    md << "## Developer experience\n\n| | |\n|---|---|\n";
    for (const auto& [label, value] : rows) md << "| " << label << " | " << fields::md_escape(value) << " |\n";
    md << "\n";
  }
  return md.str();
}

}  // namespace neograde::reports
