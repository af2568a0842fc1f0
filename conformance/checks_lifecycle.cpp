// The instance lifecycle: launch -> visible -> running -> as ordered -> isolated -> restart ->
// paginated with more instances -> terminate -> gone. One scenario decides many checks; a step
// that cannot run because an earlier one failed is skipped with the reason. The runner tears
// down whatever the run created.

#include "billing.hpp"
#include "context.hpp"

#include <neograde/clients/teardown.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

namespace neograde::conformance::detail {
namespace {

using time_point = run_clock::time_point;

constexpr const char* launch_id = "lifecycle.instance.launch_returns_id";
constexpr const char* capacity_id = "capacity.offers.advertised_is_launchable";
constexpr const char* launch_schema_id = "schema.launch.matches_schema";
constexpr const char* get_id = "lifecycle.instance.visible_in_get";
constexpr const char* list_id = "lifecycle.instance.visible_in_list";
constexpr const char* filter_id = "lifecycle.instance.filter_selects_exactly";
constexpr const char* running_id = "lifecycle.instance.reaches_running";
constexpr const char* address_id = "lifecycle.instance.running_has_address";
constexpr const char* order_id = "lifecycle.instance.matches_order";
constexpr const char* underlying_id = "transparency.instance.underlying_provider_as_listed";
constexpr const char* consistent_id = "schema.instance.consistent_across_endpoints";
constexpr const char* iso_get_id = "isolation.instance.get_denied";
constexpr const char* iso_list_id = "isolation.instance.list_hidden";
constexpr const char* iso_terminate_id = "isolation.instance.terminate_denied";
constexpr const char* iso_restart_id = "isolation.instance.restart_denied";
constexpr const char* iso_leak_id = "isolation.instance.no_existence_leak";
constexpr const char* restart_id = "lifecycle.instance.restart_returns_to_running";
constexpr const char* each_once_id = "pagination.list.each_once";
constexpr const char* page_size_id = "pagination.list.size_honoured";
constexpr const char* page_metadata_id = "pagination.list.metadata_truthful";
constexpr const char* many_id = "lifecycle.instance.terminate_many";
constexpr const char* terminate_id = "lifecycle.instance.terminate_accepted";
constexpr const char* terminate_schema_id = "schema.terminate.matches_schema";
constexpr const char* gone_id = "lifecycle.instance.gone_after_terminate";
constexpr const char* idempotent_id = "lifecycle.instance.terminate_idempotent";
constexpr const char* transition_id = "lifecycle.instance.no_illegal_transition";
constexpr const char* all_ids[] = {
    launch_id,     capacity_id,   launch_schema_id, get_id,      list_id,          running_id,          address_id,
    order_id,      consistent_id, iso_get_id,       iso_list_id, iso_terminate_id, iso_restart_id,      iso_leak_id,
    restart_id,    each_once_id,  page_size_id,     many_id,     terminate_id,     terminate_schema_id, gone_id,
    idempotent_id, transition_id, page_metadata_id, filter_id,   underlying_id};

class scenario {
 public:
  explicit scenario(context& ctx) : ctx_(ctx), client_(ctx.client) {}

  void run() {
    if (!ctx_.spend.allowed) {
      skip_all(outcome::skipped, "launches an instance: " + ctx_.spend.refusal);
      return;
    }
    try {
      steps();
    } catch (const stop_requested&) {
      throw;  // the runner marks what the stop left undecided
    } catch (const std::exception& e) {
      skip_all(outcome::errored, std::string("the harness failed: ") + e.what());
    }
  }

 private:
  void emit(check_outcome o) {
    decided_.insert(o.check_id);
    ctx_.emit(std::move(o));
  }
  [[nodiscard]] bool decided(const char* id) const { return decided_.contains(id); }

  // Decides every check of the scenario not yet decided (the capacity and order checks by what
  // was tried and compared so far, when there is something).
  void skip_all(outcome result, const std::string& reason) {
    decide_capacity();
    decide_order(order_.key(), "the run ended before a second type was ordered");
    for (const char* id : all_ids)
      if (!decided(id)) emit(make(id, result, reason));
    billing_.finish(result, reason);
  }

  void sleep() { ctx_.sleep(ctx_.poll_interval()); }
  [[nodiscard]] double seconds_since(time_point t) const { return ctx_.seconds_since(t); }

  // The instance as get reports it, or as the list reports it when get does not work. Every
  // observation of the lifecycle's instance feeds the transition watch.
  std::pair<std::optional<instance>, exchange> observe(const std::string& id) {
    auto got = client_.get(id);
    std::optional<instance> seen;
    exchange ev = got.call.evidence;
    if (got.value) {
      seen = got.value;
    } else if (auto listed = client_.list(); listed.value) {
      for (const auto& i : *listed.value)
        if (i.id == id) seen = i, ev = listed.call.evidence;
    }
    if (seen && id == main_id_) watch(*seen, ev);
    return {seen, ev};
  }

  // lifecycle.instance.no_illegal_transition: running must not fall back to pending unless a
  // restart was asked for.
  void watch(const instance& i, const exchange& ev) {
    if (!was_running_ && i.state != instance_state::running)
      billing_.not_running(ctx_.now() -
                           std::chrono::duration_cast<time_point::duration>(std::chrono::duration<double, std::milli>(ev.duration_ms)));
    if (restarting_ && i.state != instance_state::running) left_running_ = true;
    if (i.state == instance_state::running) {
      was_running_ = true;
    } else if (i.state == instance_state::pending && was_running_ && !restarting_ && !illegal_) {
      illegal_ = make(transition_id, outcome::fail,
                      "the instance went from running back to \"" + i.provider_status + "\" without a restart", {ev});
    }
  }

  // Polls until the instance runs, within the spec's time to running from `since` (looking at
  // least once: with no delays the deadline is now). A status that says the instance will not run
  // by itself ends the wait before the deadline (why: `gave_up`), since waiting out the deadline
  // decides nothing more: an undocumented word that persists over undocumented_polls polls
  // (neograde cannot tell when such an instance runs), or a documented stopped one that persists
  // over `stopped_polls` (the machine is off: DigitalOcean's `off`). A boot or a reboot may pass
  // through stopped between two polls, so one read decides only where an action record already
  // said the restart is over.
  static constexpr int undocumented_polls = 3;
  std::optional<instance> wait_running(const std::string& id, time_point since, std::string& last_status, exchange& last,
                                       std::string& gave_up, int stopped_polls = undocumented_polls) {
    const auto deadline = since + ctx_.scaled(ctx_.spec.timing.time_to_running_s);
    int undocumented = 0, stopped = 0;
    std::optional<instance> seen;
    const auto running = ctx_.poll_until(deadline, [&]() -> std::optional<bool> {
      std::tie(seen, last) = observe(id);
      if (!seen) return std::nullopt;
      last_status = seen->provider_status;
      if (seen->state == instance_state::running) return true;
      if (seen->state == instance_state::failed || seen->state == instance_state::terminated) return false;
      undocumented = seen->state == instance_state::unknown ? undocumented + 1 : 0;
      stopped = seen->state == instance_state::stopped ? stopped + 1 : 0;
      const auto polls = " (" + std::to_string(seconds_since(since)) + " s)";
      if (undocumented >= undocumented_polls) {
        gave_up = (last_status.empty() ? std::string("an absent status") : "status \"" + last_status + "\"") +
                  " is not in the documented vocabulary and persisted over " + std::to_string(undocumented) + " polls" + polls +
                  ": neograde cannot tell whether the instance runs, so it stopped waiting";
        return false;
      }
      if (stopped >= stopped_polls) {
        gave_up = "status \"" + last_status + "\", documented as stopped, read " + std::to_string(stopped) + " time(s) in a row" + polls +
                  ": the instance is off and does not run by itself, so neograde stopped waiting";
        return false;
      }
      return std::nullopt;
    });
    return running.value_or(false) ? seen : std::nullopt;
  }

