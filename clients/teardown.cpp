#include <neograde/clients/teardown.hpp>
#include <neograde/clients/stop.hpp>

#include <neograde/core/json_util.hpp>
#include <neograde/core/poll.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace neograde {

bool answers_gone(const provider_spec& spec, const call_result& r) {
  if (r.status() == 404 || r.status() == 410) return true;
  // A read that succeeds with a null object (RunPod GraphQL's `data.pod: null`) finds nothing.
  if (const auto* get = spec.operation(operation_id::get); r.success && r.json && get != nullptr && get->item)
    if (const auto* obj = find_pointer(*r.json, *get->item); obj != nullptr && obj->is_null()) return true;
  auto it = spec.errors.kinds.find("not_found");
  return it != spec.errors.kinds.end() && r.error && r.status() == it->second.status &&
         (it->second.code.empty() || r.error->code == it->second.code);
}

bool refused_before_minimum_runtime(const provider_spec& spec, const call_result& r) {
  const auto& m = spec.timing.minimum_runtime;
  if (!m || !r.response || r.success || r.status() != m->status) return false;
  if (m->pointer.empty()) return true;
  const auto* v = r.json ? find_pointer(*r.json, m->pointer) : nullptr;
  return v != nullptr && (m->equals.is_null() || *v == m->equals);
}

patient_terminate terminate_after_minimum_runtime(provider_client& client, const std::string& id, run_clock& clock) {
  patient_terminate out{.result = client.terminate(id), .early = {}};
  const auto& spec = client.spec();
  if (!spec.timing.minimum_runtime) return out;
  const auto& m = *spec.timing.minimum_runtime;
  const double scale = client.target_time_scale();
  double waited_s = 0;  // provider seconds
  // Looks at the last answer; waits the time it says is left (or the whole minimum) and sends again.
  (void)poll_until(
      clock, poll_limits{},
      [&](poll_look&) -> std::optional<bool> {
        if (!refused_before_minimum_runtime(spec, out.result) || waited_s >= 2 * m.seconds) return true;
        return std::nullopt;
      },
      [&] {
        double wait_s = m.seconds;
        if (m.remaining && out.result.json)
          if (const auto* left = find_pointer(*out.result.json, m.remaining->pointer); left != nullptr && left->is_number())
            wait_s = left->get<double>() * m.remaining->scale + 1;
        wait_s = std::clamp(wait_s, std::max(spec.timing.poll_interval_s, 1.0), m.seconds + 1);
        out.early.push_back(std::move(out.result));
        clock.sleep(provider_time(wait_s, scale, std::chrono::milliseconds(0), true));
        waited_s += wait_s;
        out.result = client.terminate(id);
      });
  return out;
}

