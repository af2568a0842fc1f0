#include "section.hpp"

#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <stdexcept>

namespace neograde::emulator {

namespace {

emu_instance_type instance_type_of(const nlohmann::json& t) {
  emu_instance_type out{
      .name = t.at("name").get<std::string>(),
      .description = std::nullopt,
      .price_per_hour_usd = t.at("price_per_hour_usd"),
      .capacity = t.at("capacity").get<std::map<std::string, long>>(),
      .object = t.value("object", nlohmann::json::object()),
      .params = t.value("params", std::map<std::string, std::string>{}),
      .parent_object = t.value("parent_object", nlohmann::json::object()),
  };
  if (t.contains("description")) out.description = t.at("description").get<std::string>();
  return out;
}

// A phase the section leaves out is played by a word the states document: running and terminated
// by the first word of their state, booting by the first pending word (else the running word),
// terminating by the terminated word (the spec format has no terminating state; a provider whose
// deleting word differs names it).
emu_phases phases_of(const nlohmann::json& p, const provider_spec& spec) {
  const auto word = [&](const char* phase, const std::string& otherwise) {
    const auto it = p.find(phase);
    return it != p.end() ? it->get<std::string>() : otherwise;
  };
  const auto running = word("running", spec.first_word(instance_state::running));
  const auto terminated = word("terminated", spec.first_word(instance_state::terminated));
  for (const auto& [phase, w] : {std::pair{"running", running}, std::pair{"terminated", terminated}})
    if (w.empty())
      throw std::invalid_argument(spec.provider.id + ": the emulator's phases name no " + phase + " word and the states map none to " +
                                  phase);
  const auto pending = spec.first_word(instance_state::pending);
  const auto booting = word("booting", pending.empty() ? running : pending);
  const auto restarting = word("restarting", booting);
  return {
      .waiting = word("waiting", booting),
      .booting = booting,
      .running = running,
      .restarting = restarting,
      .stopping = word("stopping", running),
      .starting = word("starting", restarting),
      .stopped = word("stopped", spec.first_word(instance_state::stopped)),
      .terminating = word("terminating", terminated),
      .terminated = terminated,
  };
}

// The regions the section names; where it names none, those its instance types have capacity in
// (or one called "default"), each with no region object.
std::map<std::string, nlohmann::json> regions_of(const nlohmann::json& e) {
  if (const auto it = e.find("regions"); it != e.end()) return it->get<std::map<std::string, nlohmann::json>>();
  std::map<std::string, nlohmann::json> out;
  for (const auto& t : e.at("instance_types"))
    for (const auto& [region, count] : t.at("capacity").items()) out.emplace(region, nlohmann::json::object());
  if (out.empty()) out.emplace("default", nlohmann::json::object());
  return out;
}

emu_rate_limit rate_limit_of(const nlohmann::json& rl) {
  const auto headers = rl.value("headers", std::vector<std::string>{});
  auto has = [&](const char* h) { return std::find(headers.begin(), headers.end(), h) != headers.end(); };
  emu_rate_limit out{
      .per_second = rl.at("per_second").get<double>(),
      .burst = rl.at("burst").get<double>(),
      .retry_after = has("retry-after"),
      .ratelimit = has("ratelimit"),
      .ratelimit_policy = has("ratelimit-policy"),
      .ratelimit_x = has("ratelimit-x"),
      .text_body = std::nullopt,
  };
  if (rl.contains("text_body")) out.text_body = rl.at("text_body").get<std::string>();
  return out;
}

id_style id_style_of(const std::string& style) {
  if (style == "integer") return id_style::integer;
  if (style == "uuid") return id_style::uuid;
  if (style == "client") return id_style::client;
  return id_style::hex32;
}

emu_route route_of(const nlohmann::json& r) {
  emu_route out{
      .method = r.at("method").get<std::string>(),
      .path = r.at("path").get<std::string>(),
      .status = r.value("status", 200),
      .body = std::nullopt,
      .anonymous = r.value("anonymous", false),
  };
  if (r.contains("body")) out.body = r.at("body");
  return out;
}

// "input.id" -> {"input", "id"}; every dot splits, so "a..b" names an empty key between.
std::vector<std::string> argument_path(const std::string& path) {
  std::vector<std::string> keys;
  for (std::size_t start = 0; start <= path.size();) {
    const auto dot = std::min(path.find('.', start), path.size());
    keys.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return keys;
}

void read_section(const provider_spec& spec, emulator_section& s) {
  const auto& e = spec.emulator;
  s.regions = regions_of(e);
  for (const auto& t : e.at("instance_types")) s.instance_types.push_back(instance_type_of(t));
  s.instance_template = e.value("instance_template", nlohmann::json::object());
  s.ssh_key_template = e.value("ssh_key_template", nlohmann::json::object());
  s.phases = phases_of(e.value("phases", nlohmann::json::object()), spec);
  s.boot_s = e.value("boot_s", 0.0);
  const auto steps = e.value("steps", nlohmann::json::object());
  for (const auto& [name, st] : steps.items())
    s.steps[name] = emu_step{.ready_after_s = st.value("ready_after_s", 0.0),
                             .element = st.contains("element") ? std::optional<nlohmann::json>(st.at("element")) : std::nullopt,
                             .starts_instance = st.value("starts_instance", false),
                             .answer = st.contains("answer") ? std::optional<nlohmann::json>(st.at("answer")) : std::nullopt,
                             .instance_members = st.value("instance_members", std::map<std::string, nlohmann::json>{})};
  s.terminate_s = e.value("terminate_s", 0.0);
  s.stop_s = e.value("stop_s", 0.0);
  s.start_s = e.value("start_s", s.boot_s);
  s.gone_after_s = e.value("gone_after_s", 60.0);
  s.token_lifetime_s = e.value("token_lifetime_s", 3600.0);
  if (e.contains("rate_limit")) s.rate_limit = rate_limit_of(e.at("rate_limit"));
  s.ids = id_style_of(e.value("id_style", "hex32"));
  const auto templates = e.value("response_templates", nlohmann::json::object());
  for (const auto& [id, op] : spec.operations) {
    const auto name = nlohmann::json(id).get<std::string>();
    if (templates.contains(name)) s.response_templates.emplace(id, templates.at(name));
    if (const auto* t = find_pointer(e, "/instance_templates/" + name); t != nullptr) s.instance_templates.emplace(id, *t);
    const auto* filters = find_pointer(spec.raw, "/operations/" + name + "/graphql/filters");
    if (filters == nullptr || !filters->is_object()) continue;
    auto& out = s.graphql_filters[id];
    for (const auto& [path, pointer] : filters->items()) out.push_back({argument_path(path), pointer.get<std::string>()});
  }
  for (const auto& r : e.value("routes", nlohmann::json::array())) s.routes.push_back(route_of(r));
  s.trailing_slash_optional = e.value("trailing_slash_optional", false);
  s.redirect_slashes = e.contains("redirect_slashes");
  for (const auto& r : e.value("offer_reads", nlohmann::json::array()))
    s.offer_reads.push_back({r.at("path").get<std::string>(), r.at("types").get<std::vector<std::string>>()});
  s.absent_as_null = e.value("absent_as_null", false);
  if (const auto it = e.find("malformed_id"); it != e.end() && s.ids == id_style::integer)
    s.malformed_id = emu_malformed_id{it->value("kind", "invalid_parameters"), it->value("message", "")};
  s.unaddressed = e.value("unaddressed", nlohmann::json(nullptr));
  s.unaddressed_at = e.value("unaddressed_at", "");
  s.ssh_command = e.value("ssh_command", "");
  if (const auto it = e.find("published_ports"); it != e.end())
    s.published_ports = emu_published_ports{.from = it->at("from").get<std::string>(),
                                            .into = it->at("into").get<std::string>(),
                                            .first_host_port = it->value("first_host_port", 41235L)};
  s.graphql_roots = e.value("graphql_roots", std::map<std::string, nlohmann::json>{});
  s.billing = billing_read_of(spec);
  const auto billing = e.value("billing", nlohmann::json::object());
  s.opening_balance = billing.value("opening_balance", 100.0);
  s.billing_template = billing.value("template", nlohmann::json::object());
}

}  // namespace

const emu_instance_type* emulator_section::find_type(const std::string& name) const {
  for (const auto& t : instance_types)
    if (t.name == name) return &t;
  return nullptr;
}

const emu_instance_type* emulator_section::find_type(const std::string& name, const std::map<std::string, std::string>& sent) const {
  for (const auto& t : instance_types)
    if (t.name == name && std::all_of(t.params.begin(), t.params.end(), [&](const auto& p) {
          const auto s = sent.find(p.first);
          return s == sent.end() || s->second == p.second;
        }))
      return &t;
  return find_type(name);
}

emulator_section parse_emulator_section(const provider_spec& spec) {
  emulator_section s;
  try {
    read_section(spec, s);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(spec.provider.id + ": the spec's emulator section cannot be emulated: " + e.what());
  }
  return s;
}

}  // namespace neograde::emulator
