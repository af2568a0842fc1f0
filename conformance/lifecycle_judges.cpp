// The lifecycle's checks, judged from the driver's record (see lifecycle_judges.hpp).

#include "lifecycle_judges.hpp"

#include <neograde/clients/delivered.hpp>
#include <neograde/clients/effect.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace neograde::conformance::detail::lifecycle {

check_outcome judge_response_schema(const char* id, const provider_spec& spec, operation_id op, const call_result& r) {
  const auto* spec_op = spec.operation(op);
  if (spec_op == nullptr || !spec_op->response_schema) return not_applicable(id, "the spec declares no response schema");
  if (!r.json) return make(id, outcome::fail, "the response is not JSON", {r.evidence});
  auto v = json_schema(*spec_op->response_schema).validate(*r.json);
  if (v.empty()) return make(id, outcome::pass, "the response matches the schema", {r.evidence});
  return make(id, outcome::fail, "at \"" + v.front().pointer + "\": " + v.front().message, {r.evidence});
}

std::vector<exchange> launch_evidence(const launch_record& launch) {
  std::vector<exchange> out{launch.result.call.evidence};
  out.insert(out.end(), launch.result.steps.begin(), launch.result.steps.end());
  return out;
}

launch_verdict judge_launch(const launch_record& launch, const provider_spec& spec) {
  launch_verdict out;
  auto rest = [&](outcome o, std::string why) {
    out.rest = o;
    out.rest_reason = std::move(why);
    return out;
  };
  const auto& l = launch.result;
  if (!launch.offer_found) return rest(outcome::no_capacity, "no offer lists available capacity");
  if (l.call.not_sent) return rest(outcome::skipped, "the launch was " + l.call.describe());
  if (!l.call.success) {
    if (auto c = provider_condition(l.call, spec)) {
      // Refused for lack of funds is the provider's condition, unless the funds were there.
      if (*c == outcome::insufficient_funds && launch.funds_available) {
        out.decided.push_back(make(launch_id, outcome::fail,
                                   "refused for lack of funds (" + l.call.describe() + "), yet " + *launch.funds_available,
                                   {launch.billing_before, l.call.evidence}));
        return rest(outcome::skipped, "depends on a successful launch");
      }
      out.decided.push_back(make(launch_id, *c, l.call.describe(), {l.call.evidence}));
      return rest(*c, "the launch met a provider condition: " + l.call.describe());
    }
    // Refused for what the run was given (a missing team id): the run's fault, not graded.
    if (blames_configuration(l.call, spec))
      out.decided.push_back(make(launch_id, outcome::errored,
                                 "the launch was refused for the run's configuration, not graded against the provider: " +
                                     l.call.describe() + " (see the spec's variables, --set NAME=VALUE)",
                                 launch_evidence(launch)));
    else
      out.decided.push_back(make(launch_id, l.call.response ? outcome::fail : outcome::errored,
                                 "launching " + launch.order.key() + " (advertised as available) failed: " + l.call.describe(),
                                 launch_evidence(launch)));
    return rest(outcome::skipped, "depends on a successful launch");
  }
  out.decided.push_back(judge_response_schema(launch_schema_id, spec, operation_id::launch, l.call));
  if (!l.value) {
    out.decided.push_back(make(launch_id, outcome::fail, l.problem, {l.call.evidence}));
    return rest(outcome::skipped, "depends on the launch returning an id");
  }
  out.decided.push_back(
      make(launch_id, outcome::pass,
           "launched " + launch.order.key() + " as " + *l.value +
               (launch.found_by_name ? " (found by its name in the list: the answer names no id, as the spec declares)" : "") +
               (l.steps.empty() ? "" : " (with its follow-up steps)"),
           launch_evidence(launch)));
  return out;
}

check_outcome judge_visible_in_get(const visibility_record& v) {
  const auto& got = v.get;
  if (got.value && got.value->id == v.id) return make(get_id, outcome::pass, "status " + got.value->provider_status, {got.call.evidence});
  return make(get_id, outcome::fail, "the instance could not be read by id: " + got.call.describe() + got.problem, {got.call.evidence});
}

check_outcome judge_visible_in_list(const visibility_record& v) {
  if (v.listed) return make(list_id, outcome::pass, "listed", {v.list.call.evidence});
  return make(list_id, outcome::fail,
              "the instance is missing from the list (" + std::to_string(v.list.value ? v.list.value->size() : 0) + " listed)",
              {v.list.call.evidence});
}

action_verdict judge_action(const action_record& a, const provider_spec& spec, operation_id op, const std::string& what) {
  using end = action_record::end;
  if (a.how == end::none) return {};
  const auto& declared = *spec.operation(op)->action;
  if (a.how == end::no_id)
    return {outcome::fail, what + " was answered without an action id at " + declared.id_pointer + " (" + declared.source + ")", {}};
  const auto& s = a.last;
  const auto after = std::to_string(a.after_s) + " s";
  switch (a.how) {
    case end::unreadable:
      return {s.call.response ? outcome::fail : outcome::errored,
              "action " + a.id + " could not be read: " + (s.problem.empty() ? s.call.describe() : s.problem), s.call.evidence};
    case end::done: return {outcome::pass, "action " + a.id + " " + *s.value + " after " + after + "; ", s.call.evidence};
    case end::failed: return {outcome::fail, "action " + a.id + " ended \"" + *s.value + "\" after " + after, s.call.evidence};
    case end::undocumented:
      return {outcome::fail, "action " + a.id + " reports \"" + *s.value + "\", not a documented action status", s.call.evidence};
    default:
      return {outcome::fail, "action " + a.id + " still \"" + *s.value + "\" " + after + " after " + what + " was accepted",
              s.call.evidence};
  }
}

