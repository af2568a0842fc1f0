// Responses in the provider's own format: the error envelope, provider objects written where the
// spec says the provider keeps each field, and pages of lists.

#include "model_impl.hpp"

#include <neograde/core/clock.hpp>
#include <neograde/core/json_util.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace neograde::emulator {

namespace {

// An OpenSSH public key's MD5 fingerprint, "aa:bb:...": the digest of the key blob (the
// base64 part of "type blob comment"), as DigitalOcean reports a key's fingerprint.
std::string md5_fingerprint(const std::string& public_key) {
  const auto start = public_key.find(' ');
  std::string blob = start == std::string::npos ? public_key : public_key.substr(start + 1);
  blob = blob.substr(0, blob.find(' '));
  std::string raw(blob.size(), '\0');
  int n = blob.size() % 4 == 0 ? EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                                                 reinterpret_cast<const unsigned char*>(blob.data()), static_cast<int>(blob.size()))
                               : -1;
  if (n < 0) {
    raw = public_key;  // not base64: the digest of the text, still a well-formed fingerprint
  } else {
    std::size_t pad = 0;  // EVP_DecodeBlock counts the padding as zero bytes
    for (auto it = blob.rbegin(); it != blob.rend() && *it == '=' && pad < 2; ++it) ++pad;
    raw.resize(static_cast<std::size_t>(n) - pad);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(raw.data(), raw.size(), digest, &len, EVP_md5(), nullptr);
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    static constexpr char hex[] = "0123456789abcdef";
    if (i > 0) out += ':';
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace

std::string first_string(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();  // a count or an id some clients send as a number
  if (v.is_array() && !v.empty() && v.front().is_string()) return v.front().get<std::string>();
  return {};
}

std::vector<std::string> all_strings(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_string() || v.is_number_integer()) out.push_back(first_string(v));
  if (v.is_array())
    for (const auto& e : v)
      if (e.is_string() || e.is_number_integer()) out.push_back(first_string(e));
  return out;
}

std::string parent_pointer(const std::string& ptr) {
  auto slash = ptr.rfind('/');
  return slash == std::string::npos ? std::string() : ptr.substr(0, slash);
}

http::response provider_model::impl::json_response(int status, const nlohmann::json& body) const {
  http::response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", has(quirk::success_text_plain) && status < 300 ? "text/plain" : "application/json");
  r.body = dump_json(body);
  return r;
}

http::response provider_model::impl::error_response(const std::string& kind, const std::string& message) const {
  error_kind k{500, "", "Internal error"};
  std::string text = message;
  if (auto it = spec.errors.kinds.find(kind); it != spec.errors.kinds.end()) {
    k = it->second;
  } else if (kind == "insufficient_capacity" && spec.errors.kinds.contains("invalid_parameters")) {
    // A spec that documents no capacity error: refuse as a client error, never a 500.
    k = spec.errors.kinds.at("invalid_parameters");
    if (text.empty()) text = "Not enough capacity for the requested instance type.";
  }
  if (text.empty()) text = k.message;
  if (has(quirk::stack_traces))
    text +=
        "\nTraceback (most recent call last):\n  File \"/srv/api/handlers.py\", line 212, in dispatch\n"
        "psycopg2.errors.UndefinedTable: relation \"instances\" does not exist";
  if (has(quirk::undocumented_error_code)) k.code = "E_UNDOCUMENTED_42";
  http::response r;
  r.status = k.status;
  if (has(quirk::html_errors)) {
    r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
    r.body = "<html><head><title>" + std::to_string(k.status) + "</title></head><body><h1>Error</h1><p>" + text + "</p></body></html>";
    return r;
  }
  template_vars vars{{"code", k.code}, {"message", text}, {"status", k.status}};
  // A kind's `name` (Akash's error class beside its code), where the spec declares one.
  if (const auto* name = find_pointer(spec.raw, "/errors/kinds/" + kind + "/name"); name != nullptr && name->is_string())
    vars["name"] = *name;
  // Providers whose codes are numbers (gRPC status codes) render {{code_number}}.
  if (!k.code.empty() && k.code.find_first_not_of("0123456789") == std::string::npos) vars["code_number"] = std::stoll(k.code);
  r.headers.emplace_back("Content-Type", spec.errors.content_type);
  r.body = dump_json(render_body(spec.errors.body_template, vars));
  return r;
}

// Writes a canonical value where the spec says the provider keeps it. Regions known to the
// emulator are written as the provider's region object at the parent of a nested pointer.
void provider_model::impl::write_field(nlohmann::json& obj, const std::map<std::string, field_path>& fields, const std::string& name,
                                       const nlohmann::json& value) const {
  auto it = fields.find(name);
  if (it == fields.end()) return;
  // A field with alternatives goes where the object's static members leave it open (a community
  // row's static prices set onDemand null, so its price goes to communityPrice).
  std::optional<field_path> placed;
  if (!it->second.alternatives.empty()) placed.emplace(it->second).pointer = it->second.written_at(obj);
  const auto& f = placed ? *placed : it->second;
  auto region_object = [&](const std::string& r) -> const nlohmann::json* {
    const auto found = emu.regions.find(r);
    return found != emu.regions.end() ? &found->second : nullptr;
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
    // An empty region object says nothing: the region is written at its pointer as any field
    // (written over the parent, it wiped Latitude.sh's whole /attributes for /attributes/site).
    if (const auto* ro = region_object(value.get<std::string>()); ro != nullptr && !ro->empty() && !parent.empty()) {
      set_pointer(obj, parent, *ro);
      return;
    }
  }
  if (f.as_integer && value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (!text.empty() && text.size() < 19 && text.find_first_not_of("0123456789") == std::string::npos) {
      set_pointer(obj, f.pointer, std::stoll(text));
      return;
    }
  }
  if (value.is_number() && f.as_string) {
    set_pointer(obj, f.pointer, std::to_string(value.get<double>() / f.scale));
    return;
  }
  if (value.is_number() && f.scale != 1) {
    const double raw = value.get<double>() / f.scale;
    if (std::abs(raw - std::round(raw)) < 1e-6) set_pointer(obj, f.pointer, static_cast<long long>(std::llround(raw)));
    else
      set_pointer(obj, f.pointer, raw);
    return;
  }
  if (value.is_null() && f.omit_null) return;  // the provider leaves the member out (or its list empty)
  set_pointer(obj, f.pointer, value);
}

std::string provider_model::impl::phase_word(phase p) const {
  auto word = documented_phase_word(p);
  if (has(quirk::status_words_upper_case))
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return word;
}

std::string provider_model::impl::documented_phase_word(phase p) const {
  switch (p) {
    case phase::waiting: return emu.phases.waiting;
    case phase::booting: return has(quirk::unknown_status_word) ? "initializing_hw" : emu.phases.booting;
    case phase::running: return emu.phases.running;
    case phase::restarting: return emu.phases.restarting;
    case phase::stopping: return emu.phases.stopping;
    case phase::starting: return emu.phases.starting;
    // The spec's documented stopped word (DigitalOcean's "off"; Genesis Cloud names its current
    // "stopped" over the legacy "shutoff"); where it has none, the instance stays booting.
    case phase::stopped: return emu.phases.stopped.empty() ? emu.phases.booting : emu.phases.stopped;
    case phase::terminating: return emu.phases.terminating;
    case phase::terminated:
    case phase::gone: return emu.phases.terminated;
  }
  return {};
}

// A documented word of a pending instance: the booting word where it is one, else the first such
// word the spec documents (the booting word where there is none).
std::string provider_model::impl::pending_word() const {
  auto pending = [&](const std::string& w) {
    const auto it = spec.states.find(w);
    return it != spec.states.end() && it->second == instance_state::pending;
  };
  const auto booting = phase_word(phase::booting);
  if (pending(booting)) return booting;
  const auto first = spec.first_word(instance_state::pending);
  return first.empty() ? booting : first;
}

// `from`: the operation that returns the object (its own fields override the spec's).
nlohmann::json provider_model::impl::render_instance(const emu_instance& i, phase p, operation_id from) {
  // flapping: a running instance reads as booting on every third read of it (get or list),
  // without a restart: counted per instance, so what one client sees does not depend on what
  // others read in between. Booting in a documented word that means it: where the API boots in its
  // running word (RunPod's GraphQL RUNNING, Voltage Park's Running), another documented word of a
  // pending instance (CREATED, Relocating); an API that documents none cannot go back.
  // Running is what the status word says: RunPod's GraphQL reads RUNNING while the pod boots.
  auto status = phase_word(p);
  const auto state = spec.states.find(status);
  const bool reads_running = p == phase::running || (state != spec.states.end() && state->second == instance_state::running);
  if (reads_running && has(quirk::flapping) && (++i.running_reads % 3 == 0)) {
    p = phase::booting;
    status = pending_word();
  }
  // An operation that answers its own shape of the instance (emulator.instance_templates: Prime
  // Intellect's status and history objects) starts from its template and keeps its members only.
  const auto own = emu.instance_templates.find(from);
  nlohmann::json obj = own != emu.instance_templates.end() ? own->second : emu.instance_template;
  if (!i.members.empty()) {
    auto vars = instance_vars(i);
    vars["status"] = status;
    for (const auto& [pointer, tmpl] : i.members) set_pointer(obj, pointer, render_body(tmpl, vars));
  }
  const auto f = spec.instance_fields_of(from);
  write_field(obj, f, "id", i.id);
  write_field(obj, f, "name", i.name);
  write_field(obj, f, "status", status);
  const bool addressed = (p == phase::running || p == phase::restarting || p == phase::stopping) && !has(quirk::no_address);
  // Before it has one: null, or what the spec says the document requires there (Crusoe: a string),
  // at the address or at the object that holds it (RunPod's runtime, null unless RUNNING).
  if (addressed || emu.unaddressed_at.empty()) write_field(obj, f, "ip", addressed ? nlohmann::json(i.ip) : emu.unaddressed);
  else
    set_pointer(obj, emu.unaddressed_at, emu.unaddressed);
  if (addressed && has(quirk::instance_schema_drift))
    if (auto it = f.find("ip"); it != f.end()) set_pointer(obj, it->second.pointer, 3325256714LL);  // an address as a number
  // A private address (the public one's last octet in 10.0.0.0/24) where clients index one.
  const auto private_ip = "10.0.0." + i.ip.substr(i.ip.rfind('.') + 1);
  write_field(obj, f, "private_ip", addressed ? nlohmann::json(private_ip) : nlohmann::json(nullptr));
  if (addressed) render_ssh(obj, i);
  write_field(obj, f, "region", i.region);
  write_field(obj, f, "instance_type",
              has(quirk::wrong_type_delivered)                 ? other_type(i.type)
              : has(quirk::fixed_type_delivered) && first_type ? *first_type
                                                               : i.type);
  write_field(obj, f, "ssh_key_names", i.ssh_keys);
  // What it is billed per hour and the launch parameters it shows, as its offer row listed them
  // (the emulator refuses a launch whose parameters are not the row's).
  if (const auto* type = i.entry; type != nullptr) {
    if (const auto& price = type->price_per_hour_usd; price.is_number())
      write_field(obj, f, "price_per_hour_usd", has(quirk::price_above_row) ? nlohmann::json(price.get<double>() * 1.25) : price);
    for (const auto& [param, value] : type->params) {
      if (param == "underlying_provider" || !f.contains(param)) continue;
      const bool doubled = param == "gpu_count" && has(quirk::gpu_count_doubled) && !value.empty() &&
                           value.find_first_not_of("0123456789") == std::string::npos && value.size() < 10;
      write_field(obj, f, param, doubled ? std::to_string(2 * std::stol(value)) : value);
    }
  }
  if (f.contains("underlying_provider")) {
    const auto named = underlying_provider_of(i.entry);
    write_field(obj, f, "underlying_provider", has(quirk::underlying_provider_swapped) ? other_underlying_provider(named) : named);
  }
  // Published ports beside the template's, Docker-style: {"10022/tcp": [{"HostIp", "HostPort"}]},
  // each on a host port of its own.
  if (const auto& ports = emu.published_ports; ports && !i.ports.empty()) {
    const auto* templated = find_pointer(obj, ports->into);
    auto map = templated != nullptr ? *templated : nlohmann::json::object();
    long host = ports->first_host_port;
    for (const auto& port : i.ports) map[port] = nlohmann::json::array({{{"HostIp", "0.0.0.0"}, {"HostPort", std::to_string(host++)}}});
    set_pointer(obj, ports->into, std::move(map));
  }
  // When it was terminated (null before), as ISO 8601 UTC; what it has been charged so far.
  const auto seconds_since = [&](clock::time_point t) {
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(opts.now() - t).count());
  };
  write_field(obj, f, "terminated_at", i.terminated_at ? nlohmann::json(utc_iso8601_ago(seconds_since(*i.terminated_at))) : nullptr);
  if (f.contains("billed_usd")) write_field(obj, f, "billed_usd", std::round(charged_usd(i, opts.now()) * 100) / 100);
  if (own != emu.instance_templates.end())
    for (auto it = obj.begin(); it != obj.end();) it = own->second.contains(it.key()) ? std::next(it) : obj.erase(it);
  return obj;
}