  // The launch's answer, and each follow-up step's of a multi-step create.
  std::vector<exchange> launch_evidence() const {
    std::vector<exchange> out{launch_.call.evidence};
    out.insert(out.end(), launch_.steps.begin(), launch_.steps.end());
    return out;
  }

  // Launches an offer row, named `name`, with the run's SSH key.
  typed_result<std::string> launch_row(const offer& row, const std::string& name) {
    return client_.launch({.instance_type = row.instance_type,
                           .region = row.region,
                           .ssh_key_name = ctx_.ssh_key_name,
                           .name = name,
                           .params = row.params,
                           .public_key = ctx_.public_key});
  }

  // Launches the cheapest advertised offer, moving to the next when capacity is refused
  // (bounded). Every row refused is a row tried for the capacity check.
  void launch_main() {
    std::vector<std::string> refused;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto target = launchable_offer(ctx_, refused);
      if (!target) break;
      order_ = *target;
      launched_at_ = ctx_.now();
      ctx_.dx.mark(dx_timeline::requested, launched_at_);
      launch_ = launch_row(*target, ctx_.prefix() + "lc");
      if (launch_.call.not_sent) {  // nothing was requested
        ctx_.dx.at[dx_timeline::requested].reset();
        ctx_.dx.utc[dx_timeline::requested].clear();
        break;
      }
      ++ctx_.dx.attempts;
      if (launch_.call.success) {
        ctx_.dx.succeeded = true;
        rows_.push_back({.key = target->key(), .launched = true, .evidence = launch_.call.evidence});
        break;
      }
      const auto condition = provider_condition(launch_.call, ctx_.spec);
      ++(condition == outcome::no_capacity          ? ctx_.dx.refused_capacity
         : condition == outcome::quota              ? ctx_.dx.refused_quota
         : condition == outcome::insufficient_funds ? ctx_.dx.refused_funds
                                                    : ctx_.dx.refused_error);
      if (condition != outcome::no_capacity) break;
      refused.push_back(target->key());
      rows_.push_back(
          {.key = target->key(), .why = "refused for lack of capacity", .refused_for_capacity = true, .evidence = launch_.call.evidence});
    }
  }

  void steps() {
    if (!launchable_offer(ctx_)) return skip_all(outcome::no_capacity, "no offer lists available capacity");
    billing_.before_launch();
    launch_main();
    if (launch_.call.not_sent) return skip_all(outcome::skipped, "the launch was " + launch_.call.describe());
    if (!launch_.call.success) {
      if (auto c = provider_condition(launch_.call, ctx_.spec)) {
        // Refused for lack of funds is the provider's condition, unless the funds were there.
        if (const auto had = *c == outcome::insufficient_funds ? billing_.funds_were_available(order_) : std::nullopt) {
          emit(make(launch_id, outcome::fail, "refused for lack of funds (" + launch_.call.describe() + "), yet " + *had,
                    {billing_.before_launch_evidence(), launch_.call.evidence}));
          return skip_all(outcome::skipped, "depends on a successful launch");
        }
        emit(make(launch_id, *c, launch_.call.describe(), {launch_.call.evidence}));
        return skip_all(*c, "the launch met a provider condition: " + launch_.call.describe());
      }
      // Refused for what the run was given (a missing team id): the run's fault, not graded.
      if (blames_configuration(launch_.call, ctx_.spec))
        emit(make(launch_id, outcome::errored,
                  "the launch was refused for the run's configuration, not graded against the provider: " + launch_.call.describe() +
                      " (see the spec's variables, --set NAME=VALUE)",
                  launch_evidence()));
      else
        emit(make(launch_id, launch_.call.response ? outcome::fail : outcome::errored,
                  "launching " + order_.key() + " (advertised as available) failed: " + launch_.call.describe(), launch_evidence()));
      return skip_all(outcome::skipped, "depends on a successful launch");
    }
    validate(launch_schema_id, operation_id::launch, launch_.call);
    if (!launch_.value) {
      emit(make(launch_id, outcome::fail, launch_.problem, {launch_.call.evidence}));
      return skip_all(outcome::skipped, "depends on the launch returning an id");
    }
    const std::string id = *launch_.value;
    main_id_ = id;
    const bool by_name = !launched_id_in(launch_.call) && ctx_.spec.operation(operation_id::launch)->id_from_list_reads > 0;
    emit(make(launch_id, outcome::pass,
              "launched " + order_.key() + " as " + id +
                  (by_name ? " (found by its name in the list: the answer names no id, as the spec declares)" : "") +
                  (launch_.steps.empty() ? "" : " (with its follow-up steps)"),
              launch_evidence()));

    visible(id);
    // A launch answered with an operation (Crusoe) is done when the operation is: its failure or
    // its never ending is the launch's, whatever the instance reads meanwhile.
    auto action = await_action(operation_id::launch, launch_.call, launched_at_, ctx_.spec.timing.time_to_running_s, "the launch");
    std::string last_status = "unknown", gave_up;
    exchange last = action.last;
    auto running = action.result == outcome::pass ? wait_running(id, launched_at_, last_status, last, gave_up) : std::nullopt;
    if (!running) {
      emit(make(running_id, action.result == outcome::pass ? outcome::fail : action.result,
                action.result != outcome::pass ? action.message
                : !gave_up.empty()
                    ? gave_up
                    : "status \"" + last_status + "\" after " + std::to_string(seconds_since(launched_at_)) +
                          " s; the spec expects running within " + std::to_string(ctx_.spec.timing.time_to_running_s * ctx_.scale) + " s",
                {last}));
      for (const char* dependent : {address_id, order_id, underlying_id, consistent_id, restart_id})
        emit(make(dependent, outcome::skipped, "the instance never reached running"));
    } else {
      const double ttr = seconds_since(launched_at_);
      ctx_.dx.mark(dx_timeline::running, ctx_.now());
      ctx_.measurements["time_to_running_s"] = ttr;
      auto o = make(running_id, outcome::pass, action.message + "running after " + std::to_string(ttr) + " s", {last});
      o.measurements["time_to_running_s"] = ttr;
      emit(std::move(o));
      billing_.running(id, order_, launched_at_);
      if (running->ip) emit(make(address_id, outcome::pass, "address " + *running->ip, {last}));
      else
        emit(make(address_id, outcome::fail, "the instance reports running but no address", {last}));
      matches_order(*running, last);
      consistent(id);
      if (ctx_.opts.remote && ctx_.hardware) *ctx_.hardware = run_remote_smoke(ctx_, *running);
      else if (ctx_.opts.hardware_fixture.is_object() && ctx_.hardware)
        *ctx_.hardware = fixture_hardware(*running, ctx_.opts.hardware_fixture);
      record_address_owner(ctx_, *running);
    }
    isolation(id);
    if (running) restart(id);
    more_instances();
    further_offers();
    billing_.before_terminate();
    terminate(id);
    billing_.torn_down();
    billing_.finish(outcome::skipped, "the lifecycle ended before billing was judged");
    emit(illegal_ ? std::move(*illegal_) : make(transition_id, outcome::pass, "no illegal transition seen"));
  }

  bool launched_id_in(const call_result& r) const { return client_.launched_id(r, "").has_value(); }

