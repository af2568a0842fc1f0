#pragma once
// Judgements on one response that conformance checks and the API fuzzer share: is it a provider
// condition rather than a defect, does it show internal details, is it a well-formed error of
// this provider, is its error code documented.

#include <neograde/clients/provider_client.hpp>
#include <neograde/core/json_schema.hpp>

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace neograde {

// no_capacity, quota or rate_limited when the response says so; these are not defects.
[[nodiscard]] std::optional<outcome> provider_condition(const call_result& r, const provider_spec& spec);

// Whether an error blames the run's configuration, not the provider (errors.configuration_messages:
// Spheron's "Team ID is required for authenticated deployments" when no team id was given).
[[nodiscard]] bool blames_configuration(const call_result& r, const provider_spec& spec);

// What a response body must never show (CWE-209): a stack trace, a source path, an SQL error.
// Returns the marker found.
[[nodiscard]] std::optional<std::string> internal_detail(std::string_view body);

// application/json, anything +json, or the spec's own error media type.
[[nodiscard]] bool is_json_media(std::string_view content_type, const provider_spec& spec);

// An id of the same shape as `id` (digits stay digits, hex letters hex letters, the first
// character kept) that differs from it: a well-formed id that names none of ours, so that an API
// which refuses malformed ids (Vast.ai's 400 for a non-integer id) answers it as it answers a
// missing instance.
[[nodiscard]] std::string absent_like(std::string id);

// The spec's error conventions, compiled once.
class error_oracle {
 public:
  explicit error_oracle(const provider_spec& spec);
  // Why a response is not a well-formed error of this provider (content type, envelope), if not.
  [[nodiscard]] std::optional<std::string> envelope_problem(const call_result& r) const;
  // The codes the spec documents; empty when the provider's errors carry only a message.
  [[nodiscard]] const std::set<std::string>& documented_codes() const { return codes_; }
  // The error code of a response, when the provider documents codes and this one is not one.
  [[nodiscard]] std::optional<std::string> undocumented_code(const call_result& r) const;

 private:
  const provider_spec& spec_;
  json_schema envelope_;
  std::set<std::string> codes_;
};

}  // namespace neograde