std::string running_gave_up(const running_wait& w) {
  const auto polls = " (" + std::to_string(w.after_s) + " s)";
  if (w.how == running_wait::end::undocumented)
    return (w.last_status.empty() ? std::string("an absent status") : "status \"" + w.last_status + "\"") +
           " is not in the documented vocabulary and persisted over " + std::to_string(w.count) + " polls" + polls +
           ": neograde cannot tell whether the instance runs, so it stopped waiting";
  if (w.how == running_wait::end::stopped)
    return "status \"" + w.last_status + "\", documented as stopped, read " + std::to_string(w.count) + " time(s) in a row" + polls +
           ": the instance is off and does not run by itself, so neograde stopped waiting";
  return "";
}

check_outcome judge_reaches_running(const lifecycle_record& rec, const provider_spec& spec) {
  const auto action = judge_action(rec.launch_action, spec, operation_id::launch, "the launch");
  const auto& w = rec.running;
  if (action.result != outcome::pass) return make(running_id, action.result, action.message, {action.last});
  if (w.how != running_wait::end::running) {
    const auto gave_up = running_gave_up(w);
    return make(running_id, outcome::fail,
                !gave_up.empty()
                    ? gave_up
                    : "status \"" + w.last_status + "\" after " + std::to_string(w.after_s) + " s; the spec expects running within " +
                          std::to_string(spec.timing.time_to_running_s * rec.run.scale) + " s",
                {w.last});
  }
  auto o = make(running_id, outcome::pass, action.message + "running after " + std::to_string(w.after_s) + " s", {w.last});
  o.measurements["time_to_running_s"] = w.after_s;
  return o;
}

check_outcome judge_running_has_address(const running_wait& w) {
  if (w.seen && w.seen->ip) return make(address_id, outcome::pass, "address " + *w.seen->ip, {w.last});
  return make(address_id, outcome::fail, "the instance reports running but no address", {w.last});
}

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

std::vector<std::string> delivered_otherwise(const order_compared& c, const provider_spec& spec, const std::string& ssh_key_name) {
  const auto& f = spec.instance_fields;
  const auto& got = c.got;
  const auto& order = c.ordered;
  std::vector<std::string> wrong;
  if (f.contains("instance_type") && got.instance_type != order.instance_type)
    wrong.push_back("type \"" + got.instance_type + "\" (ordered \"" + order.instance_type + "\")");
  if (f.contains("region") && c.compare_region && got.region != order.region)
    wrong.push_back("region \"" + got.region + "\" (ordered \"" + order.region + "\")");
  if (f.contains("name") && !got.name.empty() && got.name != c.name) wrong.push_back("name \"" + got.name + "\"");
  if (f.contains("ssh_key_names") && !ssh_key_name.empty() &&
      std::find(got.ssh_key_names.begin(), got.ssh_key_names.end(), ssh_key_name) == got.ssh_key_names.end())
    wrong.push_back("SSH key missing");
  // Every launch parameter the request sent, where the API shows it: one it shows otherwise was
  // ignored (twice the GPUs ordered). One it does not state is not judged.
  for (auto& w : params_shown_otherwise(got, order, spec)) wrong.push_back(std::move(w));
  return wrong;
}

std::string order_read_back(const order_compared& c, const provider_spec& spec, const std::string& ssh_key_name) {
  const auto& f = spec.instance_fields;
  std::vector<std::string> read;
  if (f.contains("instance_type")) read.emplace_back("type");
  if (f.contains("region") && c.compare_region) read.emplace_back("region");
  if (f.contains("name") && !c.got.name.empty()) read.emplace_back("name");
  if (f.contains("ssh_key_names") && !ssh_key_name.empty()) read.emplace_back("SSH key");
  auto [shown, not_shown] = launch_params_read_back(c.ordered, spec);
  for (const auto& p : shown)
    if (c.got.params.contains(p)) read.push_back(p);
  // The order's type and region are sent too: where the instance does not show them, say so.
  if (!c.ordered.region.empty() && !f.contains("region")) not_shown.insert(not_shown.begin(), "region");
  if (!f.contains("instance_type")) not_shown.insert(not_shown.begin(), "type");
  std::string out = read.empty() ? "nothing of the order is shown on the instance to compare" : "compared " + joined(read);
  if (!not_shown.empty()) out += "; what the order sent that the instance does not show: " + joined(not_shown);
  return out;
}

std::optional<check_outcome> judge_matches_order(const lifecycle_record& rec, const provider_spec& spec, const std::string& orders,
                                                 const std::string& one_type) {
  if (rec.compared.empty()) return std::nullopt;
  std::vector<std::string> wrong_all;
  std::vector<exchange> evidence;
  for (const auto& c : rec.compared) {
    for (auto& w : delivered_otherwise(c, spec, rec.run.ssh_key_name))
      wrong_all.push_back(c.second ? w + " in the second order, " + c.ordered.key() : w);
    evidence.push_back(c.evidence);
  }
  const auto tested = one_type.empty() ? std::string() : "; one instance type tested: " + one_type;
  const auto read = " (" + order_read_back(rec.compared.front(), spec, rec.run.ssh_key_name) + ")";
  if (wrong_all.empty()) return make(order_id, outcome::pass, "delivered as ordered: " + orders + read + tested, evidence);
  std::string wrong;
  for (const auto& w : wrong_all) wrong += (wrong.empty() ? "" : "; ") + w;
  return make(order_id, outcome::fail, "delivered otherwise than ordered: " + wrong + " (ordered " + orders + tested + ")", evidence);
}