  void validate(const char* check, operation_id op, const call_result& r) {
    const auto* spec_op = ctx_.spec.operation(op);
    if (spec_op == nullptr || !spec_op->response_schema) return emit(not_applicable(check, "the spec declares no response schema"));
    if (!r.json) return emit(make(check, outcome::fail, "the response is not JSON", {r.evidence}));
    auto v = json_schema(*spec_op->response_schema).validate(*r.json);
    if (v.empty()) return emit(make(check, outcome::pass, "the response matches the schema", {r.evidence}));
    emit(make(check, outcome::fail, "at \"" + v.front().pointer + "\": " + v.front().message, {r.evidence}));
  }

  void visible(const std::string& id) {
    // visible_in_get: allow a few polls for eventual consistency.
    if (ctx_.spec.operation(operation_id::get) == nullptr) {
      emit(not_applicable(get_id, "the API has no get-by-id operation; the list is polled instead"));
    } else {
      typed_result<instance> got;
      for (int i = 0; i < 5; ++i) {
        got = client_.get(id);
        if (got.value && got.value->id == id) break;
        sleep();
      }
      if (got.value && got.value->id == id) emit(make(get_id, outcome::pass, "status " + got.value->provider_status, {got.call.evidence}));
      else
        emit(
            make(get_id, outcome::fail, "the instance could not be read by id: " + got.call.describe() + got.problem, {got.call.evidence}));
    }
    typed_result<std::vector<instance>> listed;
    auto present = [&] {
      return listed.value && std::any_of(listed.value->begin(), listed.value->end(), [&](auto& i) { return i.id == id; });
    };
    for (int i = 0; i < 5; ++i) {
      listed = client_.list();
      if (present()) break;
      sleep();
    }
    listed_ = present();
    if (listed_) emit(make(list_id, outcome::pass, "listed", {listed.call.evidence}));
    else
      emit(make(list_id, outcome::fail,
                "the instance is missing from the list (" + std::to_string(listed.value ? listed.value->size() : 0) + " listed)",
                {listed.call.evidence}));
  }

  // lifecycle.instance.matches_order: "The instance delivered MUST be what was ordered." The
  // lifecycle's instance is compared here; further_offers adds a second order of another type,
  // and decide_order gives the verdict on both.
  void matches_order(const instance& got, const exchange& ev) {
    order_wrong_ = delivered_otherwise(got, order_, ctx_.prefix() + "lc", !order_.region.empty());
    order_evidence_.push_back(ev);
    order_compared_ = true;
    underlying_provider(got, ev);
  }

  // transparency.instance.underlying_provider_as_listed: the running instance names the provider
  // its offer row named (where the spec maps both).
  void underlying_provider(const instance& got, const exchange& ev) {
    if (!ctx_.spec.offer_fields.contains("underlying_provider") || !ctx_.spec.instance_fields.contains("underlying_provider"))
      return emit(not_applicable(underlying_id, "the spec maps no underlying provider on both offers and instances"));
    if (order_.underlying_provider.empty())
      return emit(make(underlying_id, outcome::skipped, "the offer launched (" + order_.key() + ") names no underlying provider"));
    if (got.underlying_provider == order_.underlying_provider)
      return emit(make(underlying_id, outcome::pass, "from " + got.underlying_provider + ", as its offer named", {ev}));
    emit(make(underlying_id, outcome::fail,
              "the offer named " + order_.underlying_provider + ", the instance names " +
                  (got.underlying_provider.empty() ? std::string("no underlying provider") : got.underlying_provider),
              {ev}));
  }

  // What of `got` differs from `order` (launched with `name`): type, region where it is compared,
  // name, SSH key.
  std::vector<std::string> delivered_otherwise(const instance& got, const offer& order, const std::string& name,
                                               bool compare_region) const {
    const auto& f = ctx_.spec.instance_fields;
    std::vector<std::string> wrong;
    if (f.contains("instance_type") && got.instance_type != order.instance_type)
      wrong.push_back("type \"" + got.instance_type + "\" (ordered \"" + order.instance_type + "\")");
    if (f.contains("region") && compare_region && got.region != order.region)
      wrong.push_back("region \"" + got.region + "\" (ordered \"" + order.region + "\")");
    if (f.contains("name") && !got.name.empty() && got.name != name) wrong.push_back("name \"" + got.name + "\"");
    if (f.contains("ssh_key_names") && !ctx_.ssh_key_name.empty() &&
        std::find(got.ssh_key_names.begin(), got.ssh_key_names.end(), ctx_.ssh_key_name) == got.ssh_key_names.end())
      wrong.push_back("SSH key missing");
    return wrong;
  }

  // The order check's verdict on what was compared: `orders` names them; `one_type` says why only
  // the lifecycle's instance was, if so.
  void decide_order(const std::string& orders, const std::string& one_type) {
    if (decided(order_id) || !order_compared_) return;
    const auto tested = one_type.empty() ? std::string() : "; one instance type tested: " + one_type;
    if (order_wrong_.empty()) return emit(make(order_id, outcome::pass, "delivered as ordered: " + orders + tested, order_evidence_));
    std::string wrong;
    for (const auto& w : order_wrong_) wrong += (wrong.empty() ? "" : "; ") + w;
    emit(make(order_id, outcome::fail, "delivered otherwise than ordered: " + wrong + " (ordered " + orders + tested + ")",
              order_evidence_));
  }

  // capacity.offers.advertised_is_launchable: every advertised row tried must have launched. The
  // share that did is a measurement (advertised_rows_launched); `note` says why no more were tried.
  void decide_capacity(const std::string& note = {}) {
    if (decided(capacity_id) || rows_.empty()) return;
    std::size_t launched = 0, refused = 0;
    std::string failed, keys, unjudged;
    std::vector<exchange> evidence;
    measurement::advertised_rows m{.tried = rows_.size()};
    for (const auto& r : rows_) {
      auto& row = m.rows.emplace_back(measurement::advertised_row{.row = r.key, .launched = r.launched});
      if (r.launched) {
        ++launched;
        keys += (keys.empty() ? "" : ", ") + r.key;
      } else {
        row.why = r.why;
        if (r.refused_for_capacity) ++refused;
      }
      if (!r.launched && r.judged) {
        failed += (failed.empty() ? "" : "; ") + r.key + " (" + r.why + ")";
        evidence.push_back(r.evidence);
      } else if (!r.launched) {
        unjudged += "; " + r.key + " " + r.why;
      }
    }
    const auto tried = static_cast<double>(rows_.size());
    m.launched = launched;
    m.share = static_cast<double>(launched) / tried;
    m.advertised = advertised_;
    ctx_.measurements[measurement::advertised_rows::key] = m;
    ctx_.measurements["capacity_refusal_rate"] = static_cast<double>(refused) / tried;
    const auto share = std::to_string(launched) + " of " + std::to_string(rows_.size()) + " advertised row(s) tried launched";
    const auto why_no_more = note.empty() ? std::string() : " (" + note + ")";
    auto o = failed.empty() ? make(capacity_id, outcome::pass, share + ": " + keys + unjudged + why_no_more, {rows_.front().evidence})
                            : make(capacity_id, outcome::fail,
                                   share + "; advertised as available, yet not launched: " + failed + why_no_more, std::move(evidence));
    o.measurements[measurement::advertised_rows::key] = m;
    emit(std::move(o));
  }

