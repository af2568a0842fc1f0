#include <neograde/core/schema_mutations.hpp>

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>

namespace neograde {

namespace {

// How long a value may be before describe() names its length instead of printing it.
constexpr std::size_t printable = 40;

// Code points of a UTF-8 string (JSON Schema lengths count characters, not bytes).
std::size_t length_of(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// A number just past a bound, of the body value's kind: an integer stays an integer.
nlohmann::json past(double bound, bool integer, bool below, bool exclusive) {
  if (integer) {
    // The nearest integer that breaks the bound: for `minimum 1`, 0; for `exclusiveMinimum 1`, 1.
    const double v =
        below ? (exclusive ? std::floor(bound) : std::ceil(bound) - 1) : (exclusive ? std::ceil(bound) : std::floor(bound) + 1);
    return static_cast<long long>(v);
  }
  if (exclusive) return bound;
  return below ? bound - 1 : bound + 1;
}

bool matches(const std::string& pattern, const std::string& s) {
  try {
    return std::regex_search(s, std::regex(pattern, std::regex::ECMAScript));
  } catch (const std::regex_error&) {
    return true;  // a pattern we cannot read is not tried
  }
}

// The value that breaks `keyword` of `schema` at `value`, when there is one that breaks it alone.
std::optional<nlohmann::json> breaking(const std::string& keyword, const nlohmann::json& schema, const nlohmann::json& value) {
  const auto& limit = schema.at(keyword);
  if (keyword == "minimum" || keyword == "maximum" || keyword == "exclusiveMinimum" || keyword == "exclusiveMaximum") {
    if (!value.is_number() || !limit.is_number()) return std::nullopt;
    const bool below = keyword == "minimum" || keyword == "exclusiveMinimum";
    return past(limit.get<double>(), value.is_number_integer(), below, keyword.starts_with("exclusive"));
  }
  if (keyword == "enum" || keyword == "const") {
    const auto allowed = keyword == "enum" ? limit : nlohmann::json::array({limit});
    if (!allowed.is_array() || allowed.empty()) return std::nullopt;
    auto outside = [&](const nlohmann::json& v) { return std::find(allowed.begin(), allowed.end(), v) == allowed.end(); };
    // A value of the body's own type where it can be one, so that only the keyword is broken.
    std::vector<nlohmann::json> candidates;
    if (value.is_string()) candidates = {value.get<std::string>() + "-neograde", "neograde-not-" + keyword};
    else if (value.is_number_integer())
      candidates = {value.get<long long>() + 1, value.get<long long>() - 1, 987654321};
    else if (value.is_number())
      candidates = {value.get<double>() + 1, value.get<double>() - 1};
    else if (value.is_boolean())
      candidates = {!value.get<bool>()};
    for (const auto& c : candidates)
      if (outside(c)) return c;
    return std::nullopt;
  }
  if (keyword == "minLength" || keyword == "maxLength" || keyword == "pattern") {
    if (!value.is_string()) return std::nullopt;
    const auto& s = value.get_ref<const std::string&>();
    if (keyword == "pattern") {
      if (!limit.is_string()) return std::nullopt;
      const auto min = schema.value("minLength", std::size_t{0});
      const auto max = schema.value("maxLength", std::string::npos);
      for (std::string c : {s + " !", std::string("!"), s + "\x01", std::string("neograde ~!"), std::string()})
        if (length_of(c) >= min && length_of(c) <= max && !matches(limit.get<std::string>(), c)) return c;
      return std::nullopt;
    }
    if (!limit.is_number_unsigned()) return std::nullopt;
    const auto n = limit.get<std::size_t>();
    if (keyword == "minLength") {
      if (n == 0) return std::nullopt;
      const bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
      return ascii && s.size() >= n - 1 ? s.substr(0, n - 1) : std::string(n - 1, 'n');
    }
    if (n >= 65536) return std::nullopt;  // not a body worth sending
    const auto have = length_of(s);
    return have > n ? s : s + std::string(n + 1 - have, 'n');
  }
  if (keyword == "minItems" || keyword == "maxItems") {
    if (!value.is_array() || !limit.is_number_unsigned()) return std::nullopt;
    const auto n = limit.get<std::size_t>();
    if (keyword == "minItems") {
      if (n == 0 || value.size() < n - 1) return std::nullopt;
      return nlohmann::json(std::vector<nlohmann::json>(value.begin(), value.begin() + static_cast<std::ptrdiff_t>(n - 1)));
    }
    if (n >= 1024 || value.empty()) return std::nullopt;
    auto more = value;
    while (more.size() <= n) more.push_back(value.back());
    return more;
  }
  return std::nullopt;
}

// How deep the walk follows references and combinations (a schema may refer to itself).
constexpr int max_depth = 32;

// The constraints the body's values meet, found where the schema states them: at the value's own
// subschema, through a local $ref ("#/definitions/Instance", as every drafted schema is written) and
// in the members of allOf, anyOf and oneOf (a mutation is kept only if the whole schema then refuses
// the body, so a branch another branch would accept is dropped).
void walk(const nlohmann::json& root, const nlohmann::json& schema, const nlohmann::json& value, const std::string& pointer,
          const nlohmann::json& body, std::vector<schema_mutation>& out, int depth = 0) {
  if (!schema.is_object() || depth > max_depth) return;
  if (const auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string() && ref->get<std::string>().starts_with("#"))
    if (const auto* target = find_pointer(root, ref->get<std::string>().substr(1)); target != nullptr)
      walk(root, *target, value, pointer, body, out, depth + 1);
  for (const char* many : {"allOf", "anyOf", "oneOf"})
    if (const auto branches = schema.find(many); branches != schema.end() && branches->is_array())
      for (const auto& branch : *branches) walk(root, branch, value, pointer, body, out, depth + 1);
  if (!pointer.empty())
    for (const auto& keyword : mutated_keywords()) {
      if (!schema.contains(keyword)) continue;
      auto broken = breaking(keyword, schema, value);
      if (!broken) continue;
      schema_mutation m{.pointer = pointer, .constraint = keyword, .limit = schema.at(keyword), .value = *broken, .body = body};
      set_pointer(m.body, pointer, *broken);
      out.push_back(std::move(m));
    }
  if (value.is_object()) {
    const auto* properties = schema.contains("properties") ? &schema.at("properties") : nullptr;
    const auto* additional = schema.contains("additionalProperties") ? &schema.at("additionalProperties") : nullptr;
    for (const auto& [key, member] : value.items()) {
      const auto at = pointer + "/" + pointer_escape(key);
      if (properties != nullptr && properties->is_object() && properties->contains(key))
        walk(root, properties->at(key), member, at, body, out, depth + 1);
      else if (additional != nullptr)
        walk(root, *additional, member, at, body, out, depth + 1);
    }
  } else if (value.is_array() && !value.empty() && schema.contains("items")) {
    walk(root, schema.at("items"), value.front(), pointer + "/0", body, out, depth + 1);
  }
}

// The keywords that hold subschemas, and how: one schema, an array of them, or a map of them.
void strip(nlohmann::json& schema, const std::set<std::string>& keywords) {
  if (!schema.is_object()) return;
  for (const auto& k : keywords) schema.erase(k);
  for (const char* one : {"additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames"})
    if (schema.contains(one)) {
      if (schema.at(one).is_array())
        for (auto& s : schema.at(one)) strip(s, keywords);
      else
        strip(schema.at(one), keywords);
    }
  for (const char* many : {"allOf", "anyOf", "oneOf"})
    if (schema.contains(many) && schema.at(many).is_array())
      for (auto& s : schema.at(many)) strip(s, keywords);
  for (const char* map : {"properties", "patternProperties", "definitions", "$defs"})
    if (schema.contains(map) && schema.at(map).is_object())
      for (auto& [name, s] : schema.at(map).items()) strip(s, keywords);
}

}  // namespace

const std::vector<std::string>& mutated_keywords() {
  static const std::vector<std::string> keywords{"minimum",   "maximum",   "exclusiveMinimum", "exclusiveMaximum", "enum",    "const",
                                                 "minLength", "maxLength", "pattern",          "minItems",         "maxItems"};
  return keywords;
}

std::string schema_mutation::describe() const {
  static const std::map<std::string, std::string> how{
      {"minimum", "below its minimum"},
      {"maximum", "above its maximum"},
      {"exclusiveMinimum", "at or below its exclusiveMinimum"},
      {"exclusiveMaximum", "at or above its exclusiveMaximum"},
      {"enum", "outside its enum"},
      {"const", "not its const"},
      {"minLength", "shorter than its minLength"},
      {"maxLength", "longer than its maxLength"},
      {"pattern", "not matching its pattern"},
      {"minItems", "with fewer than its minItems"},
      {"maxItems", "with more than its maxItems"},
  };
  const auto it = how.find(constraint);
  std::string out = (pointer.empty() ? "/" : pointer) + " " + (it == how.end() ? "breaking " + constraint : it->second);
  if (constraint != "enum" && constraint != "pattern") out += " " + dump_json(limit);
  const auto sent = dump_json(value);
  if (value.is_string() && length_of(value.get<std::string>()) > printable)
    out += " (a " + std::to_string(length_of(value.get<std::string>())) + "-character string)";
  else if (sent.size() > printable)
    out += " (" + std::to_string(value.size()) + (value.is_array() ? " items)" : " members)");
  else
    out += " (" + sent + ")";
  return out;
}

std::vector<schema_mutation> constraint_mutations(const nlohmann::json& schema, const nlohmann::json& body) {
  const json_schema compiled(schema);
  std::vector<schema_mutation> all;
  walk(schema, schema, body, "", body, all);
  std::vector<schema_mutation> out;
  for (auto& m : all) {
    // The same constraint reached twice (directly and through a $ref) is one mutation.
    const bool again = std::any_of(out.begin(), out.end(), [&](const auto& o) {
      return o.pointer == m.pointer && o.constraint == m.constraint && o.value == m.value;
    });
    if (!again && !compiled.validate(m.body).empty()) out.push_back(std::move(m));
  }
  return out;
}

nlohmann::json without_keywords(const nlohmann::json& schema, const std::set<std::string>& keywords) {
  auto out = schema;
  strip(out, keywords);
  return out;
}

}  // namespace neograde
