#include <neograde/core/spec.hpp>
#include <neograde/core/spec_lint.hpp>

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include <boost/throw_exception.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace neograde {

namespace embedded {
std::string_view provider_spec_schema();
}

namespace {

// Thrown inside the loader only; load_spec turns it into a spec_error.
struct spec_fault : std::runtime_error {
  spec_fault(std::string p, const std::string& m) : std::runtime_error(m), pointer(std::move(p)) {}
  std::string pointer;
};

field_path to_field(const nlohmann::json& v) {
  if (v.is_string()) return {v.get<std::string>(), std::nullopt};
  field_path f{v.at("pointer").get<std::string>(), std::nullopt};
  if (v.contains("each")) f.each = v.at("each").get<std::string>();
  f.public_flag = v.value("public", "");
  f.scale = v.value("scale", 1.0);
  f.as_string = v.value("type", "number") == "string";
  f.as_integer = v.value("type", "number") == "integer";
  f.omit_null = v.value("omit_null", false);
  f.levels = v.value("levels", std::vector<std::string>{});
  for (const auto& t : v.value("plus", nlohmann::json::array()))
    f.plus.push_back({t.at("pointer").get<std::string>(), t.value("times", 1.0)});
  f.alternatives = v.value("alternatives", std::vector<std::string>{});
  return f;
}

std::map<std::string, field_path> to_fields(const nlohmann::json& obj) {
  std::map<std::string, field_path> out;
  for (auto& [k, v] : obj.items()) out.emplace(k, to_field(v));
  return out;
}

void require_schema(const nlohmann::json& schema, const std::string& at) {
  try {
    json_schema compiled(schema);
  } catch (const std::exception& e) {
    throw spec_fault(at, e.what());
  }
}

// A spec's shared schemas: the top-level `schemas` ({name: schema}) are written once and named
// from any schema of the spec as {"$ref": "#/schemas/Name"} (SaladCloud's ContainerGroup answers
// its get, its list and its create alike). Each schema stays self-contained once loaded: a
// reference is resolved into the referring schema's own `definitions`, with every shared schema
// it reaches in turn, so that validation, the lint and the mutations read one document as before.
void inline_shared_schemas(nlohmann::json& doc) {
  const auto* shared = doc.contains("schemas") ? &doc.at("schemas") : nullptr;
  static constexpr std::string_view prefix = "#/schemas/";
  // Rewrites the references below `n` to `#/definitions/`, noting each name met.
  auto rewrite = [&](nlohmann::json& n, std::vector<std::string>& met, const std::string& at) {
    for_each_ref(
        n,
        [&](nlohmann::json& v, const std::string& ref_at) {
          if (!v.get_ref<const std::string&>().starts_with(prefix)) return;
          const auto name = v.get<std::string>().substr(prefix.size());
          if (shared == nullptr || !shared->contains(name))
            throw spec_fault(ref_at, "\"" + v.get<std::string>() + "\" names no schema in the spec's top-level schemas");
          v = "#/definitions/" + name;
          if (std::find(met.begin(), met.end(), name) == met.end()) met.push_back(name);
        },
        at);
  };
  auto resolve = [&](nlohmann::json& root, const std::string& at) {
    std::vector<std::string> met;
    rewrite(root, met, at);
    if (met.empty() || !root.is_object()) return;
    // A reference at the root is moved into allOf: beside a $ref, draft-07 ignores the root's other
    // keywords, and the definitions must sit there.
    if (root.contains("$ref")) {
      root["allOf"].push_back({{"$ref", root.at("$ref")}});
      root.erase("$ref");
    }
    for (std::size_t i = 0; i < met.size(); ++i) {  // grows as shared schemas name others
      const auto name = met[i];
      auto copy = shared->at(name);
      rewrite(copy, met, "/schemas/" + pointer_escape(name));
      auto& defs = root["definitions"];
      if (defs.contains(name) && defs.at(name) != copy)
        throw spec_fault(at + "/definitions/" + pointer_escape(name),
                         "a definition of its own named " + name + " and the shared schema of that name differ: rename one");
      defs[name] = std::move(copy);
    }
  };
  if (auto* e = doc.contains("errors") ? &doc["errors"] : nullptr; e != nullptr && e->contains("envelope_schema"))
    resolve((*e)["envelope_schema"], "/errors/envelope_schema");
  if (doc.contains("operations") && doc["operations"].is_object())
    for (auto& [name, o] : doc["operations"].items())
      for (const char* key : {"request_schema", "response_schema"})
        if (o.is_object() && o.contains(key)) resolve(o[key], "/operations/" + pointer_escape(name) + "/" + key);
}

launch_step launch_step_of(const nlohmann::json& t) {
  launch_step step{.name = t.at("name").get<std::string>(),
                   .method = t.at("method").get<std::string>(),
                   .path = t.at("path").get<std::string>(),
                   .body = std::nullopt,
                   .success_status = t.value("success_status", std::vector<int>{200}),
                   .wait_for = std::nullopt,
                   .bind = t.value("bind", std::map<std::string, std::string>{}),
                   .source = t.value("source", "")};
  if (t.contains("body")) step.body = t.at("body");
  if (t.contains("wait_for")) {
    const auto& w = t.at("wait_for");
    step.wait_for = launch_step::wait_spec{
        .items = w.at("items").get<std::string>(), .cheapest = w.value("choose", "first") == "cheapest", .price = w.value("price", "")};
  }
  return step;
}

ssh_spec ssh_of(const nlohmann::json& v) {
  ssh_spec out{.user = v.at("user").get<std::string>(), .port = v.value("port", 22), .endpoints = {}, .source = v.value("source", "")};
  for (const auto& e : v.value("endpoints", nlohmann::json::array())) {
    ssh_spec::endpoint ep{.host = e.value("host", ""),
                          .port = e.value("port", ""),
                          .user = e.value("user", ""),
                          .connection = e.value("connection", ""),
                          .entries = e.value("entries", ""),
                          .where = {},
                          .public_flag = e.value("public", ""),
                          .source = e.value("source", "")};
    if (const auto w = e.find("where"); w != e.end())
      for (const auto& [k, want] : w->items()) ep.where.emplace(k, want);
    out.endpoints.push_back(std::move(ep));
  }
  return out;
}

provider_spec build(const nlohmann::json& doc) {
  provider_spec s;
  s.raw = doc;
  s.spec_version = doc.at("spec_version").get<std::string>();

  const auto& p = doc.at("provider");
  s.provider.id = p.at("id").get<std::string>();
  s.provider.display_name = p.at("display_name").get<std::string>();
  s.provider.kind = p.at("kind").get<std::string>();
  s.provider.fictional = p.value("fictional", false);
  s.provider.docs_url = p.value("docs_url", "");
  s.provider.api_version = p.value("api_version", "");
  s.provider.notes = p.value("notes", std::vector<std::string>{});
  if (p.contains("transparency")) s.provider.transparency = p["transparency"];

  s.base_url = doc.at("base_url").get<std::string>();

  const auto& a = doc.at("auth");
  for (const auto& m : a.at("schemes")) {
    auth_method method;
    method.type = m.at("type").get<auth_scheme>();
    method.header = m.value("header", "Authorization");
    method.prefix = m.value("prefix", "");
    method.param = m.value("param", "");
    method.token_path = m.value("token_path", "");
    method.timestamp_header = m.value("timestamp_header", "");
    method.string_to_sign = m.value("string_to_sign", "");
    method.authorization = m.value("authorization", "");
    method.path_prefix = m.value("path_prefix", "");
    s.auth.schemes.push_back(std::move(method));
  }
  s.auth.env = a.at("env").get<std::string>();

  const auto& e = doc.at("errors");
  s.errors.content_type = e.at("content_type").get<std::string>();
  s.errors.envelope_schema = e.at("envelope_schema");
  require_schema(s.errors.envelope_schema, "/errors/envelope_schema");
  s.errors.code_pointer = e.at("code_pointer").get<std::string>();
  s.errors.message_pointer = e.at("message_pointer").get<std::string>();
  s.errors.body_template = e.at("body_template");
  for (auto& [name, k] : e.at("kinds").items())
    s.errors.kinds[name] = {k.at("status").get<int>(), k.value("code", ""), k.value("message", "")};
  if (e.contains("in_success_body")) s.errors.in_success_body = e.at("in_success_body").get<std::string>();
  s.errors.no_capacity_codes = e.value("no_capacity_codes", std::vector<std::string>{});
  s.errors.quota_codes = e.value("quota_codes", std::vector<std::string>{});
  s.errors.funds_codes = e.value("funds_codes", std::vector<std::string>{});
  s.errors.funds_messages = e.value("funds_messages", std::vector<std::string>{});
  s.errors.no_capacity_messages = e.value("no_capacity_messages", std::vector<std::string>{});
  s.errors.configuration_messages = e.value("configuration_messages", std::vector<std::string>{});
  s.errors.not_documented = e.value("not_documented", "");

  for (auto& [word, state] : doc.at("states").items()) {
    auto canonical = instance_state_from_string(state.get<std::string>());
    if (canonical == instance_state::unknown) throw spec_fault("/states/" + pointer_escape(word), "not a canonical state: " + state.dump());
    s.states[word] = canonical;
  }

  const auto& t = doc.at("timing");
  s.timing.time_to_running_s = t.at("time_to_running_s").get<double>();
  s.timing.time_to_gone_s = t.at("time_to_gone_s").get<double>();
  s.timing.poll_interval_s = t.at("poll_interval_s").get<double>();
  s.timing.latency_p95_ms = t.value("latency_p95_ms", 2000.0);
  if (const auto m = t.find("minimum_runtime"); m != t.end()) {
    const auto& refusal = m->at("refusal");
    minimum_runtime_spec mr{.seconds = m->at("seconds").get<double>(),
                            .status = refusal.at("status").get<int>(),
                            .pointer = refusal.value("pointer", ""),
                            .equals = refusal.value("equals", nlohmann::json(nullptr)),
                            .body = refusal.value("body", nlohmann::json::object()),
                            .source = m->at("source").get<std::string>()};
    if (refusal.contains("remaining")) mr.remaining = to_fields(nlohmann::json{{"remaining", refusal.at("remaining")}}).at("remaining");
    s.timing.minimum_runtime = std::move(mr);
  }

  s.instance_fields = to_fields(doc.at("instance_fields"));
  s.offer_fields = to_fields(doc.at("offer_fields"));
  s.ssh_key_fields = to_fields(doc.value("ssh_key_fields", nlohmann::json::object()));

  for (auto& [name, o] : doc.at("operations").items()) {
    const std::string at = "/operations/" + pointer_escape(name);
    operation_spec op;
    op.id = nlohmann::json(name).get<operation_id>();
    if (op.id == operation_id::unknown) throw spec_fault(at, "unknown operation \"" + name + "\"");
    op.method = o.at("method").get<std::string>();
    op.path = o.at("path").get<std::string>();
    if (o.contains("body")) op.body = o.at("body");
    op.success_status = o.value("success_status", std::vector<int>{200});
    for (const char* key : {"request_schema", "response_schema"}) {
      if (!o.contains(key)) continue;
      require_schema(o.at(key), at + "/" + key);
      (std::string_view(key) == "request_schema" ? op.request_schema : op.response_schema) = o.at(key);
    }
    if (o.contains("items")) op.items = o.at("items").get<std::string>();
    op.items_are_object_values = o.value("items_are_object_values", false);
    if (o.contains("keys_are")) {
      op.keys_are = o.at("keys_are").get<std::string>();
      if (!op.items_are_object_values)
        throw spec_fault(at + "/keys_are", "keys_are names what an object's keys are: it needs items_are_object_values");
    }
    op.anonymous = o.value("anonymous", false);
    op.replaces_key_set = o.value("replaces_key_set", false);
    if (o.contains("item")) op.item = o.at("item").get<std::string>();
    if (const auto empty = o.find("empty_answer"); empty != o.end()) {
      op.empty_kind = empty->at("kind").get<std::string>();
      op.empty_message = empty->value("message", "");
      if (!s.errors.kinds.contains(op.empty_kind)) throw spec_fault(at + "/empty_answer/kind", "not one of errors.kinds: " + op.empty_kind);
    }
    op.fields = to_fields(o.value("fields", nlohmann::json::object()));
    const auto format = o.value("response_format", "json");
    op.text_response = format == "text" || format == "text_or_json";
    op.text_or_json = format == "text_or_json";
    op.empty_response = format == "empty";
    if (const auto f = o.find("id_from"); f != o.end()) {
      if (op.id != operation_id::launch) throw spec_fault(at + "/id_from", "only a launch finds its id elsewhere");
      op.id_from_list_reads = f->value("list_reads", 3);
    }
    if (o.contains("graphql")) {
      const auto& g = o.at("graphql");
      op.graphql_operation = g.at("operation").get<std::string>();
      op.body = nlohmann::json{{"query", g.at("query")}, {"variables", g.value("variables", nlohmann::json::object())}};
    }
    if (o.contains("pagination")) {
      const auto& p = o.at("pagination");
      pagination_spec pg;
      pg.style = p.at("style").get<std::string>();
      pg.size_param = p.value("size_param", "");
      pg.size = p.value("size", 20);
      pg.page_param = p.value("page_param", "");
      pg.first_page = p.value("first_page", 1);
      pg.offset_param = p.value("offset_param", "");
      pg.token_param = p.value("token_param", "");
      pg.next_pointer = p.value("next_pointer", "");
      pg.more_pointer = p.value("more_pointer", "");
      pg.previous_pointer = p.value("previous_pointer", "");
      pg.total_pointer = p.value("total_pointer", "");
      pg.end_token = p.value("end_token", nlohmann::json(nullptr));
      pg.next_link_pointer = p.value("next_link_pointer", "");
      pg.last_link_pointer = p.value("last_link_pointer", "");
      pg.metadata_source = p.value("metadata_source", "");
      op.pagination = std::move(pg);
    }
    if (o.contains("tag_filter")) {
      const auto& f = o.at("tag_filter");
      op.tag_filter = tag_filter_spec{
          .param = f.at("param").get<std::string>(), .alone = f.value("alone", false), .source = f.at("source").get<std::string>()};
    }
    if (const auto q = o.find("ids_query"); q != o.end()) {
      if (op.id != operation_id::get_many) throw spec_fault(at + "/ids_query", "only get_many names its instances in the query");
      op.ids_query = ids_query_spec{.param = q->at("param").get<std::string>(), .source = q->at("source").get<std::string>()};
    }
    if (op.id == operation_id::get_many && !op.ids_query) throw spec_fault(at, "get_many needs ids_query");
    if (o.contains("action")) {
      const auto& a = o.at("action");
      action_spec act;
      act.id_pointer = a.at("id").get<std::string>();
      act.path = a.at("path").get<std::string>();
      act.status_pointer = a.at("status").get<std::string>();
      act.in_progress = a.at("in_progress").get<std::vector<std::string>>();
      act.done = a.at("done").get<std::vector<std::string>>();
      act.failed = a.value("failed", std::vector<std::string>{});
      act.id_is_integer = a.value("id_type", "string") == "integer";
      act.source = a.value("source", "");
      act.read_item = a.value("read_item", "");
      if (!act.read_item.empty() &&
          !(act.status_pointer.starts_with(act.read_item + "/") && act.id_pointer.starts_with(act.read_item + "/")))
        throw spec_fault(at + "/action/read_item", "the action's id and status pointers must lie inside read_item");
      if (act.path.find("{action_id}") == std::string::npos)
        throw spec_fault(at + "/action/path", "the action path must contain {action_id}");
      op.action = std::move(act);
    }
    op.bind = o.value("bind", std::map<std::string, std::string>{});
    for (const auto& t : o.value("then", nlohmann::json::array())) op.then.push_back(launch_step_of(t));
    if (!op.then.empty() && op.id != operation_id::launch) throw spec_fault(at + "/then", "only the launch may declare follow-up steps");
    s.operations.emplace(op.id, std::move(op));
  }
  const auto variables = doc.value("variables", nlohmann::json::object());
  for (const auto& [name, v] : variables.items()) {
    variable_decl d;
    if (v.is_string()) {
      d.default_value = d.emulator = v.get<std::string>();
    } else {
      if (v.contains("emulator")) d.emulator = v.at("emulator").get<std::string>();
      if (v.contains("default")) d.default_value = v.at("default").get<std::string>();
      d.env = v.value("env", "");
      d.required = v.value("required", false);
      d.description = v.value("description", "");
      d.source = v.value("source", "");
      if (const auto f = v.find("from"); f != v.end())
        d.from = variable_decl::discovery{
            .path = f->at("path").get<std::string>(), .value = to_field(f->at("value")), .source = f->at("source").get<std::string>()};
    }
    if (auto value = d.emulator ? d.emulator : d.default_value) s.variables[name] = *value;
    s.variable_decls[name] = std::move(d);
  }
  if (doc.contains("absent_status")) {
    const auto& a = doc.at("absent_status");
    s.absent_state = instance_state_from_string(a.at("state").get<std::string>());
    if (*s.absent_state == instance_state::unknown)
      throw spec_fault("/absent_status/state", "not a canonical state: " + a.at("state").dump());
  }
  for (const auto& d : doc.value("deviations", nlohmann::json::array()))
    s.deviations.push_back({d.at("check").get<std::string>(), d.at("reason").get<std::string>(), d.at("source").get<std::string>()});
  for (const auto& h : doc.value("headers_on_every_response", nlohmann::json::array()))
    s.headers_on_every_response.push_back({h.at("name").get<std::string>(), h.at("source").get<std::string>()});
  for (const auto& r : doc.value("offer_requirements", nlohmann::json::array())) {
    provider_spec::offer_requirement req{to_field(r.at("pointer")), std::nullopt, std::nullopt, std::nullopt, r.value("why", "")};
    if (r.contains("equals")) req.equals = r.at("equals");
    if (r.contains("at_least")) req.at_least = r.at("at_least").get<double>();
    if (r.contains("at_most")) req.at_most = r.at("at_most").get<double>();
    s.offer_requirements.push_back(std::move(req));
  }
  if (const auto a = doc.find("offer_availability"); a != doc.end())
    s.offer_availability = provider_spec::offer_availability_spec{a->at("path").get<std::string>(), a->value("items", ""),
                                                                  a->at("region").get<std::string>(), a->at("types").get<std::string>()};
  if (const auto ssh = doc.find("ssh"); ssh != doc.end()) s.ssh = ssh_of(*ssh);
  s.emulator = doc.value("emulator", nlohmann::json::object());
  // Demonstration behaviour belongs to fictional providers: an emulator of a real one behaves as
  // the real API is documented.
  if (!s.provider.fictional)
    for (const char* demo_only : {"default_quirks", "demo_hardware", "demo_gpus_of"})
      if (s.emulator.contains(demo_only))
        throw spec_fault(std::string("/emulator/") + demo_only, "only a fictional provider may declare it");
  return s;
}

std::string json_error_location(std::string_view text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace

const std::string& field_path::written_at(const nlohmann::json& obj) const {
  auto set_null = [&](const std::string& p) {
    const auto* v = find_pointer(obj, p);
    return v != nullptr && v->is_null();
  };
  if (!set_null(pointer)) return pointer;
  for (const auto& p : alternatives)
    if (!set_null(p)) return p;
  return pointer;
}

std::optional<ssh_connection_parts> parse_ssh_connection(std::string_view text) {
  std::vector<std::string> words;
  for (std::size_t at = 0; at < text.size();) {
    const auto start = text.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    const auto end = std::min(text.find_first_of(" \t", start), text.size());
    words.emplace_back(text.substr(start, end - start));
    at = end;
  }
  auto port_of = [](const std::string& w) -> std::optional<int> {
    if (w.empty() || w.size() > 5 || w.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const int p = std::stoi(w);
    return p >= 1 && p <= 65535 ? std::optional<int>(p) : std::nullopt;
  };
  // ssh(1)'s options that take an argument; only -p and -l say where to connect.
  static const std::string with_argument = "BbcDEeFIiJLlmOopQRSWw";
  ssh_connection_parts out;
  std::optional<int> flag_port;  // -p wins over host:port, as in ssh(1)
  std::string destination;
  std::size_t i = !words.empty() && words.front() == "ssh" ? 1 : 0;
  for (; i < words.size(); ++i) {
    const auto& w = words[i];
    if (w.size() >= 2 && w[0] == '-') {
      const char flag = w[1];
      if (with_argument.find(flag) == std::string::npos) continue;  // -v, -A, -t ...
      std::string arg = w.size() > 2 ? w.substr(2) : (i + 1 < words.size() ? words[++i] : std::string());
      if (flag == 'p') {
        flag_port = port_of(arg);
        if (!flag_port) return std::nullopt;
      } else if (flag == 'l') {
        out.user = arg;
      }
      continue;
    }
    if (destination.empty()) destination = w;
    else
      break;  // a remote command follows the destination
  }
  if (destination.starts_with("ssh://")) destination = destination.substr(6);  // ssh://[user@]host[:port]
  if (const auto at = destination.rfind('@'); at != std::string::npos) {
    out.user = destination.substr(0, at);
    destination = destination.substr(at + 1);
  }
  // user@host:port (one colon: an IPv6 address has several, and is written [addr] for a port).
  if (const auto colon = destination.rfind(':'); colon != std::string::npos && destination.find(':') == colon) {
    out.port = port_of(destination.substr(colon + 1));
    if (!out.port) return std::nullopt;
    destination.resize(colon);
  } else if (destination.starts_with('[') && destination.find("]:") != std::string::npos) {
    const auto close = destination.find("]:");
    out.port = port_of(destination.substr(close + 2));
    if (!out.port) return std::nullopt;
    destination = destination.substr(0, close + 1);
  }
  if (destination.size() > 2 && destination.front() == '[' && destination.back() == ']')
    destination = destination.substr(1, destination.size() - 2);
  // A host name or address literal, nothing else (a placeholder such as "<string>" is neither).
  if (destination.empty() ||
      destination.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:%") != std::string::npos)
    return std::nullopt;
  out.host = destination;
  if (flag_port) out.port = flag_port;
  return out;
}

const operation_spec* provider_spec::operation(operation_id id) const {
  auto it = operations.find(id);
  return it == operations.end() ? nullptr : &it->second;
}

instance_state provider_spec::canonical_state(const std::string& provider_status) const {
  if (provider_status.empty() && absent_state) return *absent_state;
  auto it = states.find(provider_status);
  return it == states.end() ? instance_state::unknown : it->second;
}

std::string provider_spec::first_word(instance_state state) const {
  const auto it = std::find_if(states.begin(), states.end(), [&](const auto& w) { return w.second == state; });
  return it != states.end() ? it->first : std::string();
}

std::map<std::string, field_path> provider_spec::instance_fields_of(operation_id id) const {
  auto fields = instance_fields;
  if (const auto* op = operation(id))
    for (const auto& [name, f] : op->fields)
      if (name != "instance_id") fields[name] = f;
  return fields;
}

std::map<std::string, field_path> provider_spec::ssh_key_fields_of(operation_id id) const {
  auto fields = ssh_key_fields;
  if (const auto* op = operation(id))
    for (const auto& [name, f] : op->fields) fields[name] = f;
  return fields;
}

std::map<std::string, field_path> provider_spec::item_fields_of(operation_id id) const {
  if (id == operation_id::list_offers) return offer_fields;
  if (id == operation_id::ssh_keys_list) return ssh_key_fields_of(id);
  return instance_fields_of(id);
}

const deviation* provider_spec::deviation_for(const std::string& check_id) const {
  for (const auto& d : deviations)
    if (d.check_id == check_id) return &d;
  return nullptr;
}

resolved_variables resolve_variables(const provider_spec& spec, const std::map<std::string, std::string>& sets, bool live,
                                     const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    if (name.empty()) return std::nullopt;
    if (getenv) return getenv(name);
    const char* v = std::getenv(name.c_str());
    return v != nullptr && *v != '\0' ? std::optional<std::string>(v) : std::nullopt;
  };
  resolved_variables out;
  for (const auto& [name, value] : sets)
    if (!spec.variable_decls.contains(name)) out.unknown.push_back(name);
  for (const auto& [name, d] : spec.variable_decls) {
    std::optional<std::string> value;
    if (auto it = sets.find(name); it != sets.end()) value = it->second;
    else if (!live)
      value = d.emulator ? d.emulator : d.default_value;
    else if (auto e = env(d.env))
      value = e;
    else
      value = d.default_value;  // never the emulator's placeholder
    if (value) out.values[name] = *value;
    else if (live && d.required && d.from)
      out.to_discover.push_back(name);
    else if (live && d.required)
      out.missing.push_back(name + " (set " + (d.env.empty() ? "" : d.env + " or ") + "--set " + name + "=...)");
  }
  return out;
}

std::chrono::milliseconds latency_threshold(const provider_spec& spec, double time_scale) {
  const double ms = spec.timing.latency_p95_ms * std::min(time_scale, 1.0);
  return std::chrono::milliseconds(static_cast<long long>(std::max(ms, 100.0)));
}

std::string spec_error::what() const {
  std::string out = file;
  if (!pointer.empty()) out += " at " + pointer;
  return out + ": " + message;
}

void throw_exception_from_error(const spec_error& e, const boost::source_location& loc) {
  boost::throw_exception(std::runtime_error(e.what()), loc);
}

const nlohmann::json& spec_meta_schema() {
  static const nlohmann::json schema = nlohmann::json::parse(embedded::provider_spec_schema());
  return schema;
}

boost::system::result<provider_spec, spec_error> parse_spec(std::string_view text, const std::string& origin, spec_checks checks) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return spec_error{origin, "", "not valid JSON (" + json_error_location(text, e.byte) + ")"};
  } catch (const nlohmann::json::exception& e) {
    // Found by fuzzing: a number too large for a double ("1e3080") is out_of_range, not parse_error.
    return spec_error{origin, "", std::string("not valid JSON: ") + e.what()};
  }
  static const json_schema meta(spec_meta_schema());
  if (auto violations = meta.validate(doc); !violations.empty()) {
    auto& v = violations.front();
    return spec_error{origin, v.pointer.empty() ? "/" : v.pointer, v.message};
  }
  try {
    inline_shared_schemas(doc);
    auto spec = build(doc);
    spec.file = origin;
    if (checks == spec_checks::lint)
      for (const auto& f : lint_spec(spec))
        if (f.severity == lint_finding::level::error) return spec_error{origin, f.pointer, f.message + " (neograde spec lint lists all)"};
    return spec;
  } catch (const spec_fault& f) {
    return spec_error{origin, f.pointer, f.what()};
  } catch (const std::exception& e) {
    // The meta-schema should have caught this; report it rather than crash.
    return spec_error{origin, "", e.what()};
  }
}

boost::system::result<provider_spec, spec_error> load_spec(const std::filesystem::path& file, spec_checks checks) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return spec_error{file.string(), "", "cannot open the file"};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_spec(text.str(), file.string(), checks);
}

std::vector<std::filesystem::path> spec_search_path() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("NEOGRADE_SPECS_DIR"); env != nullptr && *env != '\0') dirs.emplace_back(env);
  // Installed (cmake --install, the .deb): <prefix>/bin/neograde finds <prefix>/share/neograde.
  // An installed binary never falls back to the source tree it was built from, which a user's
  // machine does not have; a binary in the build tree uses the sources' specs.
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = self.parent_path().parent_path() / "share" / "neograde" / "specs" / "providers";
    if (std::filesystem::is_directory(installed, ec)) {
      dirs.push_back(installed);
      return dirs;
    }
  }
  dirs.emplace_back(NEOGRADE_SOURCE_SPECS_DIR);
  return dirs;
}

std::optional<std::filesystem::path> resolve_spec(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json")) {
    return std::filesystem::path(name_or_path);
  }
  for (const auto& dir : spec_search_path()) {
    auto candidate = dir / (name_or_path + ".json");
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

std::vector<std::filesystem::path> catalogue_specs() {
  for (const auto& dir : spec_search_path()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> out;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json") out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
  }
  return {};
}

}  // namespace neograde