  // More than one offer (issue 21): the cheapest row of another instance type, whose instance is
  // read until it runs and compared with its order, then further advertised rows, each launched
  // and terminated at once, up to further_rows in all and, live, as far as the budget allows
  // (after the lifecycle's own instances). What is launched is tracked and torn down as the
  // lifecycle's instance is.
  static constexpr std::size_t further_rows = 3;
  void further_offers() {
    std::string no_more;                // why no further row was tried (after those that were)
    std::string one_type;               // why the order check compared one type only
    std::vector<offer> plan;            // the rows to try, the cheapest of another type first when there is one
    std::optional<std::size_t> second;  // the row of the second order, once launched
    bool second_compared = false;
    auto offers = client_.list_offers();
    if (!offers.value) {
      no_more = "the offers could not be listed again: " + (offers.problem.empty() ? offers.call.describe() : offers.problem);
      one_type = no_more;
    } else {
      std::vector<std::string> tried;
      for (const auto& r : rows_) tried.push_back(r.key);
      const auto all = select_offer(ctx_.spec, *offers.value, client_.pins);
      advertised_ = all.rows - all.not_gpu - all.unavailable - all.misfit - all.unpinned - all.unpriced;
      std::vector<offer> others;
      std::copy_if(offers.value->begin(), offers.value->end(), std::back_inserter(others),
                   [&](const offer& o) { return o.instance_type != order_.instance_type; });
      if (auto other = select_offer(ctx_.spec, others, client_.pins, tried).chosen) {
        tried.push_back(other->key());
        plan.push_back(std::move(*other));
      } else {
        one_type = "no other instance type is advertised as launchable";
      }
      while (plan.size() < further_rows) {
        auto next = select_offer(ctx_.spec, *offers.value, client_.pins, tried).chosen;
        if (!next) break;
        tried.push_back(next->key());
        plan.push_back(std::move(*next));
      }
      if (plan.size() < further_rows) no_more = "no other row is advertised as launchable";
    }
    // Whether the spec reads which rows have capacity; where it reads none (RunPod's GraphQL
    // gpuTypes as the spec queries them, Vast.ai's bundles), a capacity refusal of a further row
    // contradicts nothing the catalogue said, and is recorded but not judged.
    const bool advertises = ctx_.spec.offer_fields.contains("available") || ctx_.spec.offer_fields.contains("regions_available") ||
                            ctx_.spec.offer_availability.has_value();
    const auto* launch_op = ctx_.spec.operation(operation_id::launch);
    const bool names_region = launch_op->body && template_pointers(*launch_op->body).contains("region");
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const auto& row = plan[i];
      // The second order: the first row of another type that launches.
      const bool is_second = !second && row.instance_type != order_.instance_type;
      if (auto no = client_.ledger().would_refuse(row.instance_type)) {
        no_more = "the budget allows no further instance: " + *no;
        if (!second && one_type.empty()) one_type = "the budget allows no second instance: " + *no;
        break;
      }
      const auto name = ctx_.prefix() + (is_second ? std::string("order") : "row" + std::to_string(i));
      const auto since = ctx_.now();
      auto l = launch_row(row, name);
      if (!l.call.success) {
        const auto condition = provider_condition(l.call, ctx_.spec);
        if (l.call.not_sent || !l.call.response || (condition && condition != outcome::no_capacity)) {
          // Not the provider's failure to deliver what it advertised: a budget, a quota, a rate
          // limit or the network. The row is not counted, and no further one is tried.
          no_more = "the launch of " + row.key() + " was " + l.call.describe() + ", so no further row was tried";
          if (!second && one_type.empty()) one_type = "the launch of another type was " + l.call.describe();
          break;
        }
        const bool capacity = condition == outcome::no_capacity;
        rows_.push_back({.key = row.key(),
                         .why = !capacity    ? "failed: " + l.call.describe()
                                : advertises ? "refused for lack of capacity"
                                             : "refused for lack of capacity, which the catalogue does not advertise: not judged",
                         .refused_for_capacity = capacity,
                         .judged = advertises || !capacity,
                         .evidence = l.call.evidence});
        if (is_second) one_type = "the launch of the other type " + row.key() + " did not succeed (see " + std::string(capacity_id) + ")";
        continue;
      }
      rows_.push_back({.key = row.key(), .launched = true, .evidence = l.call.evidence});
      if (is_second) second = i;
      if (!l.value) {  // no id to act on: swept by name at the end of the run
        if (is_second) one_type = "the launch of the other type named no instance";
        continue;
      }
      if (is_second && order_compared_) second_compared = compare_second_order(*l.value, row, name, since, names_region, one_type);
      (void)client_.terminate(*l.value);
    }
    decide_capacity(no_more);
    if (second_compared) decide_order(order_.key() + " and " + plan[*second].key(), "");
    else
      decide_order(order_.key(), one_type.empty() ? no_more : one_type);
  }

  // The second order: read until it runs (or as last read), compared as the first was; false
  // (with why in `one_type`) when it could not be read.
  bool compare_second_order(const std::string& id, const offer& row, const std::string& name, time_point since, bool names_region,
                            std::string& one_type) {
    std::string status, gave_up;
    exchange last;
    std::optional<instance> seen = wait_running(id, since, status, last, gave_up);
    if (!seen) std::tie(seen, last) = observe(id);
    if (!seen) {
      one_type = "the instance of the other type (" + row.key() + ") could not be read";
      return false;
    }
    for (auto& w : delivered_otherwise(*seen, row, name, names_region && !row.region.empty()))
      order_wrong_.push_back(w + " in the second order, " + row.key());
    order_evidence_.push_back(last);
    return true;
  }

  // schema.instance.consistent_across_endpoints: get and list agree on the same instance.
  void consistent(const std::string& id) {
    if (ctx_.spec.operation(operation_id::get) == nullptr)
      return emit(not_applicable(consistent_id, "the API has no get-by-id operation to compare with the list"));
    auto got = client_.get(id);
    auto listed = client_.list();
    std::optional<instance> entry;
    if (listed.value)
      for (const auto& i : *listed.value)
        if (i.id == id) entry = i;
    if (!got.value || !entry)
      return emit(make(consistent_id, outcome::errored, "the instance could not be read from both get and list",
                       {got.call.evidence, listed.call.evidence}));
    std::vector<std::string> diffs;
    if (got.value->instance_type != entry->instance_type)
      diffs.push_back("type \"" + got.value->instance_type + "\" vs \"" + entry->instance_type + "\"");
    if (got.value->region != entry->region) diffs.push_back("region \"" + got.value->region + "\" vs \"" + entry->region + "\"");
    if (got.value->name != entry->name) diffs.push_back("name \"" + got.value->name + "\" vs \"" + entry->name + "\"");
    if (diffs.empty()) return emit(make(consistent_id, outcome::pass, "get and list agree", {got.call.evidence, listed.call.evidence}));
    emit(make(consistent_id, outcome::fail, "get and list disagree: " + diffs.front(), {got.call.evidence, listed.call.evidence}));
  }