namespace {

std::string hourly(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g/h", usd);
  return buf;
}

}  // namespace

std::optional<check_outcome> judge_price_as_listed(const lifecycle_record& rec, const provider_spec& spec) {
  if (rec.compared.empty()) return std::nullopt;
  std::vector<std::string> wrong, right, unpriced, repriced;
  std::vector<exchange> evidence;
  for (const auto& c : rec.compared) {
    evidence.push_back(c.evidence);
    const auto what = c.second ? "the second order, " + c.ordered.key() : c.ordered.key();
    if (!c.ordered.price_per_hour_usd) {
      unpriced.push_back(what);
      continue;
    }
    const auto price = compare_price(c.got, c.ordered, spec);
    if (!price)
      return make(price_id, outcome::errored, "the instance of " + what + " states no hourly price where the spec maps one", evidence);
    if (price->as_listed()) {
      right.push_back(price->describe());
      continue;
    }
    if (c.relisted_evidence) evidence.push_back(*c.relisted_evidence);
    // Priced as the catalogue, read again at once, lists the row now: repriced in between.
    const auto now = c.relisted && c.relisted->price_per_hour_usd ? compare_price(c.got, *c.relisted, spec) : std::nullopt;
    if (now && now->as_listed())
      repriced.push_back(what + " (" + price->describe() + "; the catalogue read just after lists it at the instance's price)");
    else
      wrong.push_back("the instance of " + what + " states " + price->describe() +
                      (!c.relisted_evidence ? ""
                       : now                ? ", and the catalogue read just after lists it at " + hourly(now->listed)
                                            : ", and the catalogue read just after no longer prices the row"));
  }
  const auto changed = repriced.empty() ? std::string() : "; not judged, repriced between the read and the launch: " + joined(repriced);
  if (!wrong.empty()) return make(price_id, outcome::fail, joined(wrong) + changed, evidence);
  if (right.empty() && !repriced.empty()) return make(price_id, outcome::skipped, changed.substr(2), evidence);
  if (right.empty()) return make(price_id, outcome::skipped, "the rows launched list no price: " + joined(unpriced), evidence);
  return make(price_id, outcome::pass, "priced as listed: " + joined(right) + changed, evidence);
}

check_outcome judge_underlying_provider(const order_compared& c, const provider_spec& spec) {
  if (!spec.offer_fields.contains("underlying_provider") || !spec.instance_fields.contains("underlying_provider"))
    return not_applicable(underlying_id, "the spec maps no underlying provider on both offers and instances");
  const auto& order = c.ordered;
  if (order.underlying_provider.empty())
    return make(underlying_id, outcome::skipped, "the offer launched (" + order.key() + ") names no underlying provider");
  if (c.got.underlying_provider == order.underlying_provider)
    return make(underlying_id, outcome::pass, "from " + c.got.underlying_provider + ", as its offer named", {c.evidence});
  return make(underlying_id, outcome::fail,
              "the offer named " + order.underlying_provider + ", the instance names " +
                  (c.got.underlying_provider.empty() ? std::string("no underlying provider") : c.got.underlying_provider),
              {c.evidence});
}

check_outcome judge_consistent(const consistency_record& c) {
  const std::vector<exchange> evidence{c.get.call.evidence, c.list.call.evidence};
  if (!c.get.value || !c.entry)
    return make(consistent_id, outcome::errored, "the instance could not be read from both get and list", evidence);
  const auto& got = *c.get.value;
  const auto& entry = *c.entry;
  std::vector<std::string> diffs;
  if (got.instance_type != entry.instance_type) diffs.push_back("type \"" + got.instance_type + "\" vs \"" + entry.instance_type + "\"");
  if (got.region != entry.region) diffs.push_back("region \"" + got.region + "\" vs \"" + entry.region + "\"");
  if (got.name != entry.name) diffs.push_back("name \"" + got.name + "\" vs \"" + entry.name + "\"");
  if (diffs.empty()) return make(consistent_id, outcome::pass, "get and list agree", evidence);
  return make(consistent_id, outcome::fail, "get and list disagree: " + diffs.front(), evidence);
}

bool terminated_by_other(const isolation_record& i) {
  return i.terminate.success || (i.after && (i.after->state == instance_state::stopping || i.after->state == instance_state::terminated));
}

