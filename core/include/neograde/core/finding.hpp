#pragma once
// Checks, their outcomes and the evidence behind them. A failed check is data, not an exception.

#include <neograde/core/check_needs.hpp>
#include <neograde/core/evidence.hpp>
#include <neograde/core/http_message.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
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

// The words a results file writes (the JSON mappings above), read back: a word these enums do
// not know is `unknown`, so that a hand-edited or newer file is noticed rather than misread.
[[nodiscard]] outcome outcome_from_string(std::string_view word) noexcept;
[[nodiscard]] severity severity_from_string(std::string_view word) noexcept;
[[nodiscard]] std::string to_string(outcome o);
[[nodiscard]] std::string to_string(severity s);

// Every outcome a check can have, in the order a reader sees them: graded, then not graded, then
// the provider conditions.
inline constexpr std::array<outcome, 9> reported_outcomes{
    outcome::pass,        outcome::fail,        outcome::warn,  outcome::errored,
    outcome::skipped,     outcome::no_capacity, outcome::quota, outcome::insufficient_funds,
    outcome::rate_limited};

// pass, warn and fail say something about conformance and are graded; errored (the harness broke),
// skipped and the provider conditions are counted but not graded (reports/README.md, Grading).
[[nodiscard]] bool is_graded(outcome o) noexcept;
// fail and warn: a finding a reader is shown with its evidence.
[[nodiscard]] bool is_finding(outcome o) noexcept;
// The share of a check's weight a graded outcome earns: pass 1, warn 0.5, fail 0; none when not graded.
[[nodiscard]] std::optional<double> credit(outcome o) noexcept;
// Graded outcomes from worst to best, for telling a regression from an improvement: fail 0, warn 1,
// pass 2; none when not graded.
[[nodiscard]] std::optional<int> rank(outcome o) noexcept;
// A check's weight in the score: critical 8, high 4, medium 2, low (and unknown) 1.
[[nodiscard]] double weight(severity s) noexcept;
// Severities from gravest to mildest: critical 0, high 1, medium 2, low 3, unknown 4.
[[nodiscard]] int severity_rank(severity s) noexcept;

// A scorecard's tier, from its score (reports/README.md, Grading); `not_graded` when nothing was graded.
enum class tier { not_graded, underperform, bronze, silver, gold, platinum };
NLOHMANN_JSON_SERIALIZE_ENUM(tier, {
                                       {tier::not_graded, "Not graded"},
                                       {tier::underperform, "Underperform"},
                                       {tier::bronze, "Bronze"},
                                       {tier::silver, "Silver"},
                                       {tier::gold, "Gold"},
                                       {tier::platinum, "Platinum"},
                                   })
[[nodiscard]] std::string to_string(tier t);
// The tier a word names; none for a word that names none.
[[nodiscard]] std::optional<tier> tier_from_string(std::string_view word) noexcept;
// Platinum from 95, Gold from 85, Silver from 70, Bronze from 50, else Underperform; a critical
// failure (auth bypass, instances left billing, ...) caps it at Bronze. No score: not graded.
[[nodiscard]] tier tier_for(std::optional<double> score, bool critical_failure = false) noexcept;

// Where the results come from. Every output states it.
enum class result_source { unknown, emulated, live, replay };
NLOHMANN_JSON_SERIALIZE_ENUM(result_source, {
                                                {result_source::unknown, "unknown"},
                                                {result_source::emulated, "emulated"},
                                                {result_source::live, "live"},
                                                {result_source::replay, "replay"},
                                            })

// Which step of the run decides a check. The lifecycle decides every check of its stage whatever
// step it ends at (each gets an outcome); the others are decided by their own step.
enum class check_stage { own_step, lifecycle };

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
  check_stage stage = check_stage::own_step;  // not serialised either
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
