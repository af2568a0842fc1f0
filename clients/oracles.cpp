#include <neograde/clients/oracles.hpp>

#include <neograde/core/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace neograde {
namespace {
// ASCII lowering, as std::tolower does in the C locale this program runs in.
char lower_char(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower_char);
  return out;
}
}  // namespace

std::optional<outcome> provider_condition(const call_result& r, const provider_spec& spec) {
  if (r.status() == 429) return outcome::rate_limited;
  if (!r.error) return std::nullopt;
  const auto& code = r.error->code;
  auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), code) != v.end(); };
  if (has(spec.errors.no_capacity_codes)) return outcome::no_capacity;
  // A capacity refusal known by its message (a provider whose code is generic).
  const auto message = lower(r.error->message);
  for (const auto& part : spec.errors.no_capacity_messages)
    if (!part.empty() && message.find(lower(part)) != std::string::npos) return outcome::no_capacity;
  if (has(spec.errors.funds_codes)) return outcome::insufficient_funds;
  for (const auto& part : spec.errors.funds_messages)
    if (!part.empty() && message.find(lower(part)) != std::string::npos) return outcome::insufficient_funds;
  if (has(spec.errors.quota_codes)) return outcome::quota;
  // The spec's error kinds: a kind is recognised by its message, or by its code when no other
  // kind shares that code (RunPod answers capacity and validation errors both "Bad Request").
  auto is_kind = [&](const char* name) {
    auto it = spec.errors.kinds.find(name);
    if (it == spec.errors.kinds.end() || it->second.status != r.status()) return false;
    const auto& k = it->second;
    if (!k.message.empty() && r.error->message == k.message) return true;
    if (k.code.empty() || k.code != code) return false;
    return std::none_of(spec.errors.kinds.begin(), spec.errors.kinds.end(),
                        [&](const auto& other) { return other.first != name && other.second.code == k.code; });
  };
  if (is_kind("insufficient_capacity")) return outcome::no_capacity;
  if (is_kind("insufficient_funds")) return outcome::insufficient_funds;
  if (is_kind("quota_exceeded")) return outcome::quota;
  return std::nullopt;
}

bool blames_configuration(const call_result& r, const provider_spec& spec) {
  if (!r.error) return false;
  const auto message = lower(r.error->message);
  return std::any_of(spec.errors.configuration_messages.begin(), spec.errors.configuration_messages.end(),
                     [&](const auto& part) { return !part.empty() && message.find(lower(part)) != std::string::npos; });
}

std::optional<std::string> internal_detail(std::string_view body) {
  static constexpr std::array<std::string_view, 16> markers{"traceback (most recent call last)",
                                                            "exception in thread",
                                                            "at java.",
                                                            "at org.",
                                                            ".py\", line",
                                                            "goroutine ",
                                                            "panic: ",
                                                            "nullpointerexception",
                                                            "/usr/src/",
                                                            "/srv/",
                                                            "/var/www/",
                                                            "/home/",
                                                            "sqlstate",
                                                            "psycopg2",
                                                            "you have an error in your sql syntax",
                                                            "ora-0"};
  if (auto m = find_any_ignoring_case(body, markers)) return std::string(*m);
  return std::nullopt;
}

bool is_json_media(std::string_view content_type, const provider_spec& spec) {
  auto media = lower(content_type.substr(0, content_type.find(';')));
  while (!media.empty() && media.back() == ' ') media.pop_back();
  return media == "application/json" || media.ends_with("+json") || media == lower(spec.errors.content_type);
}

error_oracle::error_oracle(const provider_spec& spec) : spec_(spec), envelope_(spec.errors.envelope_schema) {
  for (const auto& [name, k] : spec.errors.kinds)
    if (!k.code.empty()) codes_.insert(k.code);
  codes_.insert(spec.errors.no_capacity_codes.begin(), spec.errors.no_capacity_codes.end());
  codes_.insert(spec.errors.quota_codes.begin(), spec.errors.quota_codes.end());
  if (spec.errors.code_pointer == spec.errors.message_pointer) codes_.clear();
}

std::optional<std::string> error_oracle::envelope_problem(const call_result& r) const {
  if (!r.response) return "no response: " + r.describe();
  if (!is_json_media(r.content_type(), spec_)) return "content type is \"" + r.content_type() + "\", not JSON";
  if (!r.json) return "the body is not valid JSON";
  auto violations = envelope_.validate(*r.json);
  if (violations.empty()) return std::nullopt;
  const auto& v = violations.front();
  return "the body does not match the error envelope at \"" + v.pointer + "\": " + v.message;
}

std::optional<std::string> error_oracle::undocumented_code(const call_result& r) const {
  if (codes_.empty() || !r.error || r.error->code.empty() || codes_.contains(r.error->code)) return std::nullopt;
  return r.error->code;
}

std::string absent_like(std::string id) {
  // Rotate the last four letters or digits within their class.
  int changed = 0;
  for (auto i = id.size(); i > 1 && changed < 4; --i) {
    auto& c = id[i - 1];
    if (c >= '0' && c <= '9') c = static_cast<char>('0' + (c - '0' + 5) % 10);
    else if (c >= 'a' && c <= 'f')
      c = static_cast<char>('a' + (c - 'a' + 3) % 6);
    else if (c >= 'A' && c <= 'F')
      c = static_cast<char>('A' + (c - 'A' + 3) % 6);
    else if (c >= 'g' && c <= 'z')
      c = static_cast<char>('g' + (c - 'g' + 10) % 20);
    else if (c >= 'G' && c <= 'Z')
      c = static_cast<char>('G' + (c - 'G' + 10) % 20);
    else
      continue;
    ++changed;
  }
  if (changed == 0) id += "-neograde-none";
  return id;
}

}  // namespace neograde