std::vector<check_outcome> judge_isolation(const isolation_record& i, const provider_spec& spec) {
  std::vector<check_outcome> out;
  if (i.has_get) {
    const auto& theirs = i.theirs;
    // A read answering "nothing here" (a 404, or Vast.ai's 200 with a null object) refuses.
    if (answers_gone(spec, theirs))
      out.push_back(make(iso_get_id, outcome::pass, "answered as absent: " + theirs.describe(), {theirs.evidence}));
    else if (theirs.success)
      out.push_back(make(iso_get_id, outcome::fail, "the second account read the first account's instance", {theirs.evidence}));
    else
      out.push_back(make(iso_get_id, outcome::pass, "refused with " + theirs.describe(), {theirs.evidence}));
    if (theirs.status() == i.missing.status())
      out.push_back(make(iso_leak_id, outcome::pass, "same answer as for a missing id (HTTP " + std::to_string(theirs.status()) + ")",
                         {theirs.evidence, i.missing.evidence}));
    else
      out.push_back(make(iso_leak_id, outcome::fail,
                         "another account's instance answers HTTP " + std::to_string(theirs.status()) + " where a missing one answers " +
                             std::to_string(i.missing.status()) + ": the difference reveals that it exists",
                         {theirs.evidence, i.missing.evidence}));
  }
  if (!i.listed.value) out.push_back(make(iso_list_id, outcome::errored, i.listed.call.describe(), {i.listed.call.evidence}));
  else if (i.listed_visible)
    out.push_back(
        make(iso_list_id, outcome::fail, "the second account's list shows the first account's instance", {i.listed.call.evidence}));
  else
    out.push_back(make(iso_list_id, outcome::pass, "not listed for the second account", {i.listed.call.evidence}));
  if (i.has_restart) {
    if (i.restart.success)
      out.push_back(make(iso_restart_id, outcome::fail, "the second account restarted the first account's instance", {i.restart.evidence}));
    else
      out.push_back(make(iso_restart_id, outcome::pass, "refused with " + i.restart.describe(), {i.restart.evidence}));
  }
  if (terminated_by_other(i))
    out.push_back(make(iso_terminate_id, outcome::fail, "the second account terminated the first account's instance",
                       {i.terminate.evidence, i.after_evidence}));
  else
    out.push_back(make(iso_terminate_id, outcome::pass, "refused with " + i.terminate.describe(), {i.terminate.evidence}));
  return out;
}

check_outcome judge_restart(const restart_record& r, const std::vector<instance_read>& reads, const provider_spec& spec) {
  if (!r.request.success)
    return make(restart_id, r.request.response ? outcome::fail : outcome::errored, "restart failed: " + r.request.describe(),
                {r.request.evidence});
  const auto action = judge_action(r.action, spec, operation_id::restart, "the restart");
  if (action.result != outcome::pass) return make(restart_id, action.result, action.message, {r.request.evidence, action.last});
  std::vector<exchange> evidence{r.request.evidence};
  if (!action.message.empty()) evidence.push_back(action.last);
  evidence.push_back(r.wait.last);
  const auto after = std::to_string(r.after_s) + " s";
  // Whether a poll saw the instance away from running is recorded, not judged: a quick reboot can
  // fall between two polls, and with no delays it is over before the first.
  const bool left_running =
      std::any_of(reads.begin(), reads.end(), [](const instance_read& i) { return i.own_restart && i.state != instance_state::running; });
  const auto departure = left_running ? std::string(" (seen leaving running)")
                                      : std::string(" (not seen leaving running between polls") +
                                            (action.message.empty() ? ")" : "; the action record shows the restart)");
  if (r.wait.how == running_wait::end::running) {
    auto o = make(restart_id, outcome::pass, action.message + "running again after " + after + departure, evidence);
    o.measurements["departure_seen"] = left_running;
    return o;
  }
  const auto gave_up = running_gave_up(r.wait);
  return make(restart_id, outcome::fail,
              action.message +
                  (!gave_up.empty() ? gave_up + " after the restart" : "status \"" + r.wait.last_status + "\" " + after + " after restart"),
              evidence);
}

bool ever_running(const std::vector<instance_read>& reads) {
  return std::any_of(reads.begin(), reads.end(), [](const instance_read& i) { return i.state == instance_state::running; });
}

// Running must not fall back to pending unless a restart was asked for. The get's reads and the
// list's are watched apart: a list that lags the get (nothing promises read-after-write on a list)
// reads pending after the get read running, yet goes forward in its own order; and a list that lags
// a restart reads it after the restart is over, so a read goes back only from a running read made
// since the last restart asked for.
check_outcome judge_no_illegal_transition(const std::vector<instance_read>& reads) {
  std::optional<int> ran_since[2];  // per sequence (get, list): the restarts asked before its last running read
  for (const auto& i : reads) {
    auto& ran = ran_since[i.listed ? 1 : 0];
    if (i.state == instance_state::running) ran = i.restarts_before;
    else if (i.state == instance_state::pending && ran == i.restarts_before && !i.restarting)
      return make(transition_id, outcome::fail, "the instance went from running back to \"" + i.provider_status + "\" without a restart",
                  {i.evidence});
  }
  return make(transition_id, outcome::pass, "no illegal transition seen");
}

check_outcome judge_terminate_many(const many_record& m) {
  if (!m.binds_array) return not_applicable(many_id, "terminate takes one id per request");
  if (m.extra.size() < 2 && m.not_sent)
    return make(many_id, outcome::skipped, "two more instances are needed; the launch was " + *m.not_sent);
  if (m.extra.size() < 2) return make(many_id, outcome::no_capacity, "two more instances could not be launched");
  const auto& t = m.terminate;
  if (!t.success) return make(many_id, t.response ? outcome::fail : outcome::errored, "terminate failed: " + t.describe(), {t.evidence});
  if (m.alive == 0) return make(many_id, outcome::pass, "both instances terminated by one request", {t.evidence});
  if (m.end == poll_end::undocumented)
    return make(many_id, outcome::fail,
                "status \"" + m.word + "\" is not in the documented vocabulary and persisted over " + std::to_string(m.undocumented) +
                    " polls: neograde cannot tell whether the instances terminated",
                {t.evidence, m.last});
  return make(many_id, outcome::fail, std::to_string(m.alive) + " of 2 instances still running after one terminate request naming both",
              {t.evidence, m.last});
}

// An action on the instance that was refused: the request's failure, as the restart words it.
static check_outcome action_refused(const char* id, const std::string& what, const call_result& r) {
  return make(id, r.response ? outcome::fail : outcome::errored, what + " failed: " + r.describe(), {r.evidence});
}

