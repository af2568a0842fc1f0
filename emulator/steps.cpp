// The follow-up steps of a multi-step create (the launch's `then`, docs/spec-format.md): a wait
// step answers an empty collection until its ready delay has passed, then the element the spec's
// emulator.steps declares for it, rendered with the instance's variables; a step that binds what
// an earlier one answered must send it back; the step that starts the instance moves it from
// waiting to booting.

#include "model_impl.hpp"

#include <neograde/core/json_util.hpp>

#include <algorithm>

namespace neograde::emulator {

template_vars provider_model::impl::instance_vars(const emu_instance& i) const {
  template_vars vars = i.vars;
  vars["id"] = i.id;
  vars["name"] = i.name;
  vars["instance_type"] = i.type;
  vars["region"] = i.region;
  return vars;
}

std::optional<http::response> provider_model::impl::serve_step(const std::string& method, const std::string& rel,
                                                               const std::string& raw_query, const std::string& body, account& acct,
                                                               clock::time_point now) {
  const auto* launch_op = spec.operation(operation_id::launch);
  if (launch_op == nullptr) return std::nullopt;
  for (std::size_t index = 0; index < launch_op->then.size(); ++index) {
    const auto& step = launch_op->then[index];
    const auto q = step.path.find('?');
    std::map<std::string, std::string> params;
    if (step.method != method || !matches(step.path.substr(0, q), rel, params)) continue;
    // A step sharing its method and path with an operation is the step only if the body carries
    // the step's literal members; otherwise the request is the operation's.
    if (const auto& selectors = step_selectors.at(index); !selectors.empty() && !carries(parse_json(body, 64), selectors)) continue;
    template_vars sent;
    for (const auto& [k, v] : params) sent[k] = v;
    // The template's query names variables too ("?dseq={id}"): the request must carry them.
    if (q != std::string::npos) {
      const auto bound = query_bindings(step.path, raw_query);
      for (const auto& [key, v] : parse_query(step.path.substr(q + 1))) {
        if (!(v.size() > 2 && v.front() == '{' && v.back() == '}')) continue;
        const auto it = bound.find(v.substr(1, v.size() - 2));
        if (it == bound.end() || it->second.empty()) return error_response("invalid_parameters", key + " is required.");
        sent[it->first] = it->second;
      }
    }
    if (step.body) {
      auto doc = parse_json(body, 64);
      if (!doc) return error_response("invalid_parameters", "The request body is not valid JSON.");
      for (const auto& [name, pointer] : template_pointers(*step.body)) {
        if (find_pointer(*doc, pointer) == nullptr) return error_response("invalid_parameters", pointer + " is required.");
        (void)name;
      }
      for (auto& [k, v] : vars_from_body(*step.body, *doc)) sent.emplace(k, v);
    }
    const auto id = sent.contains("id") ? first_string(sent.at("id")) : std::string();
    auto* inst = find_instance(acct, id, now);
    if (inst == nullptr) return error_response("not_found");
    // The same request is the step for an instance still waiting for it, and the operation for
    // any other (Scaleway's poweron starts a created server and a stopped one alike).
    const auto served = emu.steps.find(step.name);
    if (step_shares_path.at(index) && served != emu.steps.end() && served->second.starts_instance && !inst->waiting) continue;
    return answer_step(step, *inst, sent, now);
  }
  return std::nullopt;
}

http::response provider_model::impl::answer_step(const launch_step& step, emu_instance& inst, const template_vars& sent,
                                                 clock::time_point now) {
  const auto found = emu.steps.find(step.name);
  const emu_step served = found != emu.steps.end() ? found->second : emu_step{};
  auto vars = instance_vars(inst);
  if (step.wait_for) {
    nlohmann::json body = served.answer ? render_body(*served.answer, vars) : nlohmann::json::object();
    nlohmann::json items = nlohmann::json::array();
    if (served.element && !inst.terminated_at && now >= inst.requested + scaled(served.ready_after_s))
      items.push_back(render_body(*served.element, vars));
    set_pointer(body, step.wait_for->items, std::move(items));
    return json_response(step.success_status.front(), body);
  }
  // What an earlier wait step bound must come back as that step's element said it (a lease
  // names a bid that was made).
  for (const auto& earlier : spec.operation(operation_id::launch)->then) {
    if (&earlier == &step) break;
    const auto e = emu.steps.find(earlier.name);
    if (!earlier.wait_for || e == emu.steps.end() || !e->second.element) continue;
    const auto element = render_body(*e->second.element, vars);
    for (const auto& [name, pointer] : earlier.bind) {
      const auto* want = find_pointer(element, pointer);
      if (sent.contains(name) && want != nullptr && first_string(sent.at(name)) != first_string(*want))
        return error_response("invalid_parameters", "No " + earlier.name + " answered " + name + " " + first_string(sent.at(name)) + ".");
    }
  }
  if (served.starts_instance) {
    if (!inst.waiting || inst.terminated_at) {
      const auto kind = spec.errors.kinds.contains("invalid_state") ? "invalid_state"
                        : spec.errors.kinds.contains("conflict")    ? "conflict"
                                                                    : "invalid_parameters";
      return error_response(kind, "Instance " + inst.id + " is not waiting to be started.");
    }
    inst.waiting = false;
    inst.boot_done = now + scaled(emu.boot_s);
  }
  // What the step's request sent (a lease's provider) is the instance's from now on.
  for (const auto& [k, v] : sent)
    if (k != "id") inst.vars[k] = v;
  for (const auto& [pointer, tmpl] : served.instance_members) inst.members[pointer] = tmpl;
  vars = instance_vars(inst);
  if (served.answer) return json_response(step.success_status.front(), render_body(*served.answer, vars));
  const auto* get_op = spec.operation(operation_id::get);
  nlohmann::json body = get_op != nullptr ? response_template(*get_op) : nlohmann::json::object();
  set_pointer(body, get_op != nullptr ? get_op->item.value_or("") : std::string(), render_instance(inst, phase_of(inst, now)));
  return json_response(step.success_status.front(), body);
}

}  // namespace neograde::emulator