// The SSH endpoint, wherever the spec's `ssh` section says the provider states it: every
// declaration written, as the real APIs state several (RunPod's ssh.direct beside its port
// mappings). A port-mapping array with a public flag lists the private address first, as
// RunPod's does (OneTrainer picks the isIpPublic entry: modules/cloud/RunpodCloud.py @c887dc2),
// so that a client taking the first entry reaches nothing. A value the template writes as a
// string (Vast.ai's HostPort "41234") is written as one.
void provider_model::impl::render_ssh(nlohmann::json& obj, const emu_instance& i) const {
  if (!spec.ssh) return;
  const auto& ssh = *spec.ssh;
  const int port = opts.instance_ssh_port != 0 ? opts.instance_ssh_port : ssh.port;
  const std::string user = !opts.instance_ssh_user.empty() ? opts.instance_ssh_user : ssh.user;
  auto put = [](nlohmann::json& at, const std::string& pointer, nlohmann::json value) {
    if (pointer.empty()) return;
    if (const auto* was = find_pointer(at, pointer); was != nullptr && was->is_string() && !value.is_string()) value = value.dump();
    set_pointer(at, pointer, std::move(value));
  };
  for (const auto& d : ssh.endpoints) {
    if (!d.connection.empty()) {
      put(obj, d.connection, user + "@" + i.ip + " -p " + std::to_string(port));
    } else if (!d.entries.empty()) {
      auto entry = [&](const std::string& host, int p, bool is_public) {
        nlohmann::json e = nlohmann::json::object();
        for (const auto& [k, v] : d.where) set_pointer(e, k, v);
        put(e, d.host, host);
        put(e, d.port, p);
        put(e, d.user, user);
        put(e, d.public_flag, is_public);
        return e;
      };
      auto entries = nlohmann::json::array();
      if (!d.public_flag.empty()) entries.push_back(entry("10.0.0." + i.ip.substr(i.ip.rfind('.') + 1), ssh.port, false));
      entries.push_back(entry(i.ip, port, true));
      set_pointer(obj, d.entries, std::move(entries));
    } else {
      put(obj, d.host, i.ip);
      put(obj, d.port, port);
      put(obj, d.user, user);
    }
  }
  // The ready-to-run invocation beside the parts (RunPod's PodSshEndpoint.command).
  if (!emu.ssh_command.empty()) put(obj, emu.ssh_command, "ssh " + user + "@" + i.ip + " -p " + std::to_string(port));
}