bool stopped(const power_record& p) { return p.stopped.how == state_wait::end::reached; }

// A power action accepted or refused, and its action record followed: the outcome where either
// decides, or what the action record said with the evidence so far (the request, the record's
// last read, then `last`: the instance's).
struct power_step {
  std::optional<check_outcome> decided;
  action_verdict action;
  std::vector<exchange> evidence;
};
static power_step judge_power_step(const char* id, const char* what, operation_id op, const call_result& request,
                                   const action_record& record, const exchange& last, const provider_spec& spec) {
  if (!request.success) return {.decided = action_refused(id, what, request), .action = {}, .evidence = {}};
  auto action = judge_action(record, spec, op, what);
  if (action.result != outcome::pass)
    return {.decided = make(id, action.result, action.message, {request.evidence, action.last}), .action = action, .evidence = {}};
  std::vector<exchange> evidence{request.evidence};
  if (!action.message.empty()) evidence.push_back(action.last);
  evidence.push_back(last);
  return {.decided = std::nullopt, .action = std::move(action), .evidence = std::move(evidence)};
}

check_outcome judge_stop(const power_record& p, const provider_spec& spec) {
  const auto& w = p.stopped;
  auto [decided, action, evidence] = judge_power_step(stop_id, "the stop", operation_id::stop, p.stop, p.stop_action, w.last, spec);
  if (decided) return std::move(*decided);
  const auto after = std::to_string(w.after_s) + " s";
  if (w.how == state_wait::end::reached)
    return make(stop_id, outcome::pass, action.message + "stopped (\"" + w.last_status + "\") after " + after, evidence);
  if (w.how == state_wait::end::undocumented)
    return make(stop_id, outcome::fail,
                action.message + "status \"" + w.last_status + "\" is not in the documented vocabulary and persisted over " +
                    std::to_string(w.count) + " polls after the stop: neograde cannot tell whether the instance stopped",
                evidence);
  if (w.how == state_wait::end::ended)
    return make(stop_id, outcome::fail, action.message + "the stop ended the instance: status \"" + w.last_status + "\" after " + after,
                evidence);
  // The action record (where there is one) said done, yet the instance's state says otherwise.
  return make(stop_id, outcome::fail,
              action.message + "status \"" + w.last_status + "\" " + after + " after the stop was accepted; the spec expects " +
                  "its stopped state within " + std::to_string(w.within_s) + " s (the time to gone)",
              evidence);
}

check_outcome judge_start(const power_record& p, const provider_spec& spec) {
  if (!stopped(p))
    return make(start_id, outcome::skipped, "the stop did not leave the instance stopped (see " + std::string(stop_id) + ")");
  const auto& w = p.running;
  auto [decided, action, evidence] = judge_power_step(start_id, "the start", operation_id::start, p.start, p.start_action, w.last, spec);
  if (decided) return std::move(*decided);
  const auto after = std::to_string(w.after_s) + " s";
  if (w.how != running_wait::end::running) {
    const auto gave_up = running_gave_up(w);
    return make(
        start_id, outcome::fail,
        action.message + (!gave_up.empty() ? gave_up + " after the start" : "status \"" + w.last_status + "\" " + after + " after start"),
        evidence);
  }
  // The same address rule as the first run (running_has_address), and the same exception: where
  // the spec declares that check a deviation (the provider states no address: SaladCloud's
  // container groups), running again is the start's whole effect; the missing address is that
  // check's finding, not a second one.
  if (!w.seen || !w.seen->ip) {
    if (const auto* dev = spec.deviation_for(address_id))
      return make(start_id, outcome::pass,
                  action.message + "running again after " + after + " (no address, as declared: " + dev->reason + ")", evidence);
    return make(start_id, outcome::fail, action.message + "running again after " + after + ", but with no address", evidence);
  }
  return make(start_id, outcome::pass, action.message + "running again after " + after + ", address " + *w.seen->ip, evidence);
}

bool deleted(const std::optional<instance>& read) { return instance_gone(read); }

check_outcome judge_bulk_delete(const bulk_record& b) {
  const auto n = std::to_string(b.tagged.size());
  if (b.tagged.size() < 2)
    return b.not_sent ? make(bulk_id, outcome::skipped, "two instances carrying the run's tag are needed; the launch was " + *b.not_sent)
                      : make(bulk_id, outcome::no_capacity, "two instances carrying the run's tag could not be launched");
  const auto& r = b.request;
  if (!r.success) return action_refused(bulk_id, "the terminate of every instance tagged " + b.tag, r);
  const auto& g = b.gone;
  const auto after = std::to_string(g.after_s) + " s";
  if (g.end == poll_end::undocumented && !g.alive.empty())
    return make(bulk_id, outcome::fail,
                "status \"" + g.word + "\" is not in the documented vocabulary and persisted over " + std::to_string(g.undocumented) +
                    " polls: neograde cannot tell whether the tagged instances terminated",
                {r.evidence, g.last});
  if (!g.alive.empty())
    return make(bulk_id, outcome::fail,
                std::to_string(g.alive.size()) + " of the " + n + " instances tagged " + b.tag + " still there " + after + " after " +
                    r.describe() + " named the tag (" + g.alive.front() + " among them)",
                {r.evidence, g.last});
  if (!b.control_id.empty() && deleted(b.control_after))
    return make(bulk_id, outcome::fail,
                "all " + n + " instances tagged " + b.tag + " gone, but so is " + b.control_id + ", tagged " + b.control_tag + " only",
                {r.evidence, b.control_evidence});
  return make(bulk_id, outcome::pass,
              "all " + n + " instances tagged " + b.tag + " gone " + after + " after one request" +
                  (b.control_id.empty() ? "; no instance tagged otherwise was there to be left alone (" + b.no_control + ")"
                                        : "; " + b.control_id + ", tagged " + b.control_tag + ", left alone"),
              {r.evidence, g.last, b.control_evidence});
}

