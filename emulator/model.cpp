#include <neograde/emulator/model.hpp>

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/provenance.hpp>
#include <neograde/core/template.hpp>

#include <boost/url/parse.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>

namespace neograde::emulator {

namespace {

struct emu_instance {
  std::string id;
  std::string name;
  std::string type;
  std::string region;
  std::vector<std::string> ssh_keys;
  std::string ip;
  clock::time_point boot_done;
  std::optional<clock::time_point> terminated_at;
  std::optional<clock::time_point> restart_until;
};

struct emu_key {
  std::string id;
  std::string name;
  std::string public_key;
};

struct account {
  std::vector<emu_instance> instances;  // in creation order
  std::vector<emu_key> keys;
};

struct bucket {
  double tokens = 0;
  clock::time_point last;
};

enum class phase { booting, running, restarting, terminating, terminated, gone };

std::string first_string(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && !v.empty() && v.front().is_string()) return v.front().get<std::string>();
  return {};
}

std::vector<std::string> all_strings(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_string()) out.push_back(v.get<std::string>());
  if (v.is_array())
    for (const auto& e : v)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

std::string parent_pointer(const std::string& ptr) {
  auto slash = ptr.rfind('/');
  return slash == std::string::npos ? std::string() : ptr.substr(0, slash);
}

}  // namespace

struct provider_model::impl {
  const provider_spec& spec;
  model_options opts;
  std::string base_path;
  std::map<operation_id, json_schema> request_schemas;
  std::map<std::string, std::size_t> tenant_of_key;
  mutable std::mutex mu;
  std::vector<account> accounts;
  std::map<std::string, bucket> buckets;
  std::mt19937_64 rng{0x6e656f67726164ULL};  // deterministic ids for reproducible runs
  unsigned next_ip = 10;

  impl(const provider_spec& s, model_options o) : spec(s), opts(std::move(o)) {
    if (!opts.now) opts.now = [] { return clock::now(); };
    if (auto u = boost::urls::parse_uri(spec.base_url)) base_path = std::string(u->encoded_path());
    while (!base_path.empty() && base_path.back() == '/') base_path.pop_back();
    for (const auto& [id, op] : spec.operations)
      if (op.request_schema) request_schemas.emplace(id, json_schema(*op.request_schema));
    for (const auto& key : opts.api_keys) tenant_of_key.emplace(key, tenant_of_key.size());
    accounts.resize(std::max<std::size_t>(1, opts.api_keys.size()));
  }

  [[nodiscard]] bool quirk(std::string_view name) const { return opts.quirks.contains(name); }