nlohmann::json provider_model::impl::render_key(const emu_key& k, operation_id from) const {
  nlohmann::json obj = emu.ssh_key_template;
  const auto f = spec.ssh_key_fields_of(from);
  write_field(obj, f, "id", k.id);
  write_field(obj, f, "name", k.name);
  write_field(obj, f, "public_key", k.public_key);
  // A digest per key and per listing: computed only for a spec whose keys show one.
  if (f.contains("fingerprint")) write_field(obj, f, "fingerprint", md5_fingerprint(k.public_key));
  return obj;
}

// Static parts of a response the spec's emulator section declares (e.g. DigitalOcean's action
// links), which the rendered fields are written into.
nlohmann::json provider_model::impl::response_template(const operation_spec& op) const {
  const auto it = emu.response_templates.find(op.id);
  return it != emu.response_templates.end() ? it->second : nlohmann::json::object();
}

// Writes one page of `items` into a list response as the operation's pagination declares.
http::response provider_model::impl::page_of(const operation_spec& op, nlohmann::json items, const std::string& raw_query) {
  nlohmann::json body = response_template(op);
  // An object keyed by each item's `keys_are` field (Thunder Compute's instances, by id), which the
  // item then leaves out ("Populated from map key by client"); by position without it. Unpaged.
  if (op.items_are_object_values) {
    const auto fields = spec.item_fields_of(op.id);
    const auto field = op.keys_are ? fields.find(*op.keys_are) : fields.end();
    nlohmann::json keyed = nlohmann::json::object();
    for (auto& item : items) {
      std::string key = std::to_string(keyed.size());
      if (field != fields.end())
        if (const auto* v = find_pointer(item, field->second.pointer); v != nullptr) {
          key = v->is_string() ? v->get<std::string>() : v->dump();
          erase_member(item, field->second.pointer);
        }
      keyed[key] = std::move(item);
    }
    set_pointer(body, op.items.value_or(""), std::move(keyed));
    return json_response(op.success_status.front(), body);
  }
  if (op.pagination) {
    const auto& pg = *op.pagination;
    std::map<std::string, std::string> q;
    for (auto& [k, v] : parse_query(raw_query)) q[k] = v;
    auto number = [&](const std::string& name, long fallback) -> std::optional<long> {
      if (name.empty() || !q.contains(name)) return fallback;
      try {
        std::size_t used = 0;
        long v = std::stol(q.at(name), &used);
        if (used != q.at(name).size() || v < 0) return std::nullopt;
        return v;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    auto size = has(quirk::page_size_ignored) ? std::optional<long>(1000) : number(pg.size_param, pg.size);
    if (!size || *size < 1 || *size > 1000) return error_response("invalid_parameters", "Invalid page size.");
    long start = 0;
    if (pg.style == "page") {
      auto page = number(pg.page_param, pg.first_page);
      if (!page || *page < pg.first_page) return error_response("invalid_parameters", "Invalid page.");
      start = (*page - pg.first_page) * *size;
    } else if (pg.style == "offset") {
      auto offset = number(pg.offset_param, 0);
      if (!offset) return error_response("invalid_parameters", "Invalid offset.");
      start = *offset;
    } else if (q.contains(pg.token_param)) {
      const auto& token = q.at(pg.token_param);
      if (!token.starts_with("cursor-")) return error_response("invalid_parameters", "Invalid page token.");
      try {
        start = std::stol(token.substr(7));
      } catch (const std::exception&) {
        return error_response("invalid_parameters", "Invalid page token.");
      }
    }
    if (has(quirk::page_repeats)) start = 0;  // every page is the first page again
    const long total = static_cast<long>(items.size());
    nlohmann::json slice = nlohmann::json::array();
    for (long i = start; i < std::min(total, start + *size); ++i) slice.push_back(items[static_cast<std::size_t>(i)]);
    // next_link_on_last_page: every page says more follow, the last one (and any past it) too.
    const bool more = start + *size < total || has(quirk::next_link_on_last_page);
    if (!pg.more_pointer.empty()) set_pointer(body, pg.more_pointer, more);
    // page_total_wrong: every object counted twice (a Prime Intellect-shaped catalogue whose
    // totalCount a client walking to it never reaches).
    if (!pg.total_pointer.empty()) set_pointer(body, pg.total_pointer, has(quirk::page_total_wrong) ? 2 * total : total);
    if (!pg.previous_pointer.empty()) set_pointer(body, pg.previous_pointer, start > 0);
    if (pg.style == "token")
      set_pointer(body, pg.next_pointer, more ? nlohmann::json("cursor-" + std::to_string(start + *size)) : pg.end_token);
    // Links as DigitalOcean writes them: next on every page but the last, last on every page but
    // the last (links.pages is {} on a single page); the request's query with the page replaced.
    const long last_start = total == 0 ? 0 : (total - 1) / *size * *size;
    auto link = [&](long page_start) {
      std::string query;
      for (const auto& [k, v] : parse_query(raw_query))
        if (k != pg.page_param && k != pg.offset_param) query += (query.empty() ? "" : "&") + k + "=" + v;
      const auto position = pg.style == "page" ? std::make_pair(pg.page_param, page_start / *size + pg.first_page)
                                               : std::make_pair(pg.offset_param, page_start);
      query += (query.empty() ? "" : "&") + position.first + "=" + std::to_string(position.second);
      return base_path + op.path.substr(0, op.path.find('?')) + "?" + query;
    };
    if (!pg.next_link_pointer.empty() && more) set_pointer(body, pg.next_link_pointer, link(start + *size));
    if (!pg.last_link_pointer.empty() && start < last_start) set_pointer(body, pg.last_link_pointer, link(last_start));
    items = std::move(slice);
  }
  set_pointer(body, op.items.value_or(""), std::move(items));
  return json_response(op.success_status.front(), body);
}

void provider_model::impl::write_action(nlohmann::json& body, const action_spec& a, const std::string& id,
                                        const std::string& status) const {
  set_pointer(body, a.id_pointer, a.id_is_integer ? nlohmann::json(std::stoll(id)) : nlohmann::json(id));
  set_pointer(body, a.status_pointer, status);
}

// Binds template variables from a request body: the value at each placeholder's pointer, or
// the whole array when the placeholder is the single element of an array.
template_vars provider_model::impl::vars_from_body(const nlohmann::json& tmpl, const nlohmann::json& body) {
  template_vars vars;
  for (const auto& [name, ptr] : template_pointers(tmpl)) {
    const auto parent = parent_pointer(ptr);
    if (ptr.ends_with("}}") && ptr.substr(parent.size() + 1).starts_with("{{")) {
      // A key placeholder: the key of the body's object there (when it has exactly one).
      if (const auto* obj = find_pointer(body, parent); obj != nullptr && obj->is_object() && obj->size() == 1)
        vars[name] = obj->begin().key();
      continue;
    }
    const auto* tparent = find_pointer(tmpl, parent);
    if (tparent != nullptr && tparent->is_array() && tparent->size() == 1) {
      if (const auto* v = find_pointer(body, parent)) vars[name] = *v;
    } else if (const auto* v = find_pointer(body, ptr)) {
      vars[name] = *v;
    }
  }
  return vars;
}

}  // namespace neograde::emulator