namespace {
// The failure of check `id` where the walk's last page answers what the page before it listed
// again (clients/pages.hpp).
std::optional<check_outcome> repeated_page(const std::string& id, const std::vector<page_read>& pages, const pagination_spec& pg,
                                           const std::string& noun) {
  auto f = neograde::repeated_page(pages, pg, noun);
  if (!f) return std::nullopt;
  return make(id, outcome::fail, std::move(f->message), std::move(f->evidence));
}

}  // namespace

std::vector<check_outcome> judge_pagination(const walk_record& w, const provider_spec& spec) {
  const auto& op = *spec.operation(operation_id::list);
  if (!w.paginated)
    return {not_applicable(each_once_id, "the instance list is not paginated by size"),
            not_applicable(page_size_id, "the instance list is not paginated by size"),
            not_applicable(page_metadata_id, "the spec declares no pagination metadata")};
  const auto& paged = w.paged;
  if (!paged.value)
    return {repeated_page(each_once_id, w.pages, *op.pagination, "instance(s)")
                .value_or(make(each_once_id, outcome::fail,
                               "walking one item per page failed: " + paged.call.describe() + " " + paged.problem, {paged.call.evidence})),
            make(page_size_id, outcome::skipped, "the walk failed"),
            op.pagination->metadata_source.empty() ? not_applicable(page_metadata_id, "the spec declares no pagination metadata")
                                                   : make(page_metadata_id, outcome::skipped, "the walk failed")};
  std::vector<check_outcome> out{judge_page_metadata(w, *op.pagination)};
  const auto tries =
      w.walks == 1 ? std::string() : " (walk " + std::to_string(w.walks) + ", " + std::to_string(w.after_s) + " s after the launches)";
  if (w.distinct != w.found)
    out.push_back(make(each_once_id, outcome::fail, "an instance appeared on more than one page" + tries, {paged.call.evidence}));
  else if (w.distinct < w.expected)
    out.push_back(
        make(each_once_id, outcome::fail,
             std::to_string(w.distinct) + " instances found walking the pages, " + std::to_string(w.expected) + " expected" + tries,
             {paged.call.evidence}));
  else
    out.push_back(make(each_once_id, outcome::pass,
                       std::to_string(w.distinct) + " instances over " + std::to_string(w.sizes.size()) + " pages" + tries,
                       {paged.call.evidence}));
  auto big = std::find_if(w.sizes.begin(), w.sizes.end(), [](std::size_t n) { return n > 1; });
  if (big != w.sizes.end())
    out.push_back(make(page_size_id, outcome::fail, "a page of " + std::to_string(*big) + " items was served for a page size of 1",
                       {paged.call.evidence}));
  else
    out.push_back(make(page_size_id, outcome::pass, "every page within the size asked for", {paged.call.evidence}));
  return out;
}

std::optional<check_outcome> untrue_page(const std::string& id, const std::vector<page_read>& pages, const pagination_spec& pg,
                                         const std::string& noun) {
  auto f = neograde::untrue_page(pages, pg, noun);
  if (!f) return std::nullopt;
  return make(id, outcome::fail, std::move(f->message), std::move(f->evidence));
}

// pagination.list.metadata_truthful: what the pages of the walk say about it, where the spec
// declares it.
check_outcome judge_page_metadata(const walk_record& w, const pagination_spec& pg) {
  if (pg.metadata_source.empty()) return not_applicable(page_metadata_id, "the spec declares no pagination metadata");
  const auto& pages = w.pages;
  const auto last = last_listing(pages);
  if (last == pages.size()) return make(page_metadata_id, outcome::skipped, "the walk found no instance");
  if (auto untrue = untrue_page(page_metadata_id, pages, pg, "instances")) return *untrue;
  std::set<std::string> ids;
  for (const auto& p : pages) ids.insert(p.ids.begin(), p.ids.end());
  return make(page_metadata_id, outcome::pass,
              declared_metadata(pg) + ": as the walk found on all " + std::to_string(last + 1) + " page(s) of " +
                  std::to_string(ids.size()) + " instance(s) (" + pg.metadata_source + ")",
              {pages[last].result.evidence});
}

// pagination.offers.walk_ends: the walk judged by what its pages say against each other and about
// it (offers_walk_fault, clients/pages.hpp, which the fuzzer's page walk shares); a walk that
// failed for its request is a failure of the request.
check_outcome judge_offers_walk(const offers_walk_record& w, const pagination_spec& pg) {
  const auto& pages = w.pages;
  const auto n = pages.size();
  if (auto fault = offers_walk_fault(w.walked, pages, pg)) return make(offers_walk_id, outcome::fail, fault->message, fault->evidence);
  if (!w.walked.value)
    return make(offers_walk_id, w.walked.call.response ? outcome::fail : outcome::errored,
                "walking the catalogue one row per page failed: " + w.walked.call.describe(), {w.walked.call.evidence});
  std::set<std::string> rows;
  for (const auto& p : pages) rows.insert(p.ids.begin(), p.ids.end());
  const auto metadata = !pg.metadata_source.empty() && last_listing(pages) < n
                            ? "; " + declared_metadata(pg) + " true on every page (" + pg.metadata_source + ")"
                            : std::string();
  if (n == 0) return make(offers_walk_id, outcome::errored, "the walk read no page");
  return make(offers_walk_id, outcome::pass,
              std::to_string(rows.size()) + " distinct row(s) over " + std::to_string(n) +
                  " page(s) of one row: the walk ended on its own" + metadata,
              {pages.back().result.evidence});
}