  // isolation.instance.*: the second account must not see or touch the first account's instance.
  void isolation(const std::string& id) {
    const char* ids[] = {iso_get_id, iso_list_id, iso_terminate_id, iso_restart_id, iso_leak_id};
    if (ctx_.second == nullptr) {
      for (const char* i : ids) emit(not_applicable(i, "needs a second account (--second-api-key)"));
      return;
    }
    auto& other = *ctx_.second;
    const bool has_get = ctx_.spec.operation(operation_id::get) != nullptr;
    call_result theirs, missing;
    if (has_get) {
      theirs = other.call(operation_id::get, {{"id", id}});
      // A missing id of the same shape: a malformed one may be refused for its form alone.
      missing = deliberately(other.call(operation_id::get, {{"id", absent_like(id)}}), "an instance id that names nothing");
      // A read answering "nothing here" (a 404, or Vast.ai's 200 with a null object) refuses.
      if (answers_gone(ctx_.spec, theirs))
        emit(make(iso_get_id, outcome::pass, "answered as absent: " + theirs.describe(), {theirs.evidence}));
      else if (theirs.success)
        emit(make(iso_get_id, outcome::fail, "the second account read the first account's instance", {theirs.evidence}));
      else
        emit(make(iso_get_id, outcome::pass, "refused with " + theirs.describe(), {theirs.evidence}));
      if (theirs.status() == missing.status())
        emit(make(iso_leak_id, outcome::pass, "same answer as for a missing id (HTTP " + std::to_string(theirs.status()) + ")",
                  {theirs.evidence, missing.evidence}));
      else
        emit(make(iso_leak_id, outcome::fail,
                  "another account's instance answers HTTP " + std::to_string(theirs.status()) + " where a missing one answers " +
                      std::to_string(missing.status()) + ": the difference reveals that it exists",
                  {theirs.evidence, missing.evidence}));
    } else {
      emit(not_applicable(iso_get_id, "the API has no get-by-id operation"));
      emit(not_applicable(iso_leak_id, "the API has no get-by-id operation"));
    }
    auto listed = other.list();
    const bool visible = listed.value && std::any_of(listed.value->begin(), listed.value->end(), [&](auto& i) { return i.id == id; });
    if (!listed.value) emit(make(iso_list_id, outcome::errored, listed.call.describe(), {listed.call.evidence}));
    else if (visible)
      emit(make(iso_list_id, outcome::fail, "the second account's list shows the first account's instance", {listed.call.evidence}));
    else
      emit(make(iso_list_id, outcome::pass, "not listed for the second account", {listed.call.evidence}));

    if (ctx_.spec.operation(operation_id::restart) == nullptr) {
      emit(not_applicable(iso_restart_id, "the API has no restart operation"));
    } else {
      auto r = other.restart(id);
      if (r.success) emit(make(iso_restart_id, outcome::fail, "the second account restarted the first account's instance", {r.evidence}));
      else
        emit(make(iso_restart_id, outcome::pass, "refused with " + r.describe(), {r.evidence}));
      if (r.success) restarting_ = true;
    }
    auto t = other.terminate(id);
    auto [after, ev] = observe(id);
    const bool hit = t.success || (after && (after->state == instance_state::stopping || after->state == instance_state::terminated));
    if (hit) {
      emit(make(iso_terminate_id, outcome::fail, "the second account terminated the first account's instance", {t.evidence, ev}));
      terminated_by_other_ = true;
    } else {
      emit(make(iso_terminate_id, outcome::pass, "refused with " + t.describe(), {t.evidence}));
    }
  }

  // lifecycle.instance.restart_returns_to_running
  void restart(const std::string& id) {
    if (ctx_.spec.operation(operation_id::restart) == nullptr) return emit(not_applicable(restart_id, "the API has no restart operation"));
    if (terminated_by_other_) return emit(make(restart_id, outcome::skipped, "the instance was terminated by another account"));
    auto r = client_.restart(id);
    if (!r.success)
      return emit(make(restart_id, r.response ? outcome::fail : outcome::errored, "restart failed: " + r.describe(), {r.evidence}));
    restarting_ = true;
    left_running_ = false;
    const auto since = ctx_.now();
    // An accepted action must complete before the instance's state means anything.
    auto action = await_action(operation_id::restart, r, since, ctx_.spec.timing.time_to_running_s, "the restart");
    if (action.result != outcome::pass) {
      restarting_ = false;
      return emit(make(restart_id, action.result, action.message, {r.evidence, action.last}));
    }
    std::string status, gave_up;
    exchange last;
    // Where the action says the restart is over, a stopped read is where it ended (issue 36).
    auto running = wait_running(id, since, status, last, gave_up, action.message.empty() ? undocumented_polls : 1);
    restarting_ = false;
    std::vector<exchange> evidence{r.evidence};
    if (!action.message.empty()) evidence.push_back(action.last);
    evidence.push_back(last);
    const auto after = std::to_string(seconds_since(since)) + " s";
    // Whether a poll saw the instance away from running is recorded, not judged: a quick reboot can
    // fall between two polls, and with no delays it is over before the first.
    const auto departure = left_running_ ? std::string(" (seen leaving running)")
                                         : std::string(" (not seen leaving running between polls") +
                                               (action.message.empty() ? ")" : "; the action record shows the restart)");
    if (running) {
      auto o = make(restart_id, outcome::pass, action.message + "running again after " + after + departure, evidence);
      o.measurements["departure_seen"] = left_running_;
      emit(std::move(o));
    } else
      emit(make(
          restart_id, outcome::fail,
          action.message + (!gave_up.empty() ? gave_up + " after the restart" : "status \"" + status + "\" " + after + " after restart"),
          evidence));
  }

  // Follows the action an accepted operation answers with (the spec's `action`) until it reports
  // done, failed, something undocumented, or `within_s` (provider time) passes from `since`. pass:
  // it completed ("action N completed after t s; " as message), or the operation declares no action.
  struct action_outcome {
    outcome result = outcome::pass;
    std::string message;
    exchange last;
  };
  action_outcome await_action(operation_id op, const call_result& accepted, time_point since, double within_s, const std::string& what) {
    const auto& declared = ctx_.spec.operation(op)->action;
    if (!declared) return {};
    const auto& a = *declared;
    auto id = client_.action_id(op, accepted);
    if (!id) return {outcome::fail, what + " was answered without an action id at " + a.id_pointer + " (" + a.source + ")", {}};
    const auto deadline = since + ctx_.scaled(within_s);
    auto is = [](const std::vector<std::string>& words, const std::string& w) {
      return std::find(words.begin(), words.end(), w) != words.end();
    };
    for (;;) {
      auto s = client_.action_status(op, *id);
      const auto after = std::to_string(seconds_since(since)) + " s";
      if (!s.value)
        return {s.call.response ? outcome::fail : outcome::errored,
                "action " + *id + " could not be read: " + (s.problem.empty() ? s.call.describe() : s.problem), s.call.evidence};
      if (is(a.done, *s.value)) return {outcome::pass, "action " + *id + " " + *s.value + " after " + after + "; ", s.call.evidence};
      if (is(a.failed, *s.value)) return {outcome::fail, "action " + *id + " ended \"" + *s.value + "\" after " + after, s.call.evidence};
      if (!is(a.in_progress, *s.value))
        return {outcome::fail, "action " + *id + " reports \"" + *s.value + "\", not a documented action status", s.call.evidence};
      if (ctx_.now() >= deadline)
        return {outcome::fail, "action " + *id + " still \"" + *s.value + "\" " + after + " after " + what + " was accepted",
                s.call.evidence};
      sleep();
    }
  }