  [[nodiscard]] clock::duration scaled(double seconds) const {
    return std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds * opts.time_scale));
  }

  [[nodiscard]] double emu_number(const char* key, double fallback) const {
    return spec.emulator.contains(key) ? spec.emulator.at(key).get<double>() : fallback;
  }

  // ---- responses ----------------------------------------------------------------------

  http::response json_response(int status, const nlohmann::json& body) const {
    http::response r;
    r.status = status;
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = body.dump();
    return r;
  }

  http::response error_response(const std::string& kind, const std::string& message = {}) const {
    error_kind k{500, "", "Internal error"};
    if (auto it = spec.errors.kinds.find(kind); it != spec.errors.kinds.end()) k = it->second;
    const std::string text = message.empty() ? k.message : message;
    http::response r;
    r.status = k.status;
    if (quirk("html_errors")) {
      r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
      r.body = "<html><head><title>" + std::to_string(k.status) + "</title></head><body><h1>Error</h1><p>" +
               text + "</p></body></html>";
      return r;
    }
    template_vars vars{{"code", k.code}, {"message", text}, {"status", k.status}};
    r.headers.emplace_back("Content-Type", spec.errors.content_type);
    r.body = render_body(spec.errors.body_template, vars).dump();
    return r;
  }

  // ---- rendering provider objects ---------------------------------------------------------

  // Writes a canonical value where the spec says the provider keeps it. Regions known to the
  // emulator are written as the provider's region object at the parent of a nested pointer.
  void write_field(nlohmann::json& obj, const std::map<std::string, field_path>& fields, const std::string& name,
                   const nlohmann::json& value) const {
    auto it = fields.find(name);
    if (it == fields.end()) return;
    const auto& f = it->second;
    const auto& regions = spec.emulator.value("regions", nlohmann::json::object());
    auto region_object = [&](const std::string& r) -> const nlohmann::json* {
      return regions.contains(r) ? &regions.at(r) : nullptr;
    };
    if (f.each) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& v : value) {
        if (f.each->empty()) {
          arr.push_back(v);
        } else if (const auto* ro = name.starts_with("region") ? region_object(v.get<std::string>()) : nullptr) {
          arr.push_back(*ro);
        } else {
          nlohmann::json e = nlohmann::json::object();
          set_pointer(e, *f.each, v);
          arr.push_back(std::move(e));
        }
      }
      set_pointer(obj, f.pointer, std::move(arr));
      return;
    }
    if (name == "region" && value.is_string()) {
      const auto parent = parent_pointer(f.pointer);
      if (const auto* ro = region_object(value.get<std::string>()); ro != nullptr && !parent.empty()) {
        set_pointer(obj, parent, *ro);
        return;
      }
    }
    if (value.is_number() && f.scale != 1) {
      const double raw = value.get<double>() / f.scale;
      if (std::abs(raw - std::round(raw)) < 1e-6) set_pointer(obj, f.pointer, static_cast<long long>(std::llround(raw)));
      else set_pointer(obj, f.pointer, raw);
      return;
    }
    set_pointer(obj, f.pointer, value);
  }

  [[nodiscard]] phase phase_of(const emu_instance& i, clock::time_point now) const {
    if (i.terminated_at) {
      const auto done = *i.terminated_at + scaled(emu_number("terminate_s", 0));
      if (now >= done + scaled(emu_number("gone_after_s", 60))) return phase::gone;
      return now >= done ? phase::terminated : phase::terminating;
    }
    if (quirk("stuck_booting") || now < i.boot_done) return phase::booting;
    if (i.restart_until && now < *i.restart_until) return phase::restarting;
    return phase::running;
  }

  [[nodiscard]] std::string phase_word(phase p) const {
    const auto& phases = spec.emulator.at("phases");
    switch (p) {
      case phase::booting: return phases.at("booting");
      case phase::running: return phases.at("running");
      case phase::restarting: return phases.value("restarting", phases.at("booting").get<std::string>());
      case phase::terminating: return phases.at("terminating");
      case phase::terminated:
      case phase::gone: return phases.at("terminated");
    }
    return {};
  }

  nlohmann::json render_instance(const emu_instance& i, phase p) const {
    nlohmann::json obj = spec.emulator.value("instance_template", nlohmann::json::object());
    const auto& f = spec.instance_fields;
    write_field(obj, f, "id", i.id);
    write_field(obj, f, "name", i.name);
    write_field(obj, f, "status", phase_word(p));
    const bool addressed = (p == phase::running || p == phase::restarting) && !quirk("no_address");
    write_field(obj, f, "ip", addressed ? nlohmann::json(i.ip) : nlohmann::json(nullptr));
    write_field(obj, f, "region", i.region);
    write_field(obj, f, "instance_type", i.type);
    write_field(obj, f, "ssh_key_names", i.ssh_keys);
    return obj;
  }

  nlohmann::json render_key(const emu_key& k) const {
    nlohmann::json obj = nlohmann::json::object();
    write_field(obj, spec.ssh_key_fields, "id", k.id);
    write_field(obj, spec.ssh_key_fields, "name", k.name);
    write_field(obj, spec.ssh_key_fields, "public_key", k.public_key);
    return obj;
  }

  // ---- capacity -------------------------------------------------------------------------

  [[nodiscard]] const nlohmann::json* find_type(const std::string& name) const {
    for (const auto& t : spec.emulator.at("instance_types"))
      if (t.at("name") == name) return &t;
    return nullptr;
  }

  [[nodiscard]] long remaining(const nlohmann::json& type, const std::string& region, clock::time_point now) const {
    const auto& cap = type.at("capacity");
    long left = cap.contains(region) ? cap.at(region).get<long>() : 0;
    for (const auto& a : accounts)
      for (const auto& i : a.instances)
        if (i.type == type.at("name") && i.region == region && phase_of(i, now) != phase::gone &&
            phase_of(i, now) != phase::terminated)
          --left;
    return left;
  }

  // ---- request plumbing ------------------------------------------------------------------

  // Account for the credentials of a request, or nullopt when they are missing or unknown.
  [[nodiscard]] std::optional<std::size_t> authenticate(const http::request& req) const {
    std::string auth;
    for (const auto& [k, v] : req.headers)
      if (k.size() == 13 && std::equal(k.begin(), k.end(), "authorization", [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == b;
          }))
        auth = v;
    if (auth.empty()) return quirk("auth_missing_accepted") ? std::optional<std::size_t>(0) : std::nullopt;
    std::string key;
    const auto& schemes = spec.auth.schemes;
    if (auth.starts_with("Bearer ") &&
        std::find(schemes.begin(), schemes.end(), auth_scheme::bearer) != schemes.end()) {
      key = auth.substr(7);
    } else if (auth.starts_with("Basic ") &&
               std::find(schemes.begin(), schemes.end(), auth_scheme::basic_username) != schemes.end()) {
      key = decode_basic_user(auth.substr(6));
    }
    if (auto it = tenant_of_key.find(key); it != tenant_of_key.end() && !key.empty()) return it->second;
    return quirk("invalid_key_accepted") ? std::optional<std::size_t>(0) : std::nullopt;
  }

  static std::string decode_basic_user(const std::string& b64) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buf = 0;
    int bits = 0;
    for (char c : b64) {
      if (c == '=') break;
      auto pos = alphabet.find(c);
      if (pos == std::string::npos) return {};
      buf = (buf << 6) | static_cast<unsigned>(pos);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += static_cast<char>((buf >> bits) & 0xff);
      }
    }
    auto colon = out.find(':');
    return colon == std::string::npos ? out : out.substr(0, colon);
  }

  // Token bucket per credential; nullopt when allowed, else the response to send.
  std::optional<http::response> throttle(const http::request& req, clock::time_point now) {
    if (!opts.rate_limit || !spec.emulator.contains("rate_limit")) return std::nullopt;
    const auto& rl = spec.emulator.at("rate_limit");
    const double rate = rl.at("per_second").get<double>() / std::max(opts.time_scale, 1e-6);
    const double burst = rl.at("burst").get<double>();
    std::string who;
    for (const auto& [k, v] : req.headers)
      if (k == "Authorization" || k == "authorization") who = v;
    auto [it, fresh] = buckets.try_emplace(who, bucket{burst, now});
    auto& b = it->second;
    b.tokens = std::min(burst, b.tokens + std::chrono::duration<double>(now - b.last).count() * rate);
    b.last = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return std::nullopt;
    }
    auto r = error_response("rate_limited");
    if (rl.value("retry_after_header", false)) {
      const double wait_s = (1 - b.tokens) / rate;
      r.headers.emplace_back("Retry-After", std::to_string(static_cast<long>(std::ceil(wait_s))));
    }
    return r;
  }

  // Binds template variables from a request body: the value at each placeholder's pointer, or
  // the whole array when the placeholder is the single element of an array.
  static template_vars vars_from_body(const nlohmann::json& tmpl, const nlohmann::json& body) {
    template_vars vars;
    for (const auto& [name, ptr] : template_pointers(tmpl)) {
      const auto parent = parent_pointer(ptr);
      const auto* tparent = find_pointer(tmpl, parent);
      if (tparent != nullptr && tparent->is_array() && tparent->size() == 1) {
        if (const auto* v = find_pointer(body, parent)) vars[name] = *v;
      } else if (const auto* v = find_pointer(body, ptr)) {
        vars[name] = *v;
      }
    }
    return vars;
  }

  std::string new_id() {
    std::string id;
    for (int i = 0; i < 32; ++i) id += "0123456789abcdef"[rng() % 16];
    return id;
  }

  // ---- operations ------------------------------------------------------------------------

  http::response list_offers(const operation_spec& op, clock::time_point now) {
    nlohmann::json collection = op.items_are_object_values ? nlohmann::json::object() : nlohmann::json::array();
    const auto& regions = spec.emulator.at("regions");
    for (const auto& t : spec.emulator.at("instance_types")) {
      nlohmann::json item = t.value("object", nlohmann::json::object());
      const auto name = t.at("name").get<std::string>();
      std::vector<std::string> available;
      for (const auto& [r, _] : regions.items())
        if (remaining(t, r, now) > 0) available.push_back(r);
      write_field(item, spec.offer_fields, "instance_type", name);
      if (t.contains("description")) write_field(item, spec.offer_fields, "description", t.at("description"));
      nlohmann::json price = t.at("price_per_hour_usd");
      write_field(item, spec.offer_fields, "price_per_hour_usd", price);
      if (quirk("offers_schema_drift"))
        if (auto it = spec.offer_fields.find("price_per_hour_usd"); it != spec.offer_fields.end())
          set_pointer(item, it->second.pointer, find_pointer(item, it->second.pointer)->dump());
      write_field(item, spec.offer_fields, "regions_available", available);
      if (op.items_are_object_values) collection[name] = std::move(item);
      else collection.push_back(std::move(item));
    }
    nlohmann::json body = nlohmann::json::object();
    set_pointer(body, op.items.value_or(""), std::move(collection));
    return json_response(op.success_status.front(), body);
  }

  http::response launch(const operation_spec& op, account& acct, const template_vars& vars, clock::time_point now) {
    auto var = [&](const char* n) { return vars.contains(n) ? first_string(vars.at(n)) : std::string(); };
    const auto type_name = var("instance_type");
    const auto region = var("region");
    const auto key_name = var("ssh_key_name");
    const auto* type = find_type(type_name);
    if (type == nullptr && !quirk("unknown_type_accepted"))
      return error_response("invalid_parameters", "Invalid instance type: " + type_name);
    if (!spec.emulator.at("regions").contains(region))
      return error_response("invalid_parameters", "Invalid region: " + region);
    if (!key_name.empty() && spec.operation(operation_id::ssh_keys_add) != nullptr &&
        std::none_of(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.name == key_name; }))
      return error_response("invalid_parameters", "Unknown SSH key: " + key_name);
    if (type != nullptr && remaining(*type, region, now) <= 0) return error_response("insufficient_capacity");

    emu_instance inst;
    inst.id = new_id();
    inst.name = var("name");
    inst.type = type_name;
    inst.region = region;
    if (!key_name.empty()) inst.ssh_keys.push_back(key_name);
    inst.ip = "198.51.100." + std::to_string(next_ip++ % 250 + 1);  // RFC 5737 documentation range
    inst.boot_done = now + scaled(emu_number("boot_s", 0));
    acct.instances.push_back(inst);

    nlohmann::json body = nlohmann::json::object();
    if (auto it = op.fields.find("instance_id"); it != op.fields.end()) {
      if (quirk("launch_without_id")) set_pointer(body, parent_pointer(it->second.pointer), nlohmann::json::array());
      else set_pointer(body, it->second.pointer, inst.id);
    }
    if (op.item) {
      auto obj = render_instance(inst, phase_of(inst, now));
      if (quirk("launch_without_id")) obj.erase("id");
      set_pointer(body, *op.item, std::move(obj));
    }
    return json_response(op.success_status.front(), body);
  }

  emu_instance* find_instance(account& acct, const std::string& id, clock::time_point now) {
    for (auto& i : acct.instances)
      if (i.id == id && phase_of(i, now) != phase::gone) return &i;
    return nullptr;
  }

  http::response get(const operation_spec& op, account& acct, const std::string& id, clock::time_point now) {
    auto* inst = find_instance(acct, id, now);
    if (inst == nullptr || quirk("get_not_found")) {
      if (inst == nullptr && quirk("unknown_id_200")) {
        nlohmann::json body = nlohmann::json::object();
        set_pointer(body, op.item.value_or(""), nlohmann::json::object());
        return json_response(200, body);
      }
      return error_response("not_found");
    }
    nlohmann::json body = nlohmann::json::object();
    set_pointer(body, op.item.value_or(""), render_instance(*inst, phase_of(*inst, now)));
    return json_response(op.success_status.front(), body);
  }

  http::response list(const operation_spec& op, account& acct, clock::time_point now) {
    nlohmann::json items = nlohmann::json::array();
    if (!quirk("list_omits_instances")) {
      for (const auto& i : acct.instances) {
        auto p = phase_of(i, now);
        if (p == phase::gone || p == phase::terminated) {
          if (!quirk("ghost_after_terminate")) continue;
          p = phase::running;  // the ghost: still listed, still "running", still billed
        }
        if (p == phase::terminating && quirk("ghost_after_terminate")) p = phase::running;
        items.push_back(render_instance(i, p));
      }
    }
    nlohmann::json body = nlohmann::json::object();
    set_pointer(body, op.items.value_or(""), std::move(items));
    return json_response(op.success_status.front(), body);
  }

  // terminate and restart share the shape: ids from the body or the path, all must exist.
  http::response act(const operation_spec& op, account& acct, const std::vector<std::string>& ids, bool terminate,
                     clock::time_point now) {
    if (ids.empty()) return error_response("invalid_parameters", "No instance ids given.");
    std::vector<emu_instance*> targets;
    for (const auto& id : ids) {
      auto* inst = find_instance(acct, id, now);
      if (inst == nullptr) return error_response("not_found");
      if (!terminate && phase_of(*inst, now) != phase::running)
        return error_response("invalid_parameters", "Instance " + id + " is not running.");
      targets.push_back(inst);
    }
    if (terminate && quirk("terminate_500")) return error_response("internal");
    nlohmann::json items = nlohmann::json::array();
    for (auto* inst : targets) {
      if (terminate) {
        if (!inst->terminated_at) inst->terminated_at = now;
      } else {
        inst->restart_until = now + scaled(emu_number("boot_s", 0));
      }
      items.push_back(render_instance(*inst, phase_of(*inst, now)));
    }
    if (op.success_status.front() == 204) return http::response{204, {}, {}};
    nlohmann::json body = nlohmann::json::object();
    if (op.items) set_pointer(body, *op.items, std::move(items));
    return json_response(op.success_status.front(), body);
  }

  http::response list_keys(const operation_spec& op, account& acct) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& k : acct.keys) items.push_back(render_key(k));
    nlohmann::json body = nlohmann::json::object();
    set_pointer(body, op.items.value_or(""), std::move(items));
    return json_response(op.success_status.front(), body);
  }

  http::response add_key(const operation_spec& op, account& acct, const template_vars& vars) {
    const auto name = vars.contains("name") ? first_string(vars.at("name")) : std::string();
    if (name.empty()) return error_response("invalid_parameters", "A key name is required.");
    if (std::any_of(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.name == name; }))
      return error_response("invalid_parameters", "An SSH key named " + name + " already exists.");
    emu_key k{new_id(), name, vars.contains("public_key") ? first_string(vars.at("public_key")) : std::string()};
    bool generated = false;
    if (k.public_key.empty()) {
      // The provider generates a pair when no public key is given and returns the private half once.
      k.public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmulatedKeyEmulatedKeyEmulatedKeyEmulated " + name;
      generated = true;
    }
    acct.keys.push_back(k);
    auto obj = render_key(k);
    if (generated)
      write_field(obj, spec.ssh_key_fields, "private_key",
                  "-----BEGIN OPENSSH PRIVATE KEY-----\nemulated\n-----END OPENSSH PRIVATE KEY-----\n");
    nlohmann::json body = nlohmann::json::object();
    set_pointer(body, op.item.value_or(""), std::move(obj));
    return json_response(op.success_status.front(), body);
  }

  http::response delete_key(const operation_spec& op, account& acct, const std::string& id) {
    auto it = std::find_if(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.id == id; });
    if (it == acct.keys.end()) return error_response("not_found");
    acct.keys.erase(it);
    if (op.success_status.front() == 204) return http::response{204, {}, {}};
    return json_response(op.success_status.front(), nlohmann::json::object());
  }

  http::response dispatch(const http::request& req) {
    const auto now = opts.now();
    std::string path = req.url.substr(0, req.url.find('?'));
    if (auto limited = throttle(req, now)) return *limited;
    const auto tenant = authenticate(req);
    if (!tenant) {
      auto r = error_response("unauthorized");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"api\"");
      return r;
    }
    auto& acct = accounts.at(*tenant);
    if (!path.starts_with(base_path)) return unknown_path();
    std::string rel = path.substr(base_path.size());
    if (rel.empty()) rel = "/";

    const operation_spec* op = nullptr;
    std::map<std::string, std::string> params;
    std::set<std::string> allowed;
    for (const auto& [id, candidate] : spec.operations) {
      std::map<std::string, std::string> p;
      if (!match_path(candidate.path, rel, p)) continue;
      allowed.insert(candidate.method);
      if (candidate.method == req.method && op == nullptr) {
        op = &candidate;
        params = std::move(p);
      }
    }
    if (op == nullptr && allowed.empty()) return unknown_path();
    if (op == nullptr) {
      auto r = error_response("method_not_allowed");
      if (!quirk("no_allow_header")) {
        std::string allow;
        for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
        r.headers.emplace_back("Allow", allow);
      }
      return r;
    }

    template_vars vars;
    for (const auto& [k, v] : params) vars[k] = v;
    if (op->body || op->request_schema) {
      auto body = parse_json(req.body, 64);
      if (!body) {
        if (quirk("malformed_json_500")) return error_response("internal");
        return error_response("invalid_parameters", "The request body is not valid JSON.");
      }
      if (auto it = request_schemas.find(op->id); it != request_schemas.end()) {
        auto violations = it->second.validate(*body);
        if (!violations.empty() && !(op->id == operation_id::launch && quirk("unknown_type_accepted")))
          return error_response("invalid_parameters",
                                (violations.front().pointer.empty() ? "body" : violations.front().pointer) + ": " +
                                    violations.front().message);
      }
      if (op->body)
        for (auto& [k, v] : vars_from_body(*op->body, *body)) vars.emplace(k, v);
    }

    switch (op->id) {
      case operation_id::list_offers: return list_offers(*op, now);
      case operation_id::launch: return launch(*op, acct, vars, now);
      case operation_id::get: return get(*op, acct, first_string(vars["id"]), now);
      case operation_id::list: return list(*op, acct, now);
      case operation_id::terminate: return act(*op, acct, all_strings(vars["id"]), true, now);
      case operation_id::restart: return act(*op, acct, all_strings(vars["id"]), false, now);
      case operation_id::ssh_keys_list: return list_keys(*op, acct);
      case operation_id::ssh_keys_add: return add_key(*op, acct, vars);
      case operation_id::ssh_keys_delete: return delete_key(*op, acct, first_string(vars["id"]));
      case operation_id::unknown: break;
    }
    return error_response("internal");
  }

  http::response unknown_path() const {
    if (quirk("unknown_path_200")) return json_response(200, nlohmann::json::object());
    return error_response("not_found", "Not found.");
  }
};

provider_model::provider_model(const provider_spec& spec, model_options options)
    : impl_(std::make_unique<impl>(spec, std::move(options))) {}

provider_model::~provider_model() = default;

http::response provider_model::handle(const http::request& req) {
  std::lock_guard lock(impl_->mu);
  auto r = impl_->dispatch(req);
  r.headers.emplace_back(emulator_header_name, impl_->spec.provider.id);
  r.headers.emplace_back(time_scale_header_name, std::to_string(impl_->opts.time_scale));
  return r;
}

const std::string& provider_model::base_path() const { return impl_->base_path; }

std::size_t provider_model::live_instances() const {
  std::lock_guard lock(impl_->mu);
  std::size_t n = 0;
  for (const auto& a : impl_->accounts)
    n += static_cast<std::size_t>(std::count_if(a.instances.begin(), a.instances.end(),
                                                [](const auto& i) { return !i.terminated_at; }));
  return n;
}

const provider_spec& provider_model::spec() const { return impl_->spec; }
const model_options& provider_model::options() const { return impl_->opts; }

}  // namespace neograde::emulator