std::optional<check_outcome> judge_filter_tagged(const filter_record& f) {
  if (!f.declared) return not_applicable(filter_id, "the spec declares no list filter by tag");
  if (!f.all.value) return make(filter_id, outcome::errored, "the unfiltered list failed: " + f.all.call.describe(), {f.all.call.evidence});
  const auto by = f.param + "=" + f.tag;
  if (!f.tagged.success) return make(filter_id, outcome::fail, "listing by " + by + " failed: " + f.tagged.describe(), {f.tagged.evidence});
  for (const auto& id : f.selected)
    if (!f.ours.contains(id))
      return make(filter_id, outcome::fail, "filtered by " + by + ", the list shows instance " + id + ", which is not one of the run's",
                  {f.tagged.evidence, f.all.call.evidence});
  // A filter that cannot be combined with the list's own query (DigitalOcean's tag_name without
  // type=gpus) may apply the API's default in its place: the document leaves open whether it
  // lists the run's instances then, so an omission is noted, not judged (a false failure would
  // shame the provider for our reading). What it lists must still be the run's.
  if (f.replaced.empty())
    for (const auto& id : f.ours)
      if (!f.selected.contains(id))
        return make(filter_id, outcome::fail,
                    "filtered by " + by + ", the list omits the run's instance " + id + ", launched with that tag",
                    {f.tagged.evidence, f.all.call.evidence});
  return std::nullopt;
}

check_outcome judge_filter(const filter_record& f) {
  if (auto decided = judge_filter_tagged(f)) return *decided;
  std::size_t omitted = 0;
  for (const auto& id : f.ours) omitted += f.selected.contains(id) ? 0 : 1;
  const auto omission_note = omitted == 0 ? std::string()
                                          : "; " + std::to_string(omitted) +
                                                " of the run's instance(s) not listed by the tag, which "
                                                "cannot be combined with " +
                                                f.replaced + ": not judged, the document leaves it open";
  const auto none = f.tag + "-untagged";
  if (!f.untagged.success)
    return make(filter_id, outcome::fail, "listing by " + f.param + "=" + none + " failed: " + f.untagged.describe(),
                {f.untagged.evidence});
  if (!f.untagged_ids.empty())
    return make(filter_id, outcome::fail,
                "filtered by " + f.param + "=" + none + ", a tag no instance carries, the list shows " +
                    std::to_string(f.untagged_ids.size()) + " instance(s): the filter is ignored",
                {f.untagged.evidence});
  return make(filter_id, outcome::pass,
              "by the run's tag, " + (omitted == 0 ? "exactly the run's " + std::to_string(f.ours.size()) : std::string("only the run's")) +
                  " instance(s); by a tag no instance carries, none" + omission_note + " (" + f.source + ")",
              {f.tagged.evidence, f.untagged.evidence});
}

measurement::advertised_rows advertised_rows_launched(const lifecycle_record& rec) {
  measurement::advertised_rows m{.tried = rec.rows.size()};
  for (const auto& r : rec.rows) {
    auto& row = m.rows.emplace_back(measurement::advertised_row{.row = r.key, .launched = r.launched});
    if (r.launched) ++m.launched;
    else
      row.why = r.why;
  }
  m.share = static_cast<double>(m.launched) / static_cast<double>(rec.rows.size());
  m.advertised = rec.advertised;
  return m;
}

double capacity_refusal_rate(const lifecycle_record& rec) {
  const auto refused =
      std::count_if(rec.rows.begin(), rec.rows.end(), [](const row_tried& r) { return !r.launched && r.refused_for_capacity; });
  return static_cast<double>(refused) / static_cast<double>(rec.rows.size());
}

std::optional<check_outcome> judge_capacity(const lifecycle_record& rec, const std::string& note) {
  if (rec.rows.empty()) return std::nullopt;
  std::size_t launched = 0;
  std::string failed, keys, unjudged;
  std::vector<exchange> evidence;
  for (const auto& r : rec.rows) {
    if (r.launched) {
      ++launched;
      keys += (keys.empty() ? "" : ", ") + r.key;
    } else if (r.judged) {
      failed += (failed.empty() ? "" : "; ") + r.key + " (" + r.why + ")";
      evidence.push_back(r.evidence);
      if (r.reread) evidence.push_back(*r.reread);
    } else {
      unjudged += "; " + r.key + " " + r.why;
    }
  }
  const auto share = std::to_string(launched) + " of " + std::to_string(rec.rows.size()) + " advertised row(s) tried launched";
  const auto why_no_more = note.empty() ? std::string() : " (" + note + ")";
  auto o = failed.empty() ? make(capacity_id, outcome::pass, share + ": " + keys + unjudged + why_no_more, {rec.rows.front().evidence})
                          : make(capacity_id, outcome::fail, share + "; advertised as available, yet not launched: " + failed + why_no_more,
                                 std::move(evidence));
  o.measurements[measurement::advertised_rows::key] = advertised_rows_launched(rec);
  return o;
}

