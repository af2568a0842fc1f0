// The instance state machine: launch, read, list, terminate and restart, with the phases an
// instance goes through on the spec's timings, and the actions that report on them later.

#include "model_impl.hpp"

#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace neograde::emulator {

phase provider_model::impl::phase_of(const emu_instance& i, clock::time_point now) const {
  if (i.terminated_at) {
    if (has(quirk::terminate_stuck)) return phase::terminating;
    const auto done = *i.terminated_at + scaled(emu.terminate_s);
    if (now >= done + scaled(emu.gone_after_s)) return phase::gone;
    return now >= done ? phase::terminated : phase::terminating;
  }
  if (i.waiting) return phase::waiting;
  if (has(quirk::stuck_booting) || now < i.boot_done) return phase::booting;
  // Powered off by a stop (and on again by a start, once its time is up).
  if (i.off_from && !(i.on_from && now >= *i.on_from)) {
    if (now < *i.off_from) return phase::stopping;
    return i.on_from ? phase::starting : phase::stopped;
  }
  if (i.restart_until && now < *i.restart_until) return phase::restarting;
  if (i.restart_until && has(quirk::restart_ends_off)) return phase::stopped;
  return phase::running;
}

// The container ports a launch body asks to publish, as Docker's `-p [host:]container[/proto]`
// options in the spec's emulator.published_ports.from (Vast.ai's env: an object whose keys are
// the options, as the official CLI and dstack send it, or one string of them).
std::vector<std::string> provider_model::impl::requested_ports(const nlohmann::json& body) const {
  std::vector<std::string> out;
  const auto* from = emu.published_ports ? find_pointer(body, emu.published_ports->from) : nullptr;
  if (from == nullptr) return out;
  std::string options;
  if (from->is_string()) options = from->get<std::string>();
  else if (from->is_object())
    for (const auto& [key, _] : from->items()) options += " " + key;
  std::istringstream words(options);
  for (std::string word; words >> word;) {
    if (word != "-p" || !(words >> word)) continue;
    const auto colon = word.rfind(':');
    auto port = colon == std::string::npos ? word : word.substr(colon + 1);
    if (port.empty() || !std::isdigit(static_cast<unsigned char>(port.front()))) continue;
    if (port.find('/') == std::string::npos) port += "/tcp";
    if (std::find(out.begin(), out.end(), port) == out.end()) out.push_back(port);
  }
  return out;
}

// Another instance type than the one ordered (what a bait-and-switch delivers).
std::string provider_model::impl::other_type(const std::string& ordered) const {
  for (const auto& t : emu.instance_types)
    if (t.name != ordered) return t.name;
  return ordered + "_throttled";
}

