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