teardown_result terminate_and_confirm(provider_client& client, std::vector<teardown_target> known,
                                      const std::function<bool(const instance&)>& also, const teardown_options& options) {
  teardown_scope no_stopping;
  run_clock& clock = options.clock != nullptr ? *options.clock : real_clock();
  teardown_result out;
  try {
    // Ids for names, and instances the selector picks, from the list.
    std::map<std::string, teardown_target> targets;  // by id
    std::vector<teardown_target> unnamed;            // known by name only, not listed
    auto listed = client.list();
    out.list_failed = !listed.value;
    for (auto& k : known) {
      if (k.id.empty() && listed.value)
        for (const auto& i : *listed.value)
          if (!k.name.empty() && i.name == k.name) k.id = i.id;
      if (!k.id.empty()) targets.emplace(k.id, k);
      else if (out.list_failed)
        unnamed.push_back(k);
      else
        out.confirmed.push_back({"", k.name, "not in the instance list"});
    }
    if (listed.value)
      for (const auto& i : *listed.value)
        if (also && also(i)) targets.emplace(i.id, teardown_target{i.id, i.name});
    for (const auto& k : unnamed)
      out.leftovers.push_back({"", k.name, "unknown: the instance list could not be read (" + listed.call.describe() + ")"});

    std::map<std::string, teardown_target> pending;
    std::map<std::string, std::string> last_status;
    std::map<std::string, exchange> last_read;
    std::map<std::string, int> unsettled;  // polls in a row whose reads cannot end the wait
    for (const auto& [id, t] : targets) {
      if (listed.value) {
        auto it = std::find_if(listed.value->begin(), listed.value->end(), [&id = id](const instance& i) { return i.id == id; });
        if (it != listed.value->end() && it->state == instance_state::terminated) {
          out.confirmed.push_back({id, t.name, it->provider_status});
          client.ledger().deleted(id, t.name);
          continue;
        }
      }
      pending.emplace(id, t);
      if (options.dry_run) continue;
      // A 404 here is not yet a confirmation: the polling below reads and lists every one.
      last_status[id] = terminate_after_minimum_runtime(client, id, clock).result.describe();
    }
    if (options.dry_run) {
      for (const auto& [id, t] : pending) out.leftovers.push_back({id, t.name, "found (dry run: not terminated)"});
      return out;
    }
    const auto started = clock.now();
    const bool has_get = client.spec().operation(operation_id::get) != nullptr;
    bool resent = false;
    // Those whose time to gone had passed since their terminate was accepted when teardown
    // started (decided once here, so that a replay decides the same): each read once more. Within
    // a poll interval: a wait that gave up at its deadline (gone_after_terminate's) ends just past
    // it by a clock read that a replay, whose clock follows the recorded exchanges, makes a moment
    // earlier; a boundary at exactly the time to gone decided the two differently under load.
    const auto time_to_gone = options.time_to_gone.value_or(options.confirm_within);
    const auto overdue_from = time_to_gone > options.poll ? time_to_gone - options.poll : std::chrono::milliseconds(0);
    std::map<std::string, long long> had_their_time;  // by id: the seconds since the terminate
    for (const auto& [id, t] : pending)
      if (const auto at = client.terminate_accepted_at(id); at && started - *at >= overdue_from)
        had_their_time[id] = std::llround(std::chrono::duration<double>(started - *at).count());
    std::map<std::string, bool> reads_alive;  // the last read of each shows it running or booting
    // Whether `id` had its time to gone and does not read running or booting (as one whose
    // terminate was dropped would: that one is terminated again and waited for).
    auto overdue = [&](const std::string& id) { return had_their_time.contains(id) && !reads_alive[id]; };
    // Whether the reads of `id` cannot end the wait: overdue, or read as often as
    // give_up_after_polls says in a row without anything that can end in gone.
    auto settled = [&](const std::string& id) {
      return overdue(id) || (options.give_up_after_polls > 0 && unsettled[id] >= options.give_up_after_polls);
    };
    (void)poll_until(
        clock, started + options.confirm_within,
        [&]() -> std::optional<bool> {
          // Gone means gone everywhere: terminated or 404 when read, and not listed as anything
          // but terminated (a ghost that reads terminated but is still listed running is still
          // billed).
          std::map<std::string, instance> still_listed;
          auto l = client.list();
          if (l.value)
            for (const auto& i : *l.value)
              if (i.state != instance_state::terminated) still_listed.emplace(i.id, i);
          for (auto it = pending.begin(); it != pending.end();) {
            // Without a get operation the list is the only word: absent from it is gone.
            if (!has_get && l.value && !still_listed.contains(it->first)) {
              out.confirmed.push_back({it->first, it->second.name, "not listed (or listed terminated)"});
              client.ledger().deleted(it->first, it->second.name);
              it = pending.erase(it);
              continue;
            }
            auto g = client.get(it->first);
            last_read[it->first] = g.call.evidence;
            const auto listed_as = still_listed.find(it->first);
            const auto alive = [](const instance& i) { return i.state == instance_state::running || i.state == instance_state::pending; };
            reads_alive[it->first] =
                (g.value && alive(*g.value)) || (!has_get && listed_as != still_listed.end() && alive(listed_as->second));
            const bool read_gone = answers_gone(client.spec(), g.call) || (g.value && g.value->state == instance_state::terminated);
            if (listed_as != still_listed.end()) {
              last_status[it->first] =
                  "listed as \"" + listed_as->second.provider_status + "\"" + (read_gone ? " though get reads it gone" : "");
              const bool ghost = has_get && read_gone;
              unsettled[it->first] = ghost || listed_as->second.state == instance_state::unknown ? unsettled[it->first] + 1 : 0;
              ++it;
              continue;
            }
            if (read_gone) {
              out.confirmed.push_back(
                  {it->first, it->second.name, g.value ? g.value->provider_status : "gone (" + g.call.describe() + ")"});
              client.ledger().deleted(it->first, it->second.name);
              it = pending.erase(it);
              continue;
            }
            last_status[it->first] = g.value ? g.value->provider_status : g.call.describe();
            unsettled[it->first] = g.value && g.value->state == instance_state::unknown ? unsettled[it->first] + 1 : 0;
            ++it;
          }
          if (pending.empty()) return true;
          if (std::all_of(pending.begin(), pending.end(), [&](const auto& p) { return settled(p.first); })) {
            for (const auto& [id, t] : pending) {
              if (overdue(id)) {
                last_status[id] += " (" + std::to_string(had_their_time[id]) +
                                   " s after the run's terminate, past the time to gone: neograde did not wait again)";
                continue;
              }
              if (!resent) (void)client.terminate(id);  // once more, in case the first was dropped
              last_status[id] +=
                  " (" + std::to_string(unsettled[id]) + " polls in a row, which cannot end in gone: neograde stopped waiting)";
            }
            return false;
          }
          // Halfway, terminate again: a terminate sent while booting may have been dropped.
          if (!resent && clock.now() - started >= options.confirm_within / 2) {
            resent = true;
            for (const auto& [id, t] : pending) (void)client.terminate(id);
          }
          return std::nullopt;
        },
        [&] { clock.sleep(options.poll); });
    for (const auto& [id, t] : pending) {
      out.leftovers.push_back({id, t.name, last_status[id]});
      out.evidence.push_back(last_read[id]);
      client.ledger().leaked(id, t.name, "still \"" + last_status[id] + "\" after teardown");
    }
  } catch (const std::exception& e) {
    out.leftovers.push_back({"", "", std::string("teardown failed: ") + e.what()});
  }
  return out;
}

}  // namespace neograde