// Whose capacity an instance type is, as its offer rows name it (offer field underlying_provider:
// a launch parameter of the type, or a static member of its rows or of their enclosing item).
std::string provider_model::impl::underlying_provider_of(const emu_instance_type* t) const {
  const auto field = spec.offer_fields.find("underlying_provider");
  if (t == nullptr || field == spec.offer_fields.end()) return {};
  if (const auto p = t->params.find("underlying_provider"); p != t->params.end()) return p->second;
  const auto& pointer = field->second.pointer;
  const auto* v =
      pointer.starts_with('^') ? find_pointer(t->parent_object, std::string_view(pointer).substr(1)) : find_pointer(t->object, pointer);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// Another underlying provider than `named`: another type's, else a made-up one.
std::string provider_model::impl::other_underlying_provider(const std::string& named) const {
  for (const auto& t : emu.instance_types)
    if (const auto other = underlying_provider_of(&t); !other.empty() && other != named) return other;
  return named + "-subcontractor";
}

long provider_model::impl::remaining(const emu_instance_type& type, const std::string& region, clock::time_point now) const {
  const auto cap = type.capacity.find(region);
  long left = cap != type.capacity.end() ? cap->second : 0;
  for (const auto& a : accounts)
    for (const auto& i : a.instances)
      if (i.entry == &type && i.region == region && phase_of(i, now) != phase::gone && phase_of(i, now) != phase::terminated) --left;
  return left;
}

std::string provider_model::impl::new_hex(int n) {
  std::string id;
  for (int i = 0; i < n; ++i) id += "0123456789abcdef"[rng() % 16];
  return id;
}

// An instance id in the provider's style.
std::string provider_model::impl::new_instance_id() {
  if (emu.ids == id_style::integer) return std::to_string(next_integer_id++);
  if (emu.ids == id_style::uuid) {
    auto h = new_hex(32);
    return h.substr(0, 8) + "-" + h.substr(8, 4) + "-4" + h.substr(13, 3) + "-a" + h.substr(17, 3) + "-" + h.substr(20, 12);
  }
  return new_hex(32);
}

http::response provider_model::impl::launch(const operation_spec& op, account& acct, const template_vars& vars, clock::time_point now) {
  auto var = [&](const std::string& n) { return vars.contains(n) ? first_string(vars.at(n)) : std::string(); };
  auto type_name = var("instance_type");
  auto region = var("region");
  auto key_name = var("ssh_key_name");
  const auto key_id = var("ssh_key_id");
  const auto name = var("name");
  if (has(quirk::phantom_capacity)) return error_response("insufficient_capacity");
  if (has(quirk::missing_field_accepted) && type_name.empty()) type_name = emu.instance_types.front().name;
  // A launch body that names no type (Akash's SDL names its GPU inside a YAML string) gets the
  // first type with capacity somewhere.
  if (type_name.empty() && !launch_placeholders.contains("instance_type"))
    for (const auto& t : emu.instance_types)
      if (type_name.empty() &&
          std::any_of(emu.regions.begin(), emu.regions.end(), [&](const auto& r) { return remaining(t, r.first, now) > 0; }))
        type_name = t.name;
  // Providers whose launch names no region (Vast.ai buys a machine, not a region) get the
  // first region that has capacity (any region for a type only unknown_type_accepted takes).
  const bool any_region = has(quirk::missing_field_accepted) || has(quirk::unknown_region_accepted);
  if (any_region && !emu.regions.contains(region)) region.clear();
  std::map<std::string, std::string> sent;
  for (const auto& [placeholder, _] : launch_placeholders)
    if (vars.contains(placeholder)) sent[placeholder] = var(placeholder);
  const auto* type = emu.find_type(type_name, sent);
  if (type == nullptr && !has(quirk::unknown_type_accepted))
    return error_response("invalid_parameters", "Invalid instance type: " + type_name);
  if (region.empty() && (any_region || !launch_requires_region)) {
    for (const auto& [r, _] : emu.regions)
      if (type == nullptr || remaining(*type, r, now) > 0) {
        region = r;
        break;
      }
    if (region.empty()) return error_response("insufficient_capacity");
  }
  if (!emu.regions.contains(region)) return error_response("invalid_parameters", "Invalid region: " + region);
  // A key named by the id its add answered (Verda's ssh_key_ids, Spheron's sshKeyId): the
  // instance carries that key, by its name.
  if (!key_id.empty() && spec.operation(operation_id::ssh_keys_add) != nullptr) {
    const auto k = std::find_if(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.id == key_id; });
    if (k == acct.keys.end() && !has(quirk::unknown_ssh_key_accepted))
      return error_response("invalid_parameters", "Unknown SSH key id: " + key_id);
    if (k != acct.keys.end() && key_name.empty()) key_name = k->name.empty() ? k->id : k->name;
  }
  if (!key_name.empty() && spec.operation(operation_id::ssh_keys_add) != nullptr && !has(quirk::unknown_ssh_key_accepted) &&
      std::none_of(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.name == key_name; }))
    return error_response("invalid_parameters", "Unknown SSH key: " + key_name);
  // Other references the provider documents refusing when they name nothing
  // (operations.launch.refuses_unknown): a value other than the spec variable's (an image).
  if (const auto* refused = find_pointer(spec.raw, "/operations/launch/refuses_unknown");
      refused != nullptr && refused->is_object() && !has(quirk::unknown_image_accepted))
    for (const auto& [param, source] : refused->items())
      if (const auto known = spec.variables.find(param);
          known != spec.variables.end() && vars.contains(param) && var(param) != known->second)
        return error_response("invalid_parameters", "Unknown " + param + ": " + var(param));
  // A type sold with launch parameters of its own (a template, a data centre) is launched with
  // them: another template for this machine type is refused, as the real API refuses it (a
  // backend that skips its bounds takes any GPU count too).
  if (type != nullptr && !has(quirk::out_of_range_accepted))
    for (const auto& [param, value] : type->params)
      if (launch_placeholders.contains(param) && var(param) != value)
        return error_response("invalid_parameters", "Invalid " + param + " for " + type_name + ": " + var(param));
  if (type != nullptr && remaining(*type, region, now) <= 0) return error_response("insufficient_capacity");
  // partial_capacity: capacity listed everywhere, but only the first row launched launches again.
  // The row: its type, region and the catalogue entry's parameters (an aggregator's supplier).
  auto row = type_name + "@" + region;
  if (type != nullptr)
    for (const auto& [k, v] : type->params) row += " " + k + "=" + v;
  if (has(quirk::partial_capacity) && first_row && *first_row != row) return error_response("insufficient_capacity");
  // capacity_refusal_500: the first row a launch names is out of capacity, said as a server failure.
  if (has(quirk::capacity_refusal_500) && (!row_refused_500 || *row_refused_500 == row)) {
    row_refused_500 = row;
    return http::response{500, {{"Content-Type", "text/plain"}}, "No capacity available for " + row};
  }
  // Funds (where the spec declares the refusal): refused with the balance there, with the quirk.
  if (has(quirk::funds_refused_with_balance) && spec.errors.kinds.contains("insufficient_funds"))
    return error_response("insufficient_funds");

  emu_instance inst;
  if (emu.ids == id_style::client) {
    inst.id = var("client_id");
    if (inst.id.empty()) return error_response("invalid_parameters", "An instance id is required.");
    for (const auto& a : accounts)
      for (const auto& other : a.instances)
        if (other.id == inst.id)
          return error_response(spec.errors.kinds.contains("conflict") ? "conflict" : "invalid_parameters",
                                "An instance with id " + inst.id + " already exists.");
  } else {
    inst.id = new_instance_id();
  }
  if (!first_row) first_row = row, first_type = type_name;
  inst.name = name;
  inst.type = type_name;  // as ordered, for capacity; fixed_type_delivered renders another
  inst.entry = type;
  inst.region = region;
  if (!key_name.empty()) inst.ssh_keys.push_back(key_name);
  if (vars.contains("run_tag"))
    for (const auto& t : vars.at("run_tag").is_array() ? vars.at("run_tag") : nlohmann::json::array({vars.at("run_tag")}))
      if (t.is_string()) inst.tags.push_back(t.get<std::string>());
  if (vars.contains("published_ports"))
    for (const auto& p : vars.at("published_ports")) inst.ports.push_back(p.get<std::string>());
  inst.ip = opts.instance_address.empty() ? "198.51.100." + std::to_string(next_ip++ % 250 + 1)  // RFC 5737
                                          : opts.instance_address;
  inst.requested = now;
  inst.boot_done = now + scaled(emu.boot_s);
  // A multi-step create waits for the step that starts it (if one does).
  if (std::any_of(op.then.begin(), op.then.end(),
                  [&](const auto& s) { return emu.steps.contains(s.name) && emu.steps.at(s.name).starts_instance; })) {
    inst.waiting = true;
    inst.boot_done = clock::time_point::max();
  }
  if (!op.then.empty())
    for (const auto& [k, v] : vars)
      if (k != "published_ports") inst.vars[k] = v;
  acct.instances.push_back(inst);
  ++created;

  if (op.empty_response) return http::response{op.success_status.front(), {}, ""};  // io.net's deploy: found by name
  if (op.text_response)
    return http::response{op.success_status.front(), {{"Content-Type", "text/plain"}}, has(quirk::launch_without_id) ? "" : inst.id};
  nlohmann::json body = response_template(op);
  if (auto it = op.fields.find("instance_id"); it != op.fields.end()) {
    if (has(quirk::launch_without_id)) set_pointer(body, parent_pointer(it->second.pointer), nlohmann::json::array());
    else if (has(quirk::launch_schema_drift))
      set_pointer(body, it->second.pointer, nlohmann::json{{"id", inst.id}});
    else
      write_field(body, op.fields, "instance_id", inst.id);
  }
  if (op.item) {
    auto obj = render_instance(inst, phase_of(inst, now));
    if (has(quirk::launch_without_id)) obj.erase("id");
    if (has(quirk::launch_schema_drift)) obj = nlohmann::json::array({obj});
    set_pointer(body, *op.item, std::move(obj));
  }
  if (op.action) start_action(body, op, acct, inst.boot_done);
  return json_response(op.success_status.front(), body);
}

