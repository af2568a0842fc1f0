#pragma once
// The contract a run met, kept so that a history can tell when a provider's API drifted (issue
// 40.3): per operation, the HTTP statuses it answered and the JSON fields of its successful
// answers; the instance status words read. A footer measurement (`contract_shape`), written by a
// conformance run and compared between runs by reports/drift.hpp.
//
// The provider decides what its answers hold, so the record is bounded (contract_limits): fields
// are JSON pointers with array indices and keyed collections written "*" (the items, not their
// ids or names), nested at most `depth` deep, each at most `field_bytes` long, at most
// `fields_per_operation` of them; and so on for statuses and words. What a bound left out is said
// (`fields_cut`, `status_words_cut`), never silently dropped. As every measurement, reading one
// back never throws: a wrong-typed member reads as empty.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace neograde::measurement {

struct operation_shape {
  std::set<int> statuses;        // the HTTP statuses the operation answered (no transport errors)
  std::set<std::string> fields;  // JSON pointers in its successful answers, "" for the root, "*" for items
  // The JSON types each field was read with (object, array, string, number, boolean, null; an
  // integer and a fraction are both number), for the fields kept.
  std::map<std::string, std::set<std::string>> types;
  bool fields_cut = false;  // more fields than the bound: the rest were not kept
  friend bool operator==(const operation_shape&, const operation_shape&) = default;
};

struct contract_shape {
  static constexpr const char* key = "contract_shape";
  std::map<std::string, operation_shape> operations;  // by operation (list_offers, launch, get, ...)
  std::set<std::string> status_words;                 // the instance status words read, as the provider wrote them
  bool status_words_cut = false;
  friend bool operator==(const contract_shape&, const contract_shape&) = default;
};
void to_json(nlohmann::json& j, const operation_shape& m);
void from_json(const nlohmann::json& j, operation_shape& m);
void to_json(nlohmann::json& j, const contract_shape& m);
void from_json(const nlohmann::json& j, contract_shape& m);

struct contract_limits {
  std::size_t operations = 32;
  std::size_t statuses_per_operation = 16;
  std::size_t fields_per_operation = 160;
  std::size_t field_bytes = 160;
  std::size_t depth = 8;  // members nested deeper are not walked
  std::size_t status_words = 48;
  std::size_t word_bytes = 64;
};

// Builds a contract_shape from a run's answers, within the limits (the whole record stays within
// a few tens of kilobytes whatever the provider answers).
class contract_recorder {
 public:
  explicit contract_recorder(contract_limits limits = {}) : limits_(limits) {}
  // One answer of `operation`: its status, and its parsed body when it succeeded (null: none or
  // not JSON). `keyed` is the pointer of a collection that is an object keyed by id or name (the
  // spec's items with items_are_object_values): its keys are written "*".
  void answer(const std::string& operation, int status, const nlohmann::json* body, const std::optional<std::string>& keyed = std::nullopt);
  void status_word(const std::string& word);
  [[nodiscard]] const contract_shape& shape() const { return shape_; }

 private:
  void walk(operation_shape& op, const nlohmann::json& node, const std::string& pointer, const std::optional<std::string>& keyed,
            std::size_t depth);
  contract_limits limits_;
  contract_shape shape_;
};

}  // namespace neograde::measurement
