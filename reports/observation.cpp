#include <neograde/reports/observation.hpp>
#include <neograde/reports/scorecard.hpp>

#include "fields.hpp"

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace neograde::embedded {
std::string_view observation_schema();
}  // namespace neograde::embedded

namespace neograde::reports {
namespace {

using nlohmann::json;
constexpr auto text = &fields::text;
constexpr std::uintmax_t max_file_bytes = 1 << 20;

const json_schema& schema() {
  static const json_schema s(json::parse(embedded::observation_schema()));
  return s;
}

std::optional<double> money(const json& j, const char* key) { return fields::number(j, key); }

std::string usd(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v == static_cast<double>(static_cast<long long>(v)) ? "$%.0f" : "$%.2f", v);
  return buf;
}

}  // namespace

void to_json(json& j, const observation& o) {
  json signup = {{"steps", o.signup_steps}, {"minutes", o.signup_minutes}};
  if (o.api_key_obtained) signup["api_key_obtained"] = *o.api_key_obtained;
  if (!o.signup_notes.empty()) signup["notes"] = o.signup_notes;
  json credits = {{"promised_usd", o.credits_promised_usd ? json(*o.credits_promised_usd) : json(nullptr)},
                  {"received_usd", o.credits_received_usd ? json(*o.credits_received_usd) : json(nullptr)}};
  if (!o.credits_promised_where.empty()) credits["promised_where"] = o.credits_promised_where;
  if (!o.credits_conditions.empty()) credits["conditions"] = o.credits_conditions;
  json evidence = json::array();
  for (const auto& e : o.evidence) {
    json item = {{"url", e.url}, {"read_at", e.read_at}};
    if (!e.what.empty()) item["what"] = e.what;
    evidence.push_back(std::move(item));
  }
  j = {{"observation_version", 1}, {"provider", o.provider},         {"observed_by", o.observed_by}, {"observed_at", o.observed_at},
       {"signup", signup},         {"verification", o.verification}, {"credits", credits},           {"evidence", evidence}};
  if (!o.notes.empty()) j["notes"] = o.notes;
}

observation read_observation(const json& doc, const std::string& origin) {
  const auto violations = schema().validate(doc);
  if (!violations.empty()) {
    std::string what = origin + ": not a valid observation (reports/observation.schema.json):";
    for (std::size_t i = 0; i < violations.size() && i < 8; ++i)
      what += "\n  " + (violations[i].pointer.empty() ? std::string("/") : violations[i].pointer) + ": " + violations[i].message;
    if (violations.size() > 8) what += "\n  ... and " + std::to_string(violations.size() - 8) + " more";
    throw observation_error(what);
  }
  // Valid against the schema: every member read below has its type.
  const auto& signup = doc.at("signup");
  const auto& credits = doc.at("credits");
  observation o{
      .provider = text(doc, "provider"),
      .observed_by = text(doc, "observed_by"),
      .observed_at = text(doc, "observed_at"),
      .signup_steps = signup.at("steps").get<int>(),
      .signup_minutes = signup.at("minutes").get<double>(),
      .api_key_obtained = signup.contains("api_key_obtained") ? std::optional(signup["api_key_obtained"].get<bool>()) : std::nullopt,
      .signup_notes = text(signup, "notes"),
      .verification = doc.at("verification").get<std::vector<std::string>>(),
      .credits_promised_usd = money(credits, "promised_usd"),
      .credits_promised_where = text(credits, "promised_where"),
      .credits_received_usd = money(credits, "received_usd"),
      .credits_conditions = text(credits, "conditions"),
      .notes = text(doc, "notes")};
  for (const auto& e : doc.at("evidence")) o.evidence.push_back({text(e, "url"), text(e, "read_at"), text(e, "what")});
  return o;
}

std::vector<observation> read_observations(const std::filesystem::path& path) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(path, ec))
      if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) files.push_back(entry.path());
    if (ec) throw observation_error(path.string() + ": cannot list the directory (" + ec.message() + ")");
    std::sort(files.begin(), files.end());
    if (files.empty()) throw observation_error(path.string() + ": no *.json observation in the directory");
  } else {
    files.push_back(path);
  }
  std::vector<observation> out;
  for (const auto& f : files) {
    const auto size = std::filesystem::file_size(f, ec);
    if (ec) throw observation_error(f.string() + ": cannot read (" + ec.message() + ")");
    if (size > max_file_bytes) throw observation_error(f.string() + ": larger than 1 MiB, not an observation");
    std::ifstream in(f, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    if (!in) throw observation_error(f.string() + ": cannot read");
    const auto doc = parse_json(buf.str(), 64);
    if (!doc) throw observation_error(f.string() + ": not JSON");
    out.push_back(read_observation(*doc, f.string()));
  }
  return out;
}

std::vector<observation> attach_observations(std::vector<scorecard>& cards, const std::vector<observation>& all) {
  std::vector<observation> unmatched;
  for (const auto& o : all) {
    bool matched = false;
    for (auto& card : cards)
      if (card.provider.id == o.provider) {
        card.observations.push_back(o);
        matched = true;
      }
    if (!matched) unmatched.push_back(o);
  }
  for (auto& card : cards)
    std::stable_sort(card.observations.begin(), card.observations.end(),
                     [](const observation& a, const observation& b) { return a.observed_at < b.observed_at; });
  return unmatched;
}

std::string observed_label(const observation& o) {
  return "OBSERVED by " + o.observed_by + " on " + o.observed_at +
         ": a person's account of creating an account, not measured by neograde and not part of the score";
}

std::string signup_text(const observation& o) {
  char minutes[32];
  std::snprintf(minutes, sizeof minutes, "%g", o.signup_minutes);
  std::string s = std::to_string(o.signup_steps) + " step(s), " + minutes + " min";
  if (o.api_key_obtained) s += *o.api_key_obtained ? "; API key obtained" : "; no API key obtained";
  if (!o.signup_notes.empty()) s += "; " + o.signup_notes;
  return s;
}

std::string verification_text(const observation& o) {
  std::string s;
  for (const auto& v : o.verification) s += (s.empty() ? "" : ", ") + v;
  return s.empty() ? "none" : s;
}

std::string credits_text(const observation& o) {
  std::string s = "promised " + (o.credits_promised_usd ? usd(*o.credits_promised_usd) : std::string("none")) + ", received " +
                  (o.credits_received_usd ? usd(*o.credits_received_usd) : std::string("not known"));
  if (o.credits_promised_usd && o.credits_received_usd && *o.credits_received_usd < *o.credits_promised_usd)
    s += ": " + usd(*o.credits_promised_usd - *o.credits_received_usd) + " short of the promise";
  if (!o.credits_conditions.empty()) s += " (" + o.credits_conditions + ")";
  return s;
}

}  // namespace neograde::reports