emu_instance* provider_model::impl::find_instance(account& acct, const std::string& id, clock::time_point now, bool cross_tenant) {
  for (auto& i : acct.instances)
    if (i.id == id && phase_of(i, now) != phase::gone) return &i;
  if (cross_tenant)
    for (auto& other : accounts)
      for (auto& i : other.instances)
        if (i.id == id && phase_of(i, now) != phase::gone) return &i;
  return nullptr;
}

// Whether another account has this instance (for the existence-leak quirk).
bool provider_model::impl::exists_elsewhere(const std::string& id, clock::time_point now) {
  for (auto& a : accounts)
    for (auto& i : a.instances)
      if (i.id == id && phase_of(i, now) != phase::gone) return true;
  return false;
}

// A refusal of an id the provider could never have issued (`emulator.malformed_id`: Vast.ai
// answers a non-integer instance id with 400 invalid_args), if the spec declares one.
std::optional<http::response> provider_model::impl::malformed(const std::string& id) const {
  if (!emu.malformed_id) return std::nullopt;
  if (!id.empty() && std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) return std::nullopt;
  return error_response(emu.malformed_id->kind, emu.malformed_id->message);
}

http::response provider_model::impl::get(const operation_spec& op, account& acct, const std::string& id, clock::time_point now) {
  if (auto refusal = malformed(id)) return *refusal;
  auto* inst = find_instance(acct, id, now, has(quirk::cross_tenant_read));
  if (inst == nullptr && has(quirk::existence_leak_403) && exists_elsewhere(id, now)) return error_response("forbidden");
  if (inst == nullptr || has(quirk::get_not_found)) {
    if (inst == nullptr && has(quirk::unknown_id_200)) {
      nlohmann::json body = nlohmann::json::object();
      set_pointer(body, op.item.value_or(""), nlohmann::json::object());
      return json_response(200, body);
    }
    // Providers that read an absent instance as 200 with a null object (Vast.ai).
    if (emu.absent_as_null) {
      nlohmann::json body = response_template(op);
      set_pointer(body, op.item.value_or(""), nullptr);
      return json_response(op.success_status.front(), body);
    }
    return error_response("not_found");
  }
  nlohmann::json body = response_template(op);
  set_pointer(body, op.item.value_or(""), render_instance(*inst, phase_of(*inst, now)));
  return json_response(op.success_status.front(), body);
}

