// GraphQL requests: the operation the client's own query runs, its arguments (inline or as
// variables), the fields it selects, the list filters the live API applies, and the static
// catalogue roots served beside (or without) an operation.

#include "model_impl.hpp"

#include <neograde/core/json_util.hpp>

#include <algorithm>

namespace neograde::emulator {

// The GraphQL operation a client's request runs (by operationName, else its only one).
std::optional<graphql::operation> client_operation(const nlohmann::json& body) {
  const auto* q = find_pointer(body, "/query");
  if (q == nullptr || !q->is_string()) return std::nullopt;
  auto parsed = graphql::parse(q->get_ref<const std::string&>());
  if (!parsed.doc) return std::nullopt;
  const auto* name = find_pointer(body, "/operationName");
  const auto* operation = parsed.doc->find(name != nullptr && name->is_string() ? name->get<std::string>() : std::string());
  if (operation == nullptr) return std::nullopt;
  return *operation;
}

// The root field of the client's operation that asks for the spec's operation, by its name.
std::optional<graphql::field> root_field(const operation_spec& op, const graphql::operation& operation) {
  for (const auto& f : operation.selections)
    if (f.name == *op.graphql_operation) return f;
  return std::nullopt;
}

// The variable the spec's own query passes as each argument of the operation's root field.
std::map<std::string, std::string> argument_variables(const operation_spec& op) {
  std::map<std::string, std::string> out;
  const auto* q = op.body ? find_pointer(*op.body, "/query") : nullptr;
  auto own = q != nullptr && q->is_string() ? graphql::parse(q->get_ref<const std::string&>()) : graphql::parse_result{};
  if (!own.doc) return out;
  for (const auto& operation : own.doc->operations)
    for (const auto& f : operation.selections)
      if (f.name == *op.graphql_operation)
        for (const auto& [arg, value] : f.arguments.items())
          if (value.is_object() && value.contains("$variable")) out[arg] = value.at("$variable").get<std::string>();
  return out;
}

// A GraphQL list answer cut down to the items the client's arguments ask for, as the spec's
// graphql.filters declare them (gpuTypes(input: {id}) answers that type alone).
http::response provider_model::impl::filtered(http::response r, const operation_spec& op, const graphql::field& root,
                                              const nlohmann::json& variables) const {
  const auto filters = emu.graphql_filters.find(op.id);
  if (filters == emu.graphql_filters.end() || r.status != 200) return r;
  auto doc = nlohmann::json::parse(r.body, nullptr, false);
  auto* list = doc.is_object() && doc.contains("data") && doc["data"].is_object() && doc["data"].contains(root.name)
                   ? &doc["data"][root.name]
                   : nullptr;
  if (list == nullptr || !list->is_array()) return r;
  const auto arguments = graphql::resolve(root.arguments, variables);
  for (const auto& filter : filters->second) {
    const nlohmann::json* want = &arguments;
    for (const auto& key : filter.argument) {
      want = want->is_object() && want->contains(key) ? &want->at(key) : nullptr;
      if (want == nullptr) break;
    }
    if (want == nullptr || want->is_null()) continue;
    nlohmann::json kept = nlohmann::json::array();
    for (auto& item : *list)
      if (const auto* v = find_pointer(item, filter.pointer); v != nullptr && *v == *want) kept.push_back(std::move(item));
    *list = std::move(kept);
  }
  r.body = doc.dump();
  return r;
}

// The root fields of `operation` that emulator.graphql_roots serves from static catalogue data
// (RunPod's countryCodes, dataCenters and cpuFlavors), written into `data` as selected.
void provider_model::impl::add_static_roots(nlohmann::json& data, const graphql::operation& operation) const {
  for (const auto& f : operation.selections)
    if (const auto root = emu.graphql_roots.find(f.name); root != emu.graphql_roots.end())
      data[f.response_key()] = graphql::select(root->second, f.selections);
}

// A GraphQL request for static catalogue roots alone (gpuhunt's `query CpuDataCenters {
// dataCenters { id listed } }`): answered as a public catalogue is, with or without a key.
std::optional<http::response> provider_model::impl::static_graphql(const http::request& req, const std::string& rel) const {
  if (emu.graphql_roots.empty() || req.method != "POST") return std::nullopt;
  const bool graphql_path = std::any_of(spec.operations.begin(), spec.operations.end(), [&](const auto& entry) {
    std::map<std::string, std::string> p;
    return entry.second.graphql_operation && entry.second.method == "POST" && matches(entry.second.path, rel, p);
  });
  if (!graphql_path) return std::nullopt;
  const auto body = parse_json(req.body, 64);
  const auto operation = body && body->is_object() ? client_operation(*body) : std::nullopt;
  if (!operation || operation->type != "query" || operation->selections.empty()) return std::nullopt;
  for (const auto& f : operation->selections)
    if (!emu.graphql_roots.contains(f.name)) return std::nullopt;
  nlohmann::json data = nlohmann::json::object();
  add_static_roots(data, *operation);
  return json_response(200, nlohmann::json{{"data", std::move(data)}});
}

// The request's variables, with the arguments the client wrote inline put where the spec's own
// query takes them from variables (`pod(input: $input)`: the client's inline input becomes
// variables.input).
nlohmann::json provider_model::impl::variables_for(const operation_spec& op, const graphql::field& client, nlohmann::json variables) const {
  if (!variables.is_object()) variables = nlohmann::json::object();
  const auto resolved = graphql::resolve(client.arguments, variables);
  for (const auto& [arg, variable] : graphql_argument_variables.at(op.id))
    if (resolved.contains(arg)) variables[variable] = resolved.at(arg);
  return variables;
}

// A GraphQL answer cut down to the fields the client selected for the operation's root, under
// its aliases, with the static roots it asked for beside it (read and written once).
http::response provider_model::impl::selected(http::response r, const graphql::field& root, const graphql::operation& operation) const {
  if (r.status != 200) return r;
  auto doc = nlohmann::json::parse(r.body, nullptr, false);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_object()) return r;
  auto& data = doc["data"];
  if (!root.selections.empty() && data.contains(root.name)) {
    auto value = graphql::select(data[root.name], root.selections);
    data.erase(root.name);
    data[root.response_key()] = std::move(value);
  }
  add_static_roots(data, operation);
  r.body = doc.dump();
  return r;
}

}  // namespace neograde::emulator