// A launch refused with a 5xx the provider documents for no refusal, or with a body that is not its
// error envelope, cannot be told from an outage by a client (or a scheduler moving on to the next
// row): the refusal's documented form is the requirement, whatever the words say ("no capacity" in
// a text/plain 500). The driver decides each refusal's form as it records the row.
check_outcome judge_refusal_form(const lifecycle_record& rec) {
  std::size_t refused = 0;
  const exchange* first = nullptr;
  for (const auto& r : rec.rows) {
    if (r.launched || r.evidence.status == 0) continue;
    ++refused;
    if (first == nullptr) first = &r.evidence;
    if (r.form_problem)
      return make(refusal_form_id, outcome::fail,
                  "the launch of " + r.key + " was refused with HTTP " + std::to_string(r.evidence.status) + ": " + *r.form_problem +
                      "; a refusal MUST take the documented form of the provider's errors, so that a client can tell it from an outage",
                  {r.evidence});
  }
  if (first == nullptr) return not_applicable(refusal_form_id, "no launch of an advertised row was refused");
  return make(refusal_form_id, outcome::pass, std::to_string(refused) + " refusal(s), each in the documented form of the provider's errors",
              {*first});
}

bool terminate_accepted(const terminate_record& t) { return t.patient.result.success || t.by_other; }

check_outcome judge_terminate_accepted(const terminate_record& t, const provider_spec& spec) {
  const auto& term = t.patient.result;
  std::string early;
  if (!t.patient.early.empty())
    early = " after " + std::to_string(t.patient.early.size()) + " refusal(s) before the minimum runtime of " +
            std::to_string(std::lround(spec.timing.minimum_runtime->seconds)) + " s, as the spec declares (" +
            t.patient.early.front().describe() + ")";
  if (!terminate_accepted(t))
    return make(terminate_id, term.response ? outcome::fail : outcome::errored, "terminate failed" + early + ": " + term.describe(),
                {term.evidence});
  std::vector<exchange> evidence;
  for (const auto& e : t.patient.early) evidence.push_back(e.evidence);
  evidence.push_back(term.evidence);
  return make(terminate_id, outcome::pass, "HTTP " + std::to_string(term.status()) + early, std::move(evidence));
}

// Terminating again while terminating must not be a server error.
check_outcome judge_terminate_idempotent(const terminate_record& t) {
  const auto& again = t.again;
  if (!again.response) return make(idempotent_id, outcome::errored, again.describe(), {again.evidence});
  if (again.status() >= 500)
    return make(idempotent_id, outcome::fail, "terminating a terminating instance got " + again.describe(), {again.evidence});
  return make(idempotent_id, outcome::pass, "HTTP " + std::to_string(again.status()), {again.evidence});
}

// Gone means terminated or not found in get, and absent or terminated in the list.
gone_state read_after_terminate(const gone_read& r, const provider_spec& spec, bool has_get) {
  gone_state s;
  const auto& got = r.get;
  const auto& entry = r.entry;
  s.evidence = has_get ? std::vector<exchange>{got.call.evidence, r.list.call.evidence} : std::vector<exchange>{r.list.call.evidence};
  s.running_again = got.value && got.value->state == instance_state::running;
  s.ghost = entry && entry->state == instance_state::running ? entry->provider_status : std::string();
  const bool gone_in_get = !has_get || answers_gone(spec, got.call) || (got.value && got.value->state == instance_state::terminated);
  const bool gone_in_list = r.list.value && (!entry || entry->state == instance_state::terminated);
  s.gone = gone_in_get && gone_in_list;
  s.note = (has_get ? "get: " + got.call.describe() : std::string("get: n/a")) +
           (got.value ? " status \"" + got.value->provider_status + "\"" : "") + "; list: " +
           (entry          ? "status \"" + entry->provider_status + "\""
            : r.list.value ? "absent"
                           : r.list.call.describe());
  s.unreadable = (got.value && got.value->state == instance_state::unknown) || (entry && entry->state == instance_state::unknown);
  return s;
}

check_outcome judge_gone(const terminate_record& t, const provider_spec& spec, double scale) {
  const auto action = judge_action(t.action, spec, operation_id::terminate, "terminate");
  if (action.result != outcome::pass) return make(gone_id, action.result, action.message, {t.patient.result.evidence, action.last});
  const auto s = t.last ? read_after_terminate(*t.last, spec, t.has_get) : gone_state{};
  // Running after the terminate (it may never have shown another word: Vultr's status stays active
  // until the instance is gone): not gone.
  if (s.running_again)
    return make(gone_id, outcome::fail, "not gone: get reports the instance running after terminate (" + s.note + ")", s.evidence);
  if (s.gone) {
    auto o = make(gone_id, outcome::pass, action.message + "gone after " + std::to_string(t.after_s) + " s", s.evidence);
    o.measurements["time_to_gone_s"] = t.after_s;
    return o;
  }
  if (t.end == poll_end::undocumented)
    return make(gone_id, outcome::fail,
                "an undocumented status persisted over " + std::to_string(t.undocumented) + " polls after terminate (" + s.note +
                    "): neograde cannot tell whether the instance is gone",
                s.evidence);
  const auto after = std::to_string(t.after_s) + " s after terminate, the spec's time to gone being " +
                     std::to_string(std::lround(spec.timing.time_to_gone_s * scale)) + " s (" + s.note + ")";
  return make(gone_id, outcome::fail,
              s.ghost.empty()
                  ? "not gone " + after
                  : "the list still shows the instance running (\"" + s.ghost + "\") " + after + ": a ghost that may still bill",
              s.evidence);
}

}  // namespace neograde::conformance::detail::lifecycle
