#include <neograde/core/finding.hpp>

#include <algorithm>

namespace neograde {

bool is_provider_condition(outcome o) noexcept {
  return o == outcome::no_capacity || o == outcome::quota || o == outcome::rate_limited || o == outcome::insufficient_funds;
}

namespace {

// A JSON mapping's word for `value`, and back, through the enum's own NLOHMANN_JSON_SERIALIZE_ENUM
// (its first entry, `unknown`, for a word it does not know).
template <class E>
std::string word_of(E value) {
  return nlohmann::json(value).template get<std::string>();
}

template <class E>
E from_word(std::string_view word) noexcept {
  try {
    return nlohmann::json(std::string(word)).template get<E>();
  } catch (...) {
    return E{};
  }
}

}  // namespace

outcome outcome_from_string(std::string_view word) noexcept { return from_word<outcome>(word); }
severity severity_from_string(std::string_view word) noexcept { return from_word<severity>(word); }
std::string to_string(outcome o) { return word_of(o); }
std::string to_string(severity s) { return word_of(s); }
std::string to_string(tier t) { return word_of(t); }

std::optional<tier> tier_from_string(std::string_view word) noexcept {
  const auto t = from_word<tier>(word);
  if (t == tier::not_graded && word != "Not graded") return std::nullopt;
  return t;
}

bool is_graded(outcome o) noexcept { return o == outcome::pass || o == outcome::warn || o == outcome::fail; }

bool is_finding(outcome o) noexcept { return o == outcome::fail || o == outcome::warn; }

std::optional<double> credit(outcome o) noexcept {
  switch (o) {
    case outcome::pass: return 1.0;
    case outcome::warn: return 0.5;
    case outcome::fail: return 0.0;
    default: return std::nullopt;
  }
}

std::optional<int> rank(outcome o) noexcept {
  switch (o) {
    case outcome::pass: return 2;
    case outcome::warn: return 1;
    case outcome::fail: return 0;
    default: return std::nullopt;
  }
}

double weight(severity s) noexcept {
  switch (s) {
    case severity::critical: return 8;
    case severity::high: return 4;
    case severity::medium: return 2;
    default: return 1;
  }
}

int severity_rank(severity s) noexcept { return s == severity::unknown ? 4 : static_cast<int>(s) - 1; }

tier tier_for(std::optional<double> score, bool critical_failure) noexcept {
  if (!score) return tier::not_graded;
  const auto t = *score >= 95   ? tier::platinum
                 : *score >= 85 ? tier::gold
                 : *score >= 70 ? tier::silver
                 : *score >= 50 ? tier::bronze
                                : tier::underperform;
  return critical_failure ? std::min(t, tier::bronze) : t;
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
