#include <neograde/core/json_schema.hpp>

#include <cmath>
#include <optional>

#include <neograde/core/json_util.hpp>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace neograde {

struct json_schema::impl {
  valijson::Schema schema;
  // A validator keeps the regular expressions it compiled (`pattern`, the date formats below) for
  // its next validation: kept with the schema, each is compiled once per schema, not once per
  // judged answer (SaladCloud's schemas: a fifth of a fuzz campaign's time was their compilation).
  // A validation that finds it in use on another thread uses a validator of its own.
  mutable std::mutex lock;
  mutable valijson::Validator validator{valijson::Validator::kStrongTypes};
};

namespace {
// Valijson checks `pattern` and the formats date, time and date-time with std::regex, whose
// matcher in libstdc++ recurses once per character: a 4 MiB string (a hostile body may be 16 MiB)
// overflowed the stack. And it reads a `format`'s value as a string whatever its type, throwing on
// any other: OpenAPI's "format": "int64" on an integer stopped a fuzz campaign on Hot Aisle's spec.
// So, before valijson sees a schema, each of these keywords is made to judge only strings, and
// only strings of at most regex_limit characters; a longer string fails, with the message below.
// The formats valijson does not check (int64, uuid, email...) are dropped: they never judged.
constexpr std::size_t regex_limit = 4096;
const std::string too_long_message = "String should be no more than " + std::to_string(regex_limit) + " characters in length.";

// Valijson also compiles a new std::regex for every string it checks against a date format (a list
// of fifty instances with three timestamps each: 150 compilations, a quarter of a fuzz campaign's
// time on SaladCloud's spec), while a `pattern`'s regex is kept by the validator (impl). So a date
// format is judged as a pattern with valijson's own expressions and its day-of-month rule (February
// up to 29, April, June, September and November up to 30), through a sentinel whose failure says
// which format missed: {"if": {"pattern": ...}, "else": {"minLength": sentinel}} on a string of at
// most regex_limit characters, whose message validate() turns back into valijson's.
struct date_format {
  const char* name;
  std::string pattern;
  std::size_t sentinel;
  std::string message;
};
const std::string date_re =
    "[0-9]+-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|[12][0-9]))";
const std::string time_re = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[Zz]|[+|-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
const std::vector<date_format>& date_formats() {
  static const std::vector<date_format> formats{
      {"date", "^" + date_re + "$", regex_limit + 1, "String should be a valid date"},
      {"time", "^" + time_re + "$", regex_limit + 2, "String should be a valid time"},
      {"date-time", "^" + date_re + "[Tt]" + time_re + "$", regex_limit + 3, "String should be a valid date-time"},
  };
  return formats;
}
std::string sentinel_message(std::size_t n) { return "String should be no fewer than " + std::to_string(n) + " characters in length."; }

void guard_regex_keywords(nlohmann::json& s) {
  if (!s.is_object()) return;
  const auto each = [](nlohmann::json& v) {
    if (v.is_array())
      for (auto& x : v) guard_regex_keywords(x);
    else
      guard_regex_keywords(v);
  };
  for (const char* one : {"additionalProperties", "items", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames",
                          "allOf", "anyOf", "oneOf"})
    if (const auto it = s.find(one); it != s.end()) each(*it);
  for (const char* map : {"properties", "patternProperties", "definitions", "$defs", "dependencies"})
    if (const auto it = s.find(map); it != s.end() && it->is_object())
      for (auto& v : *it) guard_regex_keywords(v);

  nlohmann::json judged = nlohmann::json::object();
  if (const auto f = s.find("format"); f != s.end()) {
    for (const auto& d : date_formats())
      if (f->is_string() && *f == d.name) judged["allOf"] = {{{"if", {{"pattern", d.pattern}}}, {"else", {{"minLength", d.sentinel}}}}};
    s.erase(f);
  }
  if (const auto p = s.find("pattern"); p != s.end()) {
    judged["pattern"] = *p;
    s.erase(p);
  }
  if (judged.empty()) return;
  if (!s.contains("allOf")) s["allOf"] = nlohmann::json::array();
  if (!s["allOf"].is_array()) return;  // not a schema: valijson's parser says so
  s["allOf"].push_back({{"if", {{"type", "string"}}},
                        {"then", {{"if", {{"maxLength", regex_limit}}}, {"then", judged}, {"else", {{"maxLength", regex_limit}}}}}});
}
}  // namespace

std::set<std::string> endless_references(const nlohmann::json& schema) {
  // The references a node reaches before reading anything: its own $ref, and those of the
  // subschemas that apply to the same value.
  std::function<void(const nlohmann::json&, std::set<std::string>&, int)> reached = [&](const nlohmann::json& n, std::set<std::string>& out,
                                                                                        int depth) {
    if (!n.is_object() || depth > 64) return;
    if (const auto r = n.find("$ref"); r != n.end() && r->is_string() && r->get<std::string>().starts_with("#"))
      out.insert(r->get<std::string>());
    for (const char* many : {"allOf", "anyOf", "oneOf"})
      if (const auto a = n.find(many); a != n.end() && a->is_array())
        for (const auto& b : *a) reached(b, out, depth + 1);
    for (const char* one : {"not", "if", "then", "else"})
      if (const auto x = n.find(one); x != n.end()) reached(*x, out, depth + 1);
  };
  std::map<std::string, std::set<std::string>> edges;  // reference -> the references its target reaches
  std::set<std::string> all;
  for_each_ref(schema, [&](const nlohmann::json& v, const std::string&) {
    if (const auto& ref = v.get_ref<const std::string&>(); ref.starts_with("#")) all.insert(ref);
  });
  for (const auto& ref : all)
    if (const auto* target = find_pointer(schema, std::string_view(ref).substr(1)); target != nullptr) reached(*target, edges[ref], 0);
  std::set<std::string> endless;
  for (const auto& start : all) {
    std::set<std::string> seen;
    std::vector<std::string> stack(edges[start].begin(), edges[start].end());
    while (!stack.empty()) {
      const auto n = stack.back();
      stack.pop_back();
      if (n == start) {
        endless.insert(start);
        break;
      }
      if (!seen.insert(n).second) continue;
      for (const auto& m : edges[n]) stack.push_back(m);
    }
  }
  return endless;
}

json_schema::json_schema(const nlohmann::json& given) {
  if (const auto endless = endless_references(given); !endless.empty())
    throw std::invalid_argument("invalid JSON schema: " + *endless.begin() +
                                " refers to itself without reading anything (a validation would never end)");
  auto p = std::make_shared<impl>();
  try {
    nlohmann::json schema = given;
    guard_regex_keywords(schema);
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(schema);
    parser.populateSchema(adapter, p->schema);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("invalid JSON schema: ") + e.what());
  }
  impl_ = std::move(p);
}

