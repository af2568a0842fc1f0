#pragma once
// Checks, their outcomes and the evidence behind them. A failed check is data, not an exception.

#include <neograde/core/check_needs.hpp>
#include <neograde/core/evidence.hpp>
#include <neograde/core/http_message.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace neograde {

enum class severity { unknown, critical, high, medium, low };
NLOHMANN_JSON_SERIALIZE_ENUM(severity, {
                                           {severity::unknown, "unknown"},
                                           {severity::critical, "critical"},
                                           {severity::high, "high"},
                                           {severity::medium, "medium"},
                                           {severity::low, "low"},
                                       })

enum class requirement_level { unknown, must, should };
NLOHMANN_JSON_SERIALIZE_ENUM(requirement_level, {
                                                    {requirement_level::unknown, "unknown"},
                                                    {requirement_level::must, "MUST"},
                                                    {requirement_level::should, "SHOULD"},
                                                })

// pass/fail/warn/errored/skipped as Bowtie and Autobahn keep them apart; no_capacity, quota and
// rate_limited are provider conditions, not defects (PerfKitBenchmarker's statuses).
enum class outcome { unknown, pass, fail, warn, errored, skipped, no_capacity, quota, rate_limited, insufficient_funds };
NLOHMANN_JSON_SERIALIZE_ENUM(outcome, {
                                          {outcome::unknown, "unknown"},
                                          {outcome::pass, "pass"},
                                          {outcome::fail, "fail"},
                                          {outcome::warn, "warn"},
                                          {outcome::errored, "errored"},
                                          {outcome::skipped, "skipped"},
                                          {outcome::no_capacity, "no_capacity"},
                                          {outcome::quota, "quota"},
                                          {outcome::rate_limited, "rate_limited"},
                                          {outcome::insufficient_funds, "insufficient_funds"},
                                      })

// Where the results come from. Every output states it.
enum class result_source { unknown, emulated, live, replay };
NLOHMANN_JSON_SERIALIZE_ENUM(result_source, {
                                                {result_source::unknown, "unknown"},
                                                {result_source::emulated, "emulated"},
                                                {result_source::live, "live"},
                                                {result_source::replay, "replay"},
                                            })

struct check_descriptor {
  std::string id;  // <area>.<resource>.<behaviour>, never reused
  std::string category;
  severity level = severity::unknown;
  requirement_level requirement = requirement_level::unknown;
  std::string description;  // present tense, an action
  std::string requirement_text;
  std::string source;  // RFC section, provider doc, or the incident it comes from
  std::string quirk;   // the emulator quirk that makes it fail
  // What it needs to be judged, in the order the run asks (the first unmet one is the skip's
  // reason): conformance/needs.hpp decides them. Not serialised: a property of the catalogue.
  std::vector<check_need> needs;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(check_descriptor, id, category, level, requirement, description, requirement_text, source, quirk)

// One HTTP request and its response (or transport error), already redacted, its bodies bounded
// (bound_bodies).
struct exchange {
  std::string method;
  std::string url;
  header_list request_headers;
  std::string request_body;
  int status = 0;  // 0 when no response arrived
  header_list response_headers;
  std::string response_body;
  double duration_ms = 0;
  std::string error;  // transport error, if any
  // What the request gets wrong on purpose (a negative test: "without credentials", "a
  // non-object JSON body"); empty for a request meant to be valid. Lets a reader, and
  // scripts/check-against-openapi, tell a deliberate contract violation from a defect of ours.
  std::string deliberate;
  // What request_body and response_body do not show (core/evidence.hpp): set when a body was cut
  // or is binary.
  std::optional<body_digest> request_body_digest;
  std::optional<body_digest> response_body_digest;
};
// `deliberate` and the digests are written only when set, so that ordinary evidence keeps its nine
// members.
void to_json(nlohmann::json& j, const exchange& e);
void from_json(const nlohmann::json& j, exchange& e);

// Bounds both bodies of `e` as keep_body does (a body already bounded is left as it is): what the
// HTTP client does to every exchange it keeps, so that evidence, transcripts and the files made of
// them stay bounded whatever a provider sends.
void bound_bodies(exchange& e, const body_limits& limits = {});

struct check_outcome {
  std::string check_id;
  outcome result = outcome::unknown;
  std::string reason;
  double duration_ms = 0;
  std::vector<exchange> evidence;
  nlohmann::json measurements = nlohmann::json::object();
  std::string reproduce;  // a one-line curl command replaying the deciding request (failures)
};

[[nodiscard]] bool is_provider_condition(outcome o) noexcept;

}  // namespace neograde