  // Two more instances: pagination over three, then terminate_many on the two.
  void more_instances() {
    const auto* op = ctx_.spec.operation(operation_id::terminate);
    bool binds_array = false;
    if (op->body)
      for (const auto& [name, ptr] : template_pointers(*op->body))
        if (name == "id") {
          const auto parent = ptr.substr(0, ptr.rfind('/'));
          const auto* node = find_pointer(*op->body, parent);
          binds_array = node != nullptr && node->is_array() && node->size() == 1;
        }
    std::vector<std::string> extra;
    std::optional<std::string> not_sent;  // the budget allows no more instances
    for (int i = 0; i < 2 && !not_sent; ++i) {
      auto target = launchable_offer(ctx_);
      if (!target) break;
      auto l = launch_row(*target, ctx_.prefix() + "extra" + std::to_string(i));
      if (l.value) extra.push_back(*l.value);
      if (l.call.not_sent) not_sent = l.call.describe();
    }
    pagination(extra.size() + 1, ctx_.now());
    tag_filter();
    if (!binds_array) return emit(not_applicable(many_id, "terminate takes one id per request"));
    if (extra.size() < 2 && not_sent)
      return emit(make(many_id, outcome::skipped, "two more instances are needed; the launch was " + *not_sent));
    if (extra.size() < 2) return emit(make(many_id, outcome::no_capacity, "two more instances could not be launched"));
    auto t = client_.call(operation_id::terminate, {{"id", nlohmann::json(extra)}});
    if (!t.success)
      return emit(make(many_id, t.response ? outcome::fail : outcome::errored, "terminate failed: " + t.describe(), {t.evidence}));
    const auto deadline = ctx_.now() + ctx_.scaled(ctx_.spec.timing.time_to_gone_s);
    std::vector<std::string> alive = extra;
    exchange last;
    std::string word;
    int undocumented = 0;  // polls in a row where every instance left reads an undocumented word
    for (;;) {             // at least one look, as in wait_running
      std::vector<std::string> still;
      bool all_undocumented = true;
      for (const auto& x : alive) {
        auto [seen, ev] = observe(x);
        last = ev;
        if (seen && seen->state != instance_state::terminated && seen->state != instance_state::stopping) {
          still.push_back(x);
          if (seen->state == instance_state::unknown) word = seen->provider_status;
          else
            all_undocumented = false;
        }
      }
      alive = std::move(still);
      undocumented = !alive.empty() && all_undocumented ? undocumented + 1 : 0;
      if (alive.empty() || ctx_.now() >= deadline || undocumented >= undocumented_polls) break;
      sleep();
    }
    if (alive.empty()) emit(make(many_id, outcome::pass, "both instances terminated by one request", {t.evidence}));
    else if (undocumented >= undocumented_polls)
      emit(make(many_id, outcome::fail,
                "status \"" + word + "\" is not in the documented vocabulary and persisted over " + std::to_string(undocumented) +
                    " polls: neograde cannot tell whether the instances terminated",
                {t.evidence, last}));
    else
      emit(make(many_id, outcome::fail,
                std::to_string(alive.size()) + " of 2 instances still running after one terminate request naming both",
                {t.evidence, last}));
  }

  // pagination.list.*: walk the list one item per page. A list may lag single reads (no
  // provider document promises read-after-write on it: Prime Intellect's GET /pods/ was seen 3 s
  // behind GET /pods/{id}), so a walk that finds fewer instances than the run launched is walked
  // again, a poll interval apart, within the spec's time to running from the launches
  // (`launched`); not where the list never showed the lifecycle's instance, which is
  // visible_in_list's finding and waiting would not change.
  void pagination(std::size_t expected, time_point launched) {
    const auto* op = ctx_.spec.operation(operation_id::list);
    if (!op->pagination || op->pagination->size_param.empty()) {
      emit(not_applicable(each_once_id, "the instance list is not paginated by size"));
      emit(not_applicable(page_size_id, "the instance list is not paginated by size"));
      emit(not_applicable(page_metadata_id, "the spec declares no pagination metadata"));
      return;
    }
    std::vector<std::size_t> sizes;
    std::size_t first_page = 0;
    typed_result<std::vector<nlohmann::json>> paged;
    std::multiset<std::string> ids;
    std::set<std::string> unique;
    int walks = 0;
    const auto deadline = listed_ ? launched + ctx_.scaled(ctx_.spec.timing.time_to_running_s) : ctx_.now();
    ctx_.poll_until(deadline, [&]() -> std::optional<bool> {
      sizes.clear();
      first_page = ctx_.seen.size();
      paged = client_.walk(operation_id::list, 1, &sizes);
      ++walks;
      if (!paged.value) return false;
      ids.clear();
      for (const auto& item : *paged.value) ids.insert(client_.to_instance(item, operation_id::list).id);
      unique = std::set<std::string>(ids.begin(), ids.end());
      return unique.size() < expected && unique.size() == ids.size() ? std::nullopt : std::optional<bool>(true);
    });
    if (!paged.value) {
      emit(make(each_once_id, outcome::fail, "walking one item per page failed: " + paged.call.describe() + " " + paged.problem,
                {paged.call.evidence}));
      emit(make(page_size_id, outcome::skipped, "the walk failed"));
      if (op->pagination->metadata_source.empty()) emit(not_applicable(page_metadata_id, "the spec declares no pagination metadata"));
      else
        emit(make(page_metadata_id, outcome::skipped, "the walk failed"));
      return;
    }
    page_metadata(*op, first_page);
    const auto tries = walks == 1
                           ? std::string()
                           : " (walk " + std::to_string(walks) + ", " + std::to_string(seconds_since(launched)) + " s after the launches)";
    if (unique.size() != ids.size())
      emit(make(each_once_id, outcome::fail, "an instance appeared on more than one page" + tries, {paged.call.evidence}));
    else if (unique.size() < expected)
      emit(make(each_once_id, outcome::fail,
                std::to_string(unique.size()) + " instances found walking the pages, " + std::to_string(expected) + " expected" + tries,
                {paged.call.evidence}));
    else
      emit(make(each_once_id, outcome::pass,
                std::to_string(unique.size()) + " instances over " + std::to_string(sizes.size()) + " pages" + tries,
                {paged.call.evidence}));
    auto big = std::find_if(sizes.begin(), sizes.end(), [](std::size_t n) { return n > 1; });
    if (big != sizes.end())
      emit(make(page_size_id, outcome::fail, "a page of " + std::to_string(*big) + " items was served for a page size of 1",
                {paged.call.evidence}));
    else
      emit(make(page_size_id, outcome::pass, "every page within the size asked for", {paged.call.evidence}));
  }

