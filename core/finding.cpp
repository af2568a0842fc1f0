#include <neograde/core/finding.hpp>

namespace neograde {

bool is_provider_condition(outcome o) noexcept {
  return o == outcome::no_capacity || o == outcome::quota || o == outcome::rate_limited || o == outcome::insufficient_funds;
}

void to_json(nlohmann::json& j, const exchange& e) {
  j = nlohmann::json{{"method", e.method},
                     {"url", e.url},
                     {"request_headers", e.request_headers},
                     {"request_body", e.request_body},
                     {"status", e.status},
                     {"response_headers", e.response_headers},
                     {"response_body", e.response_body},
                     {"duration_ms", e.duration_ms},
                     {"error", e.error}};
  if (!e.deliberate.empty()) j["deliberate"] = e.deliberate;
  if (e.request_body_digest) j["request_body_digest"] = *e.request_body_digest;
  if (e.response_body_digest) j["response_body_digest"] = *e.response_body_digest;
}

void from_json(const nlohmann::json& j, exchange& e) {
  j.at("method").get_to(e.method);
  j.at("url").get_to(e.url);
  j.at("request_headers").get_to(e.request_headers);
  j.at("request_body").get_to(e.request_body);
  j.at("status").get_to(e.status);
  j.at("response_headers").get_to(e.response_headers);
  j.at("response_body").get_to(e.response_body);
  j.at("duration_ms").get_to(e.duration_ms);
  j.at("error").get_to(e.error);
  e.deliberate = j.value("deliberate", "");
  if (j.contains("request_body_digest")) e.request_body_digest = j.at("request_body_digest").get<body_digest>();
  if (j.contains("response_body_digest")) e.response_body_digest = j.at("response_body_digest").get<body_digest>();
}

void bound_bodies(exchange& e, const body_limits& limits) {
  if (!e.request_body_digest) e.request_body_digest = keep_body(e.request_body, e.request_headers, limits);
  if (!e.response_body_digest) e.response_body_digest = keep_body(e.response_body, e.response_headers, limits);
}

}  // namespace neograde