http::response provider_model::impl::list(const operation_spec& op, account& acct, clock::time_point now, const std::string& raw_query) {
  nlohmann::json items = nlohmann::json::array();
  std::vector<const emu_instance*> visible;
  // A documented filter by tag selects the instances carrying it (quirk tag_filter_ignored: all).
  std::optional<std::string> tag;
  if (op.tag_filter && !has(quirk::tag_filter_ignored))
    for (const auto& [k, v] : parse_query(raw_query))
      if (k == op.tag_filter->param) tag = v;
  for (const auto& a : accounts)
    if (&a == &acct || has(quirk::cross_tenant_list))
      for (const auto& i : a.instances)
        if (!tag || std::find(i.tags.begin(), i.tags.end(), *tag) != i.tags.end()) visible.push_back(&i);
  // list_lags_get: the list as it was 3 s (provider time) earlier; what was launched since is
  // not listed yet, and a terminate since does not show yet.
  const bool lags = has(quirk::list_lags_get);
  const auto as_of = lags ? now - scaled(3) : now;
  if (!has(quirk::list_omits_instances)) {
    for (const auto* ip : visible) {
      const auto& i = *ip;
      if (lags && i.requested > as_of) continue;
      auto p = phase_of(i, as_of);
      if (lags && i.terminated_at && *i.terminated_at > as_of) {
        auto before = i;
        before.terminated_at.reset();
        p = phase_of(before, as_of);
      }
      if (p == phase::gone || p == phase::terminated) {
        if (!has(quirk::ghost_after_terminate)) continue;
        p = phase::running;  // the ghost: still listed, still "running", still billed
      }
      if (p == phase::terminating && has(quirk::ghost_after_terminate)) p = phase::running;
      auto obj = render_instance(i, p, operation_id::list);
      if (has(quirk::list_get_disagree))
        if (auto it = spec.instance_fields.find("instance_type"); it != spec.instance_fields.end())
          set_pointer(obj, it->second.pointer, other_type(i.type));
      items.push_back(std::move(obj));
    }
  }
  return page_of(op, std::move(items), raw_query);
}