  // lifecycle.instance.filter_selects_exactly: the list filtered by the run's tag lists exactly
  // the run's instances of the unfiltered list, and filtered by a tag no instance carries, none.
  void tag_filter() {
    const auto& op = *ctx_.spec.operation(operation_id::list);
    if (!op.tag_filter) return emit(not_applicable(filter_id, "the spec declares no list filter by tag"));
    const auto& f = *op.tag_filter;
    // The list's own query, which a filter that stands alone replaces (DigitalOcean's type=gpus).
    const auto path = ctx_.path_of(op);
    const auto q = path.find('?');
    const auto replaced = f.alone && q != std::string::npos ? path.substr(q + 1) : std::string();
    const auto base = f.alone ? path.substr(0, q) : path;
    auto filtered = [&](const std::string& tag) {
      auto r = client_.raw("GET", base + (base.find('?') == std::string::npos ? "?" : "&") + f.param + "=" + tag, {}, {}, auth_mode::key,
                           operation_id::list);
      std::set<std::string> ids;
      if (r.success && r.json)
        for (const auto& item : client_.collection(*r.json, op.items.value_or(""), op.items_are_object_values))
          ids.insert(client_.to_instance(item, operation_id::list).id);
      return std::make_pair(std::move(r), std::move(ids));
    };
    auto all = client_.list();
    if (!all.value)
      return emit(make(filter_id, outcome::errored, "the unfiltered list failed: " + all.call.describe(), {all.call.evidence}));
    std::set<std::string> ours;
    for (const auto& i : *all.value)
      if (i.name.starts_with(ctx_.prefix())) ours.insert(i.id);
    const auto tag = run_tag(ctx_.session.run_id());
    auto [tagged, selected] = filtered(tag);
    if (!tagged.success)
      return emit(make(filter_id, outcome::fail, "listing by " + f.param + "=" + tag + " failed: " + tagged.describe(), {tagged.evidence}));
    for (const auto& id : selected)
      if (!ours.contains(id))
        return emit(make(filter_id, outcome::fail,
                         "filtered by " + f.param + "=" + tag + ", the list shows instance " + id + ", which is not one of the run's",
                         {tagged.evidence, all.call.evidence}));
    // A filter that cannot be combined with the list's own query (DigitalOcean's tag_name without
    // type=gpus) may apply the API's default in its place: the document leaves open whether it
    // lists the run's instances then, so an omission is noted, not judged (a false failure would
    // shame the provider for our reading). What it lists must still be the run's.
    std::size_t omitted = 0;
    for (const auto& id : ours) {
      if (selected.contains(id)) continue;
      if (replaced.empty())
        return emit(make(filter_id, outcome::fail,
                         "filtered by " + f.param + "=" + tag + ", the list omits the run's instance " + id + ", launched with that tag",
                         {tagged.evidence, all.call.evidence}));
      ++omitted;
    }
    const auto omission_note = omitted == 0 ? std::string()
                                            : "; " + std::to_string(omitted) +
                                                  " of the run's instance(s) not listed by the tag, which "
                                                  "cannot be combined with " +
                                                  replaced + ": not judged, the document leaves it open";
    const auto none = tag + "-untagged";
    auto [empty, listed] = filtered(none);
    if (!empty.success)
      return emit(make(filter_id, outcome::fail, "listing by " + f.param + "=" + none + " failed: " + empty.describe(), {empty.evidence}));
    if (!listed.empty())
      return emit(make(filter_id, outcome::fail,
                       "filtered by " + f.param + "=" + none + ", a tag no instance carries, the list shows " +
                           std::to_string(listed.size()) + " instance(s): the filter is ignored",
                       {empty.evidence}));
    emit(make(filter_id, outcome::pass,
              "by the run's tag, " + (omitted == 0 ? "exactly the run's " + std::to_string(ours.size()) : std::string("only the run's")) +
                  " instance(s); by a tag no instance carries, none" + omission_note + " (" + f.source + ")",
              {tagged.evidence, empty.evidence}));
  }

  // pagination.list.metadata_truthful: what the pages of the walk just made (ctx.seen from
  // `from` on) say about it, where the spec declares it.
  void page_metadata(const operation_spec& op, std::size_t from) {
    const auto& pg = *op.pagination;
    if (pg.metadata_source.empty()) return emit(not_applicable(page_metadata_id, "the spec declares no pagination metadata"));
    struct page {
      const call_result* r;
      std::size_t count;
    };
    std::vector<page> pages;
    std::set<std::string> ids;
    for (auto i = from; i < ctx_.seen.size(); ++i) {
      const auto& o = ctx_.seen[i];
      if (o.op != operation_id::list || !o.result.success || !o.result.json) continue;
      const auto batch = client_.collection(*o.result.json, op.items.value_or(""), op.items_are_object_values);
      for (const auto& item : batch) ids.insert(client_.to_instance(item, operation_id::list).id);
      pages.push_back({&o.result, batch.size()});
    }
    std::size_t last = pages.size();  // the last page that lists something
    for (std::size_t i = 0; i < pages.size(); ++i)
      if (pages[i].count > 0) last = i;
    if (last == pages.size()) return emit(make(page_metadata_id, outcome::skipped, "the walk found no instance"));
    auto fail = [&](std::size_t i, const std::string& why) {
      emit(make(page_metadata_id, outcome::fail, "page " + std::to_string(i + 1) + " of " + std::to_string(last + 1) + ": " + why,
                {pages[i].r->evidence}));
    };
    // Where a link points: its page number (page style) or offset (offset style), from its query.
    auto position = [&](const std::string& link) -> std::optional<long> {
      const auto& key = pg.style == "page" ? pg.page_param : pg.offset_param;
      const auto q = link.find('?');
      if (q == std::string::npos || key.empty()) return std::nullopt;
      for (std::size_t at = q + 1; at < link.size();) {
        const auto end = std::min(link.find('&', at), link.size());
        const auto pair = link.substr(at, end - at);
        if (pair.starts_with(key + "=")) {
          try {
            return std::stol(pair.substr(key.size() + 1));
          } catch (const std::exception&) {
            return std::nullopt;
          }
        }
        at = end + 1;
      }
      return std::nullopt;
    };
    // The position of page i: its page number, or its offset (the items before it).
    auto position_of = [&](std::size_t i) {
      if (pg.style == "page") return static_cast<long>(pg.first_page) + static_cast<long>(i);
      long before = 0;
      for (std::size_t k = 0; k < i; ++k) before += static_cast<long>(pages[k].count);
      return before;
    };
    std::vector<std::string> checked;
    for (std::size_t i = 0; i < pages.size() && i <= last; ++i) {
      const auto& body = *pages[i].r->json;
      if (!pg.total_pointer.empty()) {
        const auto* total = find_pointer(body, pg.total_pointer);
        if (total == nullptr || !total->is_number_integer()) return fail(i, "no integer total at " + pg.total_pointer);
        if (total->get<long long>() != static_cast<long long>(ids.size()))
          return fail(i, "the page states a total of " + std::to_string(total->get<long long>()) + " (" + pg.total_pointer +
                             "); the walk found " + std::to_string(ids.size()) + " distinct instances");
      }
      // What the page says about a next page: each declared form, and whether it says more.
      std::vector<std::pair<std::string, bool>> says;
      if (!pg.more_pointer.empty()) {
        const auto* more = find_pointer(body, pg.more_pointer);
        says.emplace_back("the more flag " + pg.more_pointer, more != nullptr && more->is_boolean() && more->get<bool>());
      }
      if (pg.style == "token")
        says.emplace_back("the next token " + pg.next_pointer, !string_at(body, pg.next_pointer).value_or("").empty());
      std::string next_link;
      if (!pg.next_link_pointer.empty()) {
        next_link = string_at(body, pg.next_link_pointer).value_or("");
        says.emplace_back("the next link " + pg.next_link_pointer, !next_link.empty());
      }
      for (const auto& [what, more] : says) {
        if (i < last && !more) return fail(i, what + " says no page follows, yet page " + std::to_string(i + 2) + " lists instances");
        if (i == last && more) return fail(i, "the last page: " + what + " still says a page follows, past the end");
      }
      if (!next_link.empty()) {
        const auto to = position(next_link);
        if (!to || *to != position_of(i + 1))
          return fail(i, "the next link \"" + next_link + "\" does not name the following page (" + pg.page_param + pg.offset_param + " " +
                             std::to_string(position_of(i + 1)) + ")" + (to && *to <= position_of(i) ? ": it loops back" : ""));
      }
      if (!pg.last_link_pointer.empty()) {
        const auto link = string_at(body, pg.last_link_pointer).value_or("");
        if (i < last && link.empty()) return fail(i, "no last link at " + pg.last_link_pointer + " on a page before the last");
        if (const auto to = link.empty() ? std::optional<long>() : position(link); !link.empty() && (!to || *to != position_of(last)))
          return fail(i, "the last link \"" + link + "\" does not name the last page (" + pg.page_param + pg.offset_param + " " +
                             std::to_string(position_of(last)) + ")");
      }
    }
    if (!pg.total_pointer.empty()) checked.push_back("the total");
    if (!pg.more_pointer.empty()) checked.push_back("the more flag");
    if (pg.style == "token") checked.push_back("the next token");
    if (!pg.next_link_pointer.empty()) checked.push_back("the next link");
    if (!pg.last_link_pointer.empty()) checked.push_back("the last link");
    std::string what;
    for (const auto& c : checked) what += (what.empty() ? "" : ", ") + c;
    emit(make(page_metadata_id, outcome::pass,
              what + ": as the walk found on all " + std::to_string(last + 1) + " page(s) of " + std::to_string(ids.size()) +
                  " instance(s) (" + pg.metadata_source + ")",
              {pages[last].r->evidence}));
  }

