#pragma once
// Reading a results record, or what a scorecard carries as recorded (measurements, evidence, the
// instance), field by field with each type checked: they are data (hand-edited, truncated, or sent
// by a rented instance), so a missing or wrong-typed field reads as null or empty and never
// throws. Private to reports/.

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>

namespace neograde::reports::fields {

using nlohmann::json;

inline const json& at(const json& j, const char* key) {
  static const json null_value;
  if (!j.is_object()) return null_value;
  const auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

inline std::string text(const json& j, const char* key) {
  const auto& f = at(j, key);
  return f.is_string() ? f.get<std::string>() : std::string();
}

inline std::optional<double> number(const json& j, const char* key) {
  const auto& f = at(j, key);
  if (!f.is_number()) return std::nullopt;
  const double v = f.get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

inline const json& as_array(const json& j) {
  static const json empty = json::array();
  return j.is_array() ? j : empty;
}

inline const json& as_object(const json& j) {
  static const json empty = json::object();
  return j.is_object() ? j : empty;
}

inline const json& array(const json& j, const char* key) { return as_array(at(j, key)); }

inline const json& object(const json& j, const char* key) { return as_object(at(j, key)); }

// Text for a Markdown table cell: `|` escaped, line breaks flattened.
inline std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// What an exchange's body does not show, from its digest (`request_body_digest` or
// `response_body_digest`, core/evidence.hpp), in words: "" when the body is whole.
inline std::string body_note(const json& exchange, const char* digest_key) {
  const auto& d = at(exchange, digest_key);
  if (!d.is_object()) return {};
  const auto bytes = number(d, "bytes"), kept = number(d, "kept_bytes");
  const auto count = [](const std::optional<double>& n) {
    return n ? std::to_string(static_cast<unsigned long long>(*n)) : std::string("?");
  };
  const auto sha = "SHA-256 " + text(d, "sha256");
  if (const auto binary = text(d, "binary"); !binary.empty())
    return "(binary body, " + binary + ": " + count(bytes) + " bytes, " + sha + "; its first " + count(kept) +
           " bytes in base64: " + text(d, "head_base64") + ")";
  return "(the first " + count(kept) + " of " + count(bytes) + " bytes kept; " + sha + ")";
}

}  // namespace neograde::reports::fields
