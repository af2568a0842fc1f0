#pragma once
// A parser for the executable part of GraphQL (October 2021 spec, §2): operations, selection
// sets with aliases and arguments, variables, and fragments (expanded where they are spread).
// The emulator reads real clients' queries with it: arguments written inline or as variables,
// and exactly the fields a client selects. Type system definitions and directives' meaning are
// out of scope (directives are parsed and dropped).

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neograde::graphql {

struct field {
  std::string alias;  // "" without one
  std::string name;
  // Argument values as JSON: enum values as strings, a variable as {"$variable": "name"} (a key
  // no GraphQL object can have); resolve() substitutes them.
  nlohmann::json arguments = nlohmann::json::object();
  std::vector<field> selections;  // fragments already expanded
  [[nodiscard]] const std::string& response_key() const { return alias.empty() ? name : alias; }
};

struct operation {
  std::string type = "query";  // query | mutation | subscription
  std::string name;            // "" for an anonymous operation
  std::vector<field> selections;
};

struct document {
  std::vector<operation> operations;
  // The operation a request runs: the one named `name`, or the only one when `name` is empty.
  [[nodiscard]] const operation* find(const std::string& name = {}) const;
};

struct parse_result {
  std::optional<document> doc;
  std::string error;  // "at offset N: ..." when doc is empty
};

// Nesting (selections, lists, objects, fragment spreads) deeper than `max_depth` is an error,
// not a stack overflow.
[[nodiscard]] parse_result parse(std::string_view text, int max_depth = 64);

// `value` with every {"$variable": name} replaced by variables[name] (null when not given).
[[nodiscard]] nlohmann::json resolve(const nlohmann::json& value, const nlohmann::json& variables);

// `data` cut down to `selections`: each selected field under its response key (alias), nested
// selections applied to objects and to each element of arrays. A selected field `data` lacks is
// answered null, as a GraphQL server answers every selected field (a client reading
// pod["costPerHr"] gets None, not a KeyError). `data` that is not an object is returned as it is.
[[nodiscard]] nlohmann::json select(const nlohmann::json& data, const std::vector<field>& selections);

}  // namespace neograde::graphql
