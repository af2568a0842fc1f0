#pragma once
// Negative inputs from a request schema: for a body a client sends, one body per constraint the
// schema declares on a value the body carries, violating that constraint and no other.

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace neograde {

struct schema_mutation {
  std::string pointer;     // where the violating value sits in the body (RFC 6901)
  std::string constraint;  // the keyword it violates: "maximum", "enum", "minLength"...
  nlohmann::json limit;    // the keyword's value in the schema
  nlohmann::json value;    // the value sent instead of the body's own
  nlohmann::json body;     // the whole body, with that one value replaced

  // "/quantity above its maximum 1 (2)"
  [[nodiscard]] std::string describe() const;
};

// The keywords constraint_mutations violates, in the order it tries them at one value.
[[nodiscard]] const std::vector<std::string>& mutated_keywords();

// One mutation per constraint (minimum, maximum, exclusiveMinimum, exclusiveMaximum, enum,
// const, minLength, maxLength, pattern, minItems, maxItems) that `schema` declares on a value
// `body` sends: through properties, additionalProperties and the first item of arrays (anyOf,
// oneOf and if/then are not walked). A value keeps its JSON type (an integer stays an integer),
// and a mutation the schema still accepts (the bound sits inside an alternative) is left out.
// The body's root itself is not mutated: a constraint on a property the body does not send is
// not tried. Throws std::invalid_argument if `schema` is not a usable schema.
[[nodiscard]] std::vector<schema_mutation> constraint_mutations(const nlohmann::json& schema, const nlohmann::json& body);

// `schema` with the given keywords removed wherever they constrain a value (the emulator's
// quirks skip some constraints this way).
[[nodiscard]] nlohmann::json without_keywords(const nlohmann::json& schema, const std::set<std::string>& keywords);

}  // namespace neograde