// The instances a list of ids names, each the account has (and has not seen gone) once, in the
// order named; an id it does not have is left out.
http::response provider_model::impl::get_many(const operation_spec& op, account& acct, const std::vector<std::string>& ids,
                                              clock::time_point now) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& id : ids)
    if (const auto* inst = find_instance(acct, id, now, has(quirk::cross_tenant_read)))
      items.push_back(render_instance(*inst, phase_of(*inst, now), operation_id::get_many));
  nlohmann::json body = response_template(op);
  set_pointer(body, op.items.value_or(""), std::move(items));
  return json_response(op.success_status.front(), body);
}

// The account's terminated instances, the latest terminated first, also once they have left the
// list and the get.
http::response provider_model::impl::history(const operation_spec& op, account& acct, clock::time_point now, const std::string& raw_query) {
  std::vector<const emu_instance*> ended;
  for (const auto& i : acct.instances)
    if (i.terminated_at) ended.push_back(&i);
  std::stable_sort(ended.begin(), ended.end(), [](const auto* a, const auto* b) { return *a->terminated_at > *b->terminated_at; });
  nlohmann::json items = nlohmann::json::array();
  for (const auto* i : ended) items.push_back(render_instance(*i, phase_of(*i, now), operation_id::history));
  return page_of(op, std::move(items), raw_query);
}

// Why `kind` is refused for `inst` (named `id`), if it is: unknown, or not in the phase it acts on.
std::optional<http::response> provider_model::impl::refuse_act(const emu_instance* inst, const std::string& id, act_kind kind,
                                                               clock::time_point now) {
  const bool terminate = kind == act_kind::terminate;
  if (inst == nullptr && has(terminate ? quirk::terminate_unknown_500 : quirk::restart_unknown_500)) return error_response("internal");
  if (inst == nullptr && has(quirk::existence_leak_403) && exists_elsewhere(id, now)) return error_response("forbidden");
  if (inst == nullptr) return error_response("not_found");
  if (terminate && inst->terminated_at && has(quirk::double_terminate_500)) return error_response("internal");
  // A restart or a stop acts on a running instance, a start on a stopped one.
  const auto wanted = kind == act_kind::start ? phase::stopped : phase::running;
  if (!terminate && phase_of(*inst, now) != wanted)
    return error_response(spec.errors.kinds.contains("invalid_state") ? "invalid_state" : "invalid_parameters",
                          "Instance " + id + " is not " + (wanted == phase::stopped ? "stopped." : "running."));
  return std::nullopt;
}

// What `kind` does to `inst` from `now`, and when its action is done. action_without_effect (and
// start_without_effect for a start) leaves the instance as it was and the action done at once.
clock::time_point provider_model::impl::apply(emu_instance& inst, act_kind kind, clock::time_point now) {
  if (kind == act_kind::terminate) {
    if (!inst.terminated_at) inst.terminated_at = now;
    return *inst.terminated_at + scaled(emu.terminate_s);
  }
  if (has(quirk::action_without_effect) || (kind == act_kind::start && has(quirk::start_without_effect))) return now;
  switch (kind) {
    case act_kind::restart:
      inst.restart_until = now + (has(quirk::restart_stuck) ? std::chrono::hours(24 * 365) : scaled(emu.boot_s));
      return *inst.restart_until;
    case act_kind::stop:
      inst.off_from = now + scaled(emu.stop_s);
      inst.on_from.reset();
      inst.restart_until.reset();
      return *inst.off_from;
    case act_kind::start: inst.on_from = now + scaled(emu.start_s); return *inst.on_from;
    case act_kind::terminate: break;
  }
  return now;
}

