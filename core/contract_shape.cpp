#include <neograde/core/contract_shape.hpp>

#include <neograde/core/json_util.hpp>

namespace neograde::measurement {
namespace {

using nlohmann::json;

// The strings of an array member, as a set (anything else in it is ignored).
std::set<std::string> strings(const json& j, const char* key) {
  std::set<std::string> out;
  if (!j.is_object() || !j.contains(key) || !j[key].is_array()) return out;
  for (const auto& e : j[key])
    if (e.is_string()) out.insert(e.get<std::string>());
  return out;
}

bool flag(const json& j, const char* key) { return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); }

// Text cut to at most `bytes`, at a UTF-8 character boundary.
std::string cut(const std::string& s, std::size_t bytes) {
  if (s.size() <= bytes) return s;
  std::size_t n = bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

}  // namespace

void to_json(json& j, const operation_shape& m) {
  j = {{"statuses", m.statuses}, {"fields", m.fields}};
  if (!m.types.empty()) j["types"] = m.types;
  if (m.fields_cut) j["fields_cut"] = true;
}

void from_json(const json& j, operation_shape& m) {
  m = {};
  if (j.is_object() && j.contains("statuses") && j["statuses"].is_array())
    for (const auto& s : j["statuses"])
      if (s.is_number_integer() && s.get<long long>() >= 0 && s.get<long long>() < 1000) m.statuses.insert(s.get<int>());
  m.fields = strings(j, "fields");
  if (j.is_object() && j.contains("types") && j["types"].is_object())
    for (const auto& [field, types] : j["types"].items())
      if (m.fields.contains(field))
        if (auto t = strings(json{{"t", types}}, "t"); !t.empty()) m.types[field] = std::move(t);
  m.fields_cut = flag(j, "fields_cut");
}

void to_json(json& j, const contract_shape& m) {
  j = {{"operations", m.operations}, {"status_words", m.status_words}};
  if (m.status_words_cut) j["status_words_cut"] = true;
}

void from_json(const json& j, contract_shape& m) {
  m = {};
  if (j.is_object() && j.contains("operations") && j["operations"].is_object())
    for (const auto& [name, op] : j["operations"].items())
      if (op.is_object()) m.operations[name] = op.get<operation_shape>();
  m.status_words = strings(j, "status_words");
  m.status_words_cut = flag(j, "status_words_cut");
}

void contract_recorder::answer(const std::string& operation, int status, const json* body, const std::optional<std::string>& keyed) {
  auto it = shape_.operations.find(operation);
  if (it == shape_.operations.end()) {
    if (shape_.operations.size() >= limits_.operations) return;
    it = shape_.operations.emplace(cut(operation, limits_.word_bytes), operation_shape{}).first;
  }
  auto& op = it->second;
  if (status > 0 && (op.statuses.contains(status) || op.statuses.size() < limits_.statuses_per_operation)) op.statuses.insert(status);
  if (body != nullptr && status >= 200 && status < 300) walk(op, *body, "", keyed, 0);
}

void contract_recorder::status_word(const std::string& word) {
  const auto w = cut(word, limits_.word_bytes);
  if (shape_.status_words.contains(w)) return;
  if (shape_.status_words.size() >= limits_.status_words) {
    shape_.status_words_cut = true;
    return;
  }
  shape_.status_words.insert(w);
}

// Every node is a field (objects and arrays too): a field that vanished is told from a container
// that was empty this time by whether its parent was seen (reports/drift.hpp).
void contract_recorder::walk(operation_shape& op, const json& node, const std::string& pointer, const std::optional<std::string>& keyed,
                             std::size_t depth) {
  if (pointer.size() > limits_.field_bytes) return;
  if (!op.fields.contains(pointer)) {
    if (op.fields.size() >= limits_.fields_per_operation) {
      op.fields_cut = true;
      return;
    }
    op.fields.insert(pointer);
  }
  op.types[pointer].insert(node.type_name());  // six words at most: bounded as the fields are
  if (depth >= limits_.depth) return;
  if (node.is_array()) {
    for (const auto& e : node) walk(op, e, pointer + "/*", keyed, depth + 1);
  } else if (node.is_object()) {
    const bool by_key = keyed && pointer == *keyed;
    for (const auto& [k, v] : node.items()) walk(op, v, pointer + "/" + (by_key ? std::string("*") : pointer_escape(k)), keyed, depth + 1);
  }
}

}  // namespace neograde::measurement
