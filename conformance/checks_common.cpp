#include "context.hpp"

#include <algorithm>

namespace neograde::conformance::detail {

check_outcome make(std::string id, outcome result, std::string reason, std::vector<exchange> evidence) {
  check_outcome o;
  o.check_id = std::move(id);
  o.result = result;
  o.reason = std::move(reason);
  o.evidence = std::move(evidence);
  return o;
}

check_outcome not_applicable(std::string id, const std::string& why) {
  return make(std::move(id), outcome::skipped, "not applicable: " + why);
}

check_outcome expect_4xx(std::string id, const call_result& r, const std::string& what) {
  if (!r.response) return make(std::move(id), outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 429) return make(std::move(id), outcome::rate_limited, r.describe(), {r.evidence});
  if (is_client_error(r)) return make(std::move(id), outcome::pass, "HTTP " + std::to_string(r.status()), {r.evidence});
  return make(std::move(id), outcome::fail, what + " got HTTP " + std::to_string(r.status()) + ", expected 4xx", {r.evidence});
}

std::optional<outcome> provider_condition(const call_result& r, const provider_spec& spec) {
  if (r.status() == 429) return outcome::rate_limited;
  if (!r.error) return std::nullopt;
  const auto& code = r.error->code;
  if (code.empty()) return std::nullopt;
  auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), code) != v.end(); };
  if (has(spec.errors.no_capacity_codes)) return outcome::no_capacity;
  if (has(spec.errors.quota_codes)) return outcome::quota;
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> launchable_offer(context& ctx, const std::vector<std::string>& skip) {
  auto offers = ctx.client.list_offers();
  if (!offers.value) return std::nullopt;
  // Offers without a region field are taken as available where the spec's "region" variable
  // says (or wherever the provider places them).
  const bool offers_have_regions = ctx.spec.offer_fields.contains("regions_available");
  std::optional<offer> chosen;
  for (auto o : *offers.value) {
    if (std::find(skip.begin(), skip.end(), o.instance_type) != skip.end()) continue;
    if (!offers_have_regions) {
      auto it = ctx.spec.variables.find("region");
      o.regions_available = {it == ctx.spec.variables.end() ? std::string() : it->second};
    }
    if (o.regions_available.empty()) continue;
    if (!chosen || o.price_per_hour_usd.value_or(1e9) < chosen->price_per_hour_usd.value_or(1e9)) chosen = o;
  }
  if (!chosen) return std::nullopt;
  return std::pair{chosen->instance_type, chosen->regions_available.front()};
}

bool is_client_error(const call_result& r) { return r.status() >= 400 && r.status() < 500; }

std::optional<std::string> envelope_problem(const call_result& r, const context& ctx) {
  const auto& spec = ctx.spec;
  if (!r.response) return "no response: " + r.describe();
  std::string media = r.content_type();
  media = media.substr(0, media.find(';'));
  std::transform(media.begin(), media.end(), media.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool json_type = media == spec.errors.content_type || media == "application/json" || media.ends_with("+json");
  if (!json_type) return "content type is \"" + r.content_type() + "\", not JSON";
  if (!r.json) return "the body is not valid JSON";
  auto violations = ctx.envelope.validate(*r.json);
  if (violations.empty()) return std::nullopt;
  const auto& v = violations.front();
  return "the body does not match the error envelope at \"" + v.pointer + "\": " + v.message;
}

}  // namespace neograde::conformance::detail