json_schema::~json_schema() = default;
json_schema::json_schema(const json_schema&) = default;
json_schema& json_schema::operator=(const json_schema&) = default;
json_schema::json_schema(json_schema&&) noexcept = default;
json_schema& json_schema::operator=(json_schema&&) noexcept = default;

namespace {
// Valijson names a location as a list like {"<root>", "[operations]", "[0]"}; turn it into an
// RFC 6901 pointer.
std::string context_to_pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    std::string seg = part;
    if (seg.size() >= 2 && seg.front() == '[' && seg.back() == ']') seg = seg.substr(1, seg.size() - 2);
    if (seg.size() >= 2 && seg.front() == '"' && seg.back() == '"') seg = seg.substr(1, seg.size() - 2);
    out += '/';
    out += pointer_escape(seg);
  }
  return out;
}
}  // namespace

namespace {
// Valijson converts doubles to int64_t for multipleOf, which is undefined behaviour beyond the
// int64 range (found by fuzzing). Such magnitudes are clamped to 9e18 for validation: the type
// stays a number, and every comparison with a limit below 9e18 keeps its answer.
constexpr double clamp_at = 9e18;

bool needs_clamp(const nlohmann::json& doc) {
  if (doc.is_number_float()) return !(std::abs(doc.get<double>()) < clamp_at);
  if (doc.is_structured())
    for (const auto& v : doc)
      if (needs_clamp(v)) return true;
  return false;
}

void clamp(nlohmann::json& doc) {
  if (doc.is_number_float()) {
    const double d = doc.get<double>();
    if (!(std::abs(d) < clamp_at)) doc = std::signbit(d) ? -clamp_at : clamp_at;
  } else if (doc.is_structured()) {
    for (auto& v : doc) clamp(v);
  }
}
}  // namespace

std::vector<schema_violation> json_schema::validate(const nlohmann::json& given) const {
  std::optional<nlohmann::json> clamped;
  if (needs_clamp(given)) clamp(clamped.emplace(given));
  const nlohmann::json& doc = clamped ? *clamped : given;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  std::vector<schema_violation> out;
  bool valid = false;
  if (std::unique_lock held(impl_->lock, std::try_to_lock); held) {
    valid = impl_->validator.validate(impl_->schema, adapter, &results);
  } else {
    valijson::Validator own(valijson::Validator::kStrongTypes);
    valid = own.validate(impl_->schema, adapter, &results);
  }
  if (valid) return out;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    if (error.description == too_long_message)
      error.description = "a string longer than " + std::to_string(regex_limit) +
                          " characters where the schema sets a pattern or a date format, which neograde does not match "
                          "against so long a string (its regular expressions recurse once per character)";
    for (const auto& d : date_formats())
      if (error.description == sentinel_message(d.sentinel)) error.description = d.message;
    out.push_back({context_to_pointer(error.context), error.description});
  }
  // Valijson reports the outermost failure first; the innermost one is the most useful.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pointer.size() > b.pointer.size(); });
  return out;
}

}  // namespace neograde