// terminate, restart, stop and start share the shape: ids from the body or the path, all must exist.
http::response provider_model::impl::act(const operation_spec& op, account& acct, const std::vector<std::string>& ids, act_kind kind,
                                         clock::time_point now) {
  const bool terminate = kind == act_kind::terminate;
  if (ids.empty()) return error_response("invalid_parameters", "No instance ids given.");
  std::vector<emu_instance*> targets;
  for (const auto& id : ids) {
    if (auto refusal = malformed(id)) return *refusal;
    auto* inst = find_instance(acct, id, now, has(quirk::cross_tenant_actions));
    if (auto refusal = refuse_act(inst, id, kind, now)) return *refusal;
    targets.push_back(inst);
  }
  if (terminate && has(quirk::terminate_500)) return error_response("internal");
  if (terminate)
    for (const auto* inst : targets)
      if (auto early = before_minimum_runtime(*inst, now)) return *early;
  nlohmann::json items = nlohmann::json::array();
  if (terminate && has(quirk::terminate_first_only) && targets.size() > 1) targets.erase(targets.begin() + 1, targets.end());
  // One action for the request; it completes when the last target is done.
  auto done = now;
  for (auto* inst : targets) {
    done = std::max(done, apply(*inst, kind, now));
    items.push_back(render_instance(*inst, phase_of(*inst, now)));
  }
  if (op.success_status.front() == 204 || op.empty_response) return http::response{op.success_status.front(), {}, {}};
  nlohmann::json body = response_template(op);
  if (has(quirk::terminate_schema_drift)) return json_response(op.success_status.front(), nlohmann::json::object());
  if (op.item && !items.empty()) set_pointer(body, *op.item, items.front());
  if (op.items) set_pointer(body, *op.items, std::move(items));
  if (op.action) start_action(body, op, acct, done);
  return json_response(op.success_status.front(), body);
}

// Every instance of the account carrying `tag`, terminated in one request (bulk_delete_partial:
// only the oldest of them). A tag that names none is no error (DigitalOcean answers 204 alike).
http::response provider_model::impl::terminate_tagged(const operation_spec& op, account& acct, const std::string& tag,
                                                      clock::time_point now) {
  if (tag.empty()) return error_response("invalid_parameters", "A tag is required.");
  for (auto& inst : acct.instances) {
    if (inst.terminated_at || std::find(inst.tags.begin(), inst.tags.end(), tag) == inst.tags.end()) continue;
    inst.terminated_at = now;
    if (has(quirk::bulk_delete_partial)) break;
  }
  if (op.success_status.front() == 204 || op.empty_response) return http::response{op.success_status.front(), {}, {}};
  return json_response(op.success_status.front(), response_template(op));
}

// The spec's refusal of a terminate sent before the instance ran its minimum runtime (Spheron's
// 20 minutes, time-scaled like every delay), or nullopt when the terminate may go ahead.
std::optional<http::response> provider_model::impl::before_minimum_runtime(const emu_instance& inst, clock::time_point now) {
  const auto& m = spec.timing.minimum_runtime;
  if (!m || inst.terminated_at) return std::nullopt;
  const auto allowed = inst.requested + scaled(m->seconds);
  if (now >= allowed) return std::nullopt;
  const double scale_s = std::chrono::duration<double>(scaled(1)).count();
  const double left_s = scale_s > 0 ? std::chrono::duration<double>(allowed - now).count() / scale_s : m->seconds;
  const auto whole = [](double v) { return static_cast<long long>(std::ceil(v - 1e-9)); };
  const template_vars vars{{"status", phase_word(phase_of(inst, now))},
                           {"remaining_s", whole(left_s)},
                           {"remaining_min", whole(left_s / 60)},
                           {"minimum_s", whole(m->seconds)},
                           {"minimum_min", whole(m->seconds / 60)}};
  return json_response(m->status, render_body(m->body, vars));
}

// Answers `op` with a new action of `acct`, complete at `done` (never, under the quirk).
void provider_model::impl::start_action(nlohmann::json& body, const operation_spec& op, const account& acct, clock::time_point done) {
  if (has(quirk::action_never_completes)) done = clock::time_point::max();
  const auto id = std::to_string(next_action_id++);
  write_action(body, *op.action, id, op.action->in_progress.front());
  actions[id] = {static_cast<std::size_t>(&acct - accounts.data()), done, body};
}

// GET of an action: in progress until its completion time, then done; another account's or an
// unknown id is not found.
http::response provider_model::impl::read_action(const operation_spec& op, std::size_t account_index, const std::string& id,
                                                 clock::time_point now) {
  auto it = actions.find(id);
  if (it == actions.end() || it->second.account != account_index) return error_response("not_found");
  nlohmann::json body = it->second.answer;
  const auto& a = *op.action;
  write_action(body, a, id, now >= it->second.done ? a.done.front() : a.in_progress.front());
  if (!a.read_item.empty()) {  // the read answers the action object alone
    const auto* item = find_pointer(body, a.read_item);
    body = item != nullptr ? *item : nlohmann::json::object();
  }
  return json_response(200, body);
}

}  // namespace neograde::emulator