  void terminate(const std::string& id) {
    // A terminate the provider refuses before the instance's minimum runtime, as the spec
    // declares (Spheron's 20 minutes), is waited out and sent again.
    auto patient = terminate_after_minimum_runtime(client_, id, ctx_.clock);
    auto term = std::move(patient.result);
    const auto terminated_at = ctx_.now();
    std::string early;
    if (!patient.early.empty())
      early = " after " + std::to_string(patient.early.size()) + " refusal(s) before the minimum runtime of " +
              std::to_string(std::lround(ctx_.spec.timing.minimum_runtime->seconds)) + " s, as the spec declares (" +
              patient.early.front().describe() + ")";
    if (!term.success && !terminated_by_other_) {
      emit(make(terminate_id, term.response ? outcome::fail : outcome::errored, "terminate failed" + early + ": " + term.describe(),
                {term.evidence}));
      emit(make(terminate_schema_id, outcome::skipped, "terminate was not accepted"));
      emit(make(gone_id, outcome::skipped, "terminate was not accepted"));
      emit(make(idempotent_id, outcome::skipped, "terminate was not accepted"));
      return;
    }
    std::vector<exchange> term_evidence;
    for (const auto& e : patient.early) term_evidence.push_back(e.evidence);
    term_evidence.push_back(term.evidence);
    emit(make(terminate_id, outcome::pass, "HTTP " + std::to_string(term.status()) + early, std::move(term_evidence)));
    billing_.terminating(terminated_at);
    validate(terminate_schema_id, operation_id::terminate, term);
    // lifecycle.instance.terminate_idempotent: terminating again while terminating.
    auto again = client_.terminate(id);
    if (!again.response) emit(make(idempotent_id, outcome::errored, again.describe(), {again.evidence}));
    else if (again.status() >= 500)
      emit(make(idempotent_id, outcome::fail, "terminating a terminating instance got " + again.describe(), {again.evidence}));
    else
      emit(make(idempotent_id, outcome::pass, "HTTP " + std::to_string(again.status()), {again.evidence}));
    // A terminate answered with an operation (Crusoe) is done when the operation is.
    const auto action = term.success
                            ? await_action(operation_id::terminate, term, terminated_at, ctx_.spec.timing.time_to_gone_s, "terminate")
                            : action_outcome{};
    if (action.result != outcome::pass) return emit(make(gone_id, action.result, action.message, {term.evidence, action.last}));
    gone(id, terminated_at, action.message);
  }

  // gone_after_terminate: terminated or 404 in get, not running in list, never running again,
  // within the spec's time to gone. Get running again decides at once; a list that still shows
  // the instance running is read again until the deadline, since a list may lag single reads (a
  // list 3 s behind and a permanent ghost read the same once). Waited out, the instance is left to
  // the teardown, which knows when the terminate was accepted (the client's
  // terminate_accepted_at) and does not wait the time to gone again.
  void gone(const std::string& id, time_point terminated_at, const std::string& action_note) {
    const bool has_get = ctx_.spec.operation(operation_id::get) != nullptr;
    const auto gone_deadline = terminated_at + ctx_.scaled(ctx_.spec.timing.time_to_gone_s);
    std::string state_note, ghost;  // ghost: the status the list shows it running with, at the last look
    std::vector<exchange> ev;
    int undocumented = 0;  // polls in a row that read an undocumented word and nothing gone
    auto verdict = ctx_.poll_until(gone_deadline, [&]() -> std::optional<check_outcome> {
      auto got = has_get ? client_.get(id) : typed_result<instance>{};
      auto listed = client_.list();
      ev = has_get ? std::vector<exchange>{got.call.evidence, listed.call.evidence} : std::vector<exchange>{listed.call.evidence};
      if (got.value && got.value->state == instance_state::running)
        return make(gone_id, outcome::fail, "get reports the instance running again after terminate", ev);
      std::optional<instance> entry;
      if (listed.value)
        for (const auto& i : *listed.value)
          if (i.id == id) entry = i;
      ghost = entry && entry->state == instance_state::running ? entry->provider_status : std::string();
      const bool gone_in_get =
          !has_get || answers_gone(ctx_.spec, got.call) || (got.value && got.value->state == instance_state::terminated);
      const bool gone_in_list = listed.value && (!entry || entry->state == instance_state::terminated);
      if (gone_in_get && gone_in_list) {
        const double ttg = seconds_since(terminated_at);
        ctx_.measurements["time_to_gone_s"] = ttg;
        auto o = make(gone_id, outcome::pass, action_note + "gone after " + std::to_string(ttg) + " s", ev);
        o.measurements["time_to_gone_s"] = ttg;
        return o;
      }
      state_note = (has_get ? "get: " + got.call.describe() : std::string("get: n/a")) +
                   (got.value ? " status \"" + got.value->provider_status + "\"" : "") + "; list: " +
                   (entry          ? "status \"" + entry->provider_status + "\""
                    : listed.value ? "absent"
                                   : listed.call.describe());
      const bool unreadable =
          (got.value && got.value->state == instance_state::unknown) || (entry && entry->state == instance_state::unknown);
      undocumented = unreadable ? undocumented + 1 : 0;
      if (undocumented >= undocumented_polls)
        return make(gone_id, outcome::fail,
                    "an undocumented status persisted over " + std::to_string(undocumented) + " polls after terminate (" + state_note +
                        "): neograde cannot tell whether the instance is gone",
                    ev);
      return std::nullopt;
    });
    if (verdict) return emit(std::move(*verdict));
    const auto after = std::to_string(seconds_since(terminated_at)) + " s after terminate, the spec's time to gone being " +
                       std::to_string(std::lround(ctx_.spec.timing.time_to_gone_s * ctx_.scale)) + " s (" + state_note + ")";
    emit(make(gone_id, outcome::fail,
              ghost.empty() ? "not gone " + after
                            : "the list still shows the instance running (\"" + ghost + "\") " + after + ": a ghost that may still bill",
              ev));
  }

  context& ctx_;
  provider_client& client_;
  std::set<std::string> decided_;
  // Every advertised row the run tried to launch, for the capacity check.
  struct row_tried {
    std::string key;
    bool launched = false;
    std::string why;  // why not, when not
    bool refused_for_capacity = false;
    bool judged = true;  // a refusal of a row whose capacity the catalogue does not advertise is not
    exchange evidence;
  };
  std::vector<row_tried> rows_;
  std::optional<std::size_t> advertised_;  // launchable rows advertised, once counted
  bool order_compared_ = false;            // the lifecycle's instance was compared with its order
  std::vector<std::string> order_wrong_;
  std::vector<exchange> order_evidence_;
  std::string main_id_;  // the lifecycle's instance, whose reads the transition watch follows
  offer order_;
  typed_result<std::string> launch_;
  time_point launched_at_;
  bool was_running_ = false;
  bool restarting_ = false;
  bool left_running_ = false;  // a poll during the restart saw the instance away from running
  bool terminated_by_other_ = false;
  bool listed_ = false;  // the list showed the lifecycle's instance (visible_in_list)
  std::optional<check_outcome> illegal_;
  billing_watch billing_{ctx_};  // billing read before, during and after (issue 22)
};

}  // namespace

void run_lifecycle(context& ctx) { scenario(ctx).run(); }

}  // namespace neograde::conformance::detail
