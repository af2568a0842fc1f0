#pragma once
// Reading a scorecard or a results record field by field, with each type checked: they are data
// (hand-edited, truncated, or sent by a rented instance), so a missing or wrong-typed field reads
// as null or empty and never throws. Private to reports/.

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

// The number as it was written (an integer stays one), or null.
inline json number_or_null(const json& j, const char* key) {
  return number(j, key) ? at(j, key) : json(nullptr);
}

inline bool flag(const json& j, const char* key) {
  const auto& f = at(j, key);
  return f.is_boolean() && f.get<bool>();
}

inline const json& array(const json& j, const char* key) {
  static const json empty = json::array();
  const auto& f = at(j, key);
  return f.is_array() ? f : empty;
}

inline const json& object(const json& j, const char* key) {
  static const json empty = json::object();
  const auto& f = at(j, key);
  return f.is_object() ? f : empty;
}

}  // namespace neograde::reports::fields
