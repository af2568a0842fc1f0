#pragma once
// JSON Schema (draft 7) validation, on Debian's valijson. Valijson stays out of this header.

#include <nlohmann/json.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace neograde {

struct schema_violation {
  std::string pointer;  // JSON pointer into the validated document
  std::string message;
};

class json_schema {
 public:
  // Throws std::invalid_argument if `schema` is not a usable schema.
  explicit json_schema(const nlohmann::json& schema);
  ~json_schema();
  json_schema(const json_schema&);
  json_schema& operator=(const json_schema&);
  json_schema(json_schema&&) noexcept;
  json_schema& operator=(json_schema&&) noexcept;

  [[nodiscard]] std::vector<schema_violation> validate(const nlohmann::json& doc) const;

 private:
  struct impl;
  std::shared_ptr<const impl> impl_;
};

// The local references of `schema` ("#/definitions/Loop") that reach themselves without reading
// anything of a document: $ref to $ref, through allOf, anyOf, oneOf, not, if, then and else. A
// validator following one never ends (valijson overflows its stack), so json_schema refuses them.
[[nodiscard]] std::set<std::string> endless_references(const nlohmann::json& schema);

}  // namespace neograde
