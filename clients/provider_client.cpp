#include <neograde/clients/provider_client.hpp>

#include <neograde/core/base64.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/provenance.hpp>

#include <algorithm>
#include <random>

namespace neograde {
namespace {

redactor redactor_for(const std::string& key) {
  redactor r;
  r.add_secret(key);
  return r;
}

std::string invalid_key() {
  // Shaped like a key so that a server cannot reject it for its form alone.
  static const std::string key = [] {
    std::mt19937_64 rng{std::random_device{}()};
    std::string k = "neograde_invalid_";
    for (int i = 0; i < 32; ++i) k += "0123456789abcdef"[rng() % 16];
    return k;
  }();
  return key;
}

std::optional<double> number_at(const nlohmann::json& obj, const field_path& f) {
  const auto* v = find_pointer(obj, f.pointer);
  if (v == nullptr) return std::nullopt;
  if (v->is_number()) return v->get<double>() * f.scale;
  if (v->is_string()) {
    try {
      return std::stod(v->get<std::string>()) * f.scale;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::vector<std::string> strings_at(const nlohmann::json& obj, const field_path& f) {
  std::vector<std::string> out;
  const auto* v = find_pointer(obj, f.pointer);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : *v)
    if (auto s = string_at(e, f.each.value_or(""))) out.push_back(*s);
  return out;
}

std::string text_field(const nlohmann::json& obj, const std::map<std::string, field_path>& fields,
                       const std::string& name) {
  auto it = fields.find(name);
  if (it == fields.end()) return {};
  return string_at(obj, it->second.pointer).value_or("");
}

}  // namespace

std::string call_result::content_type() const {
  return response ? response->header("Content-Type") : std::string();
}

std::string call_result::describe() const {
  if (transport) return transport->message();
  if (!response) return "no response";
  std::string out = "HTTP " + std::to_string(response->status);
  if (error && !error->code.empty()) out += " " + error->code;
  if (error && !error->message.empty()) out += ": " + error->message;
  return out;
}

provider_client::provider_client(const provider_spec& spec, std::string base_url, std::string api_key,
                                 http::client_options options)
    : spec_(spec),
      base_url_(std::move(base_url)),
      api_key_(std::move(api_key)),
      http_(std::move(options), redactor_for(api_key_)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

header_list provider_client::auth_headers(auth_mode auth) const {
  if (auth == auth_mode::none || spec_.auth.schemes.empty()) return {};
  const std::string key = auth == auth_mode::invalid ? invalid_key() : api_key_;
  switch (spec_.auth.schemes.front()) {
    case auth_scheme::bearer: return {{"Authorization", "Bearer " + key}};
    case auth_scheme::basic_username: return {{"Authorization", "Basic " + base64_encode(key + ":")}};
    case auth_scheme::unknown: break;
  }
  return {};
}

call_result provider_client::finish(boost::system::result<http::response, http::transport_error> res,
                                    const operation_spec* op) {
  call_result out;
  out.evidence = http_.last_exchange();
  if (!res) {
    out.transport = res.error();
    return out;
  }
  out.response = std::move(*res);
  const auto& r = *out.response;
  if (auto tag = r.header(emulator_header_name); !tag.empty()) {
    emulator_ = true;
    try {
      if (auto scale = r.header(time_scale_header_name); !scale.empty()) time_scale_ = std::stod(scale);
    } catch (const std::exception&) {
    }
  }
  out.json = parse_json(r.body);
  const auto& ok = op != nullptr ? op->success_status : std::vector<int>{200};
  out.success = std::find(ok.begin(), ok.end(), r.status) != ok.end();
  if (!out.success) {
    api_error e;
    e.http_status = r.status;
    if (out.json) {
      e.code = string_at(*out.json, spec_.errors.code_pointer).value_or("");
      e.message = string_at(*out.json, spec_.errors.message_pointer).value_or("");
    }
    out.error = std::move(e);
  }
  return out;
}

call_result provider_client::call(operation_id id, const template_vars& vars, auth_mode auth) {
  const auto* op = spec_.operation(id);
  if (op == nullptr) {
    call_result out;
    out.transport = http::transport_error{make_error_code(http::client_errc::bad_url),
                                          "the spec declares no such operation"};
    return out;
  }
  http::request req;
  req.method = op->method;
  req.url = base_url_ + render_path(op->path, vars);
  req.headers = auth_headers(auth);
  if (op->body) {
    req.body = render_body(*op->body, vars).dump();
    req.headers.emplace_back("Content-Type", "application/json");
  }
  return finish(http_.send(req), op);
}

call_result provider_client::raw(const std::string& method, const std::string& path, const std::string& body,
                                 const std::string& content_type, auth_mode auth) {
  http::request req;
  req.method = method;
  req.url = base_url_ + path;
  req.headers = auth_headers(auth);
  req.body = body;
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", content_type);
  return finish(http_.send(req), nullptr);
}

std::vector<nlohmann::json> provider_client::collection(const nlohmann::json& doc, const std::string& pointer,
                                                        bool object_values) const {
  std::vector<nlohmann::json> out;
  const auto* v = find_pointer(doc, pointer);
  if (v == nullptr) return out;
  if (v->is_array() || (object_values && v->is_object()))
    for (const auto& e : *v) out.push_back(e);
  return out;
}

instance provider_client::to_instance(const nlohmann::json& obj) const {
  const auto& f = spec_.instance_fields;
  instance i;
  i.id = text_field(obj, f, "id");
  i.name = text_field(obj, f, "name");
  i.provider_status = text_field(obj, f, "status");
  i.state = spec_.canonical_state(i.provider_status);
  if (auto it = f.find("ip"); it != f.end())
    if (auto ip = string_at(obj, it->second.pointer); ip && !ip->empty()) i.ip = *ip;
  i.region = text_field(obj, f, "region");
  i.instance_type = text_field(obj, f, "instance_type");
  if (auto it = f.find("ssh_key_names"); it != f.end()) i.ssh_key_names = strings_at(obj, it->second);
  return i;
}

offer provider_client::to_offer(const nlohmann::json& obj) const {
  const auto& f = spec_.offer_fields;
  offer o;
  o.instance_type = text_field(obj, f, "instance_type");
  o.description = text_field(obj, f, "description");
  if (auto it = f.find("price_per_hour_usd"); it != f.end()) o.price_per_hour_usd = number_at(obj, it->second);
  if (auto it = f.find("regions_available"); it != f.end()) o.regions_available = strings_at(obj, it->second);
  return o;
}

ssh_key provider_client::to_ssh_key(const nlohmann::json& obj) const {
  const auto& f = spec_.ssh_key_fields;
  return {text_field(obj, f, "id"), text_field(obj, f, "name"), text_field(obj, f, "public_key")};
}

typed_result<std::vector<offer>> provider_client::list_offers() {
  typed_result<std::vector<offer>> out{call(operation_id::list_offers)};
  const auto& op = *spec_.operation(operation_id::list_offers);
  if (!out.call.success) return out;
  if (!out.call.json) {
    out.problem = "the response is not JSON";
    return out;
  }
  std::vector<offer> offers;
  for (const auto& item : collection(*out.call.json, op.items.value_or(""), op.items_are_object_values))
    offers.push_back(to_offer(item));
  out.value = std::move(offers);
  return out;
}

typed_result<std::string> provider_client::launch(const launch_request& req) {
  template_vars vars{{"instance_type", req.instance_type}, {"name", req.name}};
  if (!req.region.empty()) vars["region"] = req.region;
  if (!req.ssh_key_name.empty()) vars["ssh_key_name"] = req.ssh_key_name;
  typed_result<std::string> out{call(operation_id::launch, vars)};
  if (!out.call.success) return out;
  const auto& op = *spec_.operation(operation_id::launch);
  if (!out.call.json) {
    out.problem = "the response is not JSON";
    return out;
  }
  std::optional<std::string> id;
  if (auto it = op.fields.find("instance_id"); it != op.fields.end()) id = string_at(*out.call.json, it->second.pointer);
  else if (op.item) id = string_at(*out.call.json, *op.item + spec_.instance_fields.at("id").pointer);
  if (!id || id->empty()) out.problem = "the response carries no instance id";
  else out.value = *id;
  return out;
}

typed_result<instance> provider_client::get(const std::string& id) {
  typed_result<instance> out{call(operation_id::get, {{"id", id}})};
  if (!out.call.success) return out;
  const auto& op = *spec_.operation(operation_id::get);
  const auto* obj = out.call.json ? find_pointer(*out.call.json, op.item.value_or("")) : nullptr;
  if (obj == nullptr || !obj->is_object()) out.problem = "the response carries no instance object";
  else out.value = to_instance(*obj);
  return out;
}

typed_result<std::vector<instance>> provider_client::list() {
  typed_result<std::vector<instance>> out{call(operation_id::list)};
  if (!out.call.success) return out;
  const auto& op = *spec_.operation(operation_id::list);
  if (!out.call.json) {
    out.problem = "the response is not JSON";
    return out;
  }
  std::vector<instance> all;
  for (const auto& item : collection(*out.call.json, op.items.value_or(""), op.items_are_object_values))
    all.push_back(to_instance(item));
  out.value = std::move(all);
  return out;
}

call_result provider_client::terminate(const std::string& id) { return call(operation_id::terminate, {{"id", id}}); }

call_result provider_client::restart(const std::string& id) { return call(operation_id::restart, {{"id", id}}); }

typed_result<std::vector<ssh_key>> provider_client::list_ssh_keys() {
  typed_result<std::vector<ssh_key>> out{call(operation_id::ssh_keys_list)};
  if (!out.call.success || !out.call.json) return out;
  const auto& op = *spec_.operation(operation_id::ssh_keys_list);
  std::vector<ssh_key> keys;
  for (const auto& item : collection(*out.call.json, op.items.value_or(""), op.items_are_object_values))
    keys.push_back(to_ssh_key(item));
  out.value = std::move(keys);
  return out;
}

typed_result<ssh_key> provider_client::add_ssh_key(const std::string& name, const std::string& public_key) {
  typed_result<ssh_key> out{call(operation_id::ssh_keys_add, {{"name", name}, {"public_key", public_key}})};
  if (!out.call.success) return out;
  const auto& op = *spec_.operation(operation_id::ssh_keys_add);
  const auto* obj = out.call.json ? find_pointer(*out.call.json, op.item.value_or("")) : nullptr;
  if (obj == nullptr || !obj->is_object()) out.problem = "the response carries no key object";
  else out.value = to_ssh_key(*obj);
  return out;
}

call_result provider_client::delete_ssh_key(const std::string& id) {
  return call(operation_id::ssh_keys_delete, {{"id", id}});
}

}  // namespace neograde
