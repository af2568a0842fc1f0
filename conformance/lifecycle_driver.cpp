// The instance lifecycle: launch -> visible -> running -> as ordered -> isolated -> restart ->
// paginated with more instances -> terminate -> gone. The driver sends the requests and records
// what it saw (lifecycle_record.hpp); each check is decided by its judge (lifecycle_judges.hpp)
// from that record as soon as the step it needs is over. A step that cannot run because an
// earlier one failed is skipped with the reason. The runner tears down whatever the run created.

#include "billing.hpp"
#include "context.hpp"
#include "lifecycle_judges.hpp"

#include <neograde/conformance/catalogue.hpp>

#include <neograde/clients/delivered.hpp>
#include <neograde/clients/effect.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace neograde::conformance::detail {
namespace {

using namespace lifecycle;
using time_point = run_clock::time_point;

class driver {
 public:
  explicit driver(context& ctx) : ctx_(ctx), client_(ctx.client), rec_(ctx.lifecycle) {
    rec_.run = {.prefix = ctx.prefix(),
                .ssh_key_name = ctx.ssh_key_name,
                .scale = ctx.scale(),
                .second_account = ctx.second != nullptr,
                .spending_allowed = ctx.spend.allowed,
                .spending_refusal = ctx.spend.refusal};
  }

  void run() {
    if (!rec_.run.spending_allowed) return skip_all(outcome::skipped, spend_skip_reason(ctx_.spend, "launches an instance"));
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
    // The lifecycle decides the checks of its stage, and only those (skip_all relies on it).
    if (const auto* d = find_check(o.check_id); d == nullptr || d->stage != check_stage::lifecycle)
      throw std::logic_error(o.check_id + " is decided by the lifecycle, but its catalogue row is not of the lifecycle's stage");
    if (o.check_id == capacity_id || o.check_id == running_id || o.check_id == gone_id)
      for (const char* m : {"advertised_rows_launched", "time_to_running_s", "time_to_gone_s"})
        if (o.measurements.contains(m)) ctx_.measurements[m] = o.measurements[m];
    if (o.check_id == capacity_id) ctx_.measurements["capacity_refusal_rate"] = capacity_refusal_rate(rec_);
    decided_.insert(o.check_id);
    ctx_.emit(std::move(o));
  }
  void emit(std::optional<check_outcome> o) {
    if (o) emit(std::move(*o));
  }
  void emit(std::vector<check_outcome> os) {
    for (auto& o : os) emit(std::move(o));
  }
  [[nodiscard]] bool decided(const char* id) const { return decided_.contains(id); }
  // Emits what the run's needs leave unmet for `id` (decided once by the runner from the
  // catalogue's needs); true when they did.
  bool unmet(const char* id) {
    auto o = ctx_.unmet(id);
    if (o) emit(std::move(*o));
    return o.has_value();
  }

  // The checks of the rows tried, once no more will be: capacity, and the form of the refusals.
  void judge_rows(const std::string& note) {
    if (!decided(capacity_id)) emit(judge_capacity(rec_, note));
    if (!decided(refusal_form_id) && !unmet(refusal_form_id)) emit(judge_refusal_form(rec_));
  }

  // What was delivered against what was ordered and listed, once compared: the order (type, region,
  // launch parameters) and the price.
  void judge_delivered(const std::string& orders, const std::string& one_type) {
    if (!decided(order_id) && !unmet(order_id)) emit(judge_matches_order(rec_, ctx_.spec, orders, one_type));
    if (!decided(price_id) && !unmet(price_id)) {
      relist_disagreeing_prices();
      emit(judge_price_as_listed(rec_, ctx_.spec));
    }
  }

  // Reads the catalogue again, once, where an instance's price disagrees with its row's: a
  // marketplace host may reprice a row between the run's read and its launch, and an instance
  // priced as its row is listed now is no contradiction the provider could not refute.
  void relist_disagreeing_prices() {
    std::optional<typed_result<std::vector<offer>>> again;
    for (auto& c : rec_.compared) {
      if (!c.ordered.price_per_hour_usd) continue;
      const auto price = compare_price(c.got, c.ordered, ctx_.spec);
      if (!price || price->as_listed()) continue;
      if (!again) again = client_.list_offers();
      if (!again->value) continue;
      c.relisted_evidence = again->call.evidence;
      c.relisted = listed_row(ctx_.spec, *again->value, c.ordered);
    }
  }

  // Decides every check of the lifecycle not yet decided (the capacity and order checks by what
  // was tried and compared so far, when there is something): every check gets an outcome.
  void skip_all(outcome result, const std::string& reason) {
    judge_rows("");
    judge_delivered(rec_.launch.order.key(), "the run ended before a second type was ordered");
    // A check whose needs the run does not meet says so, whatever step the lifecycle ended at.
    for (const auto& d : catalogue())
      if (d.stage == check_stage::lifecycle && !decided(d.id.c_str())) {
        auto unmet = ctx_.unmet(d.id);
        emit(unmet ? std::move(*unmet) : make(d.id, result, reason));
      }
    billing_.finish(result, reason);
  }

  void sleep() { ctx_.sleep(ctx_.poll_interval()); }
  // poll_until on the run's clock from the spec's limits, a poll interval between looks.
  template <class Look>
  auto poll(poll_limits limits, Look&& look) {
    return neograde::poll_until(ctx_.clock, limits, look, [this] { sleep(); });
  }

  // The instance as get reports it, or as the list reports it when get does not work. Every
  // read of the lifecycle's instance is recorded for the transition watch by read_statuses.
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
    if (seen && id == rec_.instance_id && !ever_running(rec_.reads) && seen->state != instance_state::running)
      billing_.not_running(ctx_.now() -
                           std::chrono::duration_cast<time_point::duration>(std::chrono::duration<double, std::milli>(ev.duration_ms)));
    return {seen, ev};
  }

  static constexpr int settle_reads = 4;

  // Polls until the instance runs, within the spec's time to running from `since` (looking at
  // least once: with no delays the deadline is now). A status that says the instance will not run
  // by itself ends the wait before the deadline, since waiting out the deadline decides nothing
  // more: an undocumented word over undocumented_looks_allowed polls (neograde cannot tell when
  // such an instance runs), or a documented stopped one over `stopped_polls` (the machine is off:
  // DigitalOcean's `off`). A boot or a reboot may pass through stopped between two polls, so one
  // read decides only where an action record already said the restart is over.
  running_wait wait_running(const std::string& id, time_point since, int stopped_polls = undocumented_looks_allowed) {
    running_wait w;
    int stopped = 0;
    const auto r =
        poll({.deadline = since + ctx_.scaled(ctx_.spec.timing.time_to_running_s), .undocumented_looks = undocumented_looks_allowed},
             [&](poll_look& l) -> std::optional<running_wait::end> {
               std::tie(w.seen, w.last) = observe(id);
               if (!w.seen) return std::nullopt;
               w.last_status = w.seen->provider_status;
               const auto state = w.seen->state;
               const auto read = read_toward(instance_state::running, state);  // clients/effect.hpp
               if (read == toward::reached) return running_wait::end::running;
               if (read == toward::ended) return running_wait::end::ended;
               l.undocumented_if(read == toward::undocumented);
               w.after_s = ctx_.seconds_since(since);
               stopped = state == instance_state::stopped ? stopped + 1 : 0;
               if (stopped >= stopped_polls) return w.count = stopped, running_wait::end::stopped;
               return std::nullopt;
             });
    w.how = r.decided.value_or(r.end == poll_end::undocumented ? running_wait::end::undocumented : running_wait::end::deadline);
    if (w.how == running_wait::end::undocumented) w.count = r.undocumented;
    if (w.how != running_wait::end::undocumented && w.how != running_wait::end::stopped) w.after_s = ctx_.seconds_since(since);
    return w;
  }

  // Follows the action an accepted operation answers with (the spec's `action`) until it reports
  // done, failed, something undocumented, or `within_s` (provider time) passes from `since`.
  action_record await_action(operation_id op, const call_result& accepted, time_point since, double within_s) {
    action_record a;
    const auto& declared = ctx_.spec.operation(op)->action;
    if (!declared) return a;
    auto id = client_.action_id(op, accepted);
    if (!id) return a.how = action_record::end::no_id, a;
    a.id = *id;
    auto is = [](const std::vector<std::string>& words, const std::string& w) {
      return std::find(words.begin(), words.end(), w) != words.end();
    };
    const auto r = poll({.deadline = since + ctx_.scaled(within_s)}, [&](poll_look&) -> std::optional<action_record::end> {
      a.last = client_.action_status(op, *id);
      a.after_s = ctx_.seconds_since(since);
      if (!a.last.value) return action_record::end::unreadable;
      if (is(declared->done, *a.last.value)) return action_record::end::done;
      if (is(declared->failed, *a.last.value)) return action_record::end::failed;
      if (!is(declared->in_progress, *a.last.value)) return action_record::end::undocumented;
      return std::nullopt;
    });
    a.how = r.decided.value_or(action_record::end::deadline);
    return a;
  }

  // Launches an offer row, named `name`, with the run's SSH key.
  typed_result<std::string> launch_row(const offer& row, const std::string& name) {
    return client_.launch({.instance_type = row.instance_type,
                           .region = row.region,
                           .ssh_key_name = ctx_.ssh_key_name,
                           .name = name,
                           .params = row.params,
                           .public_key = ctx_.public_key,
                           .ssh_key_id = ctx_.ssh_key_id});
  }

  // Counts a refused launch of the main instance by its condition, for the developer timeline.
  void count_refusal(std::optional<outcome> condition) {
    ++(condition == outcome::no_capacity          ? ctx_.dx.refused_capacity
       : condition == outcome::quota              ? ctx_.dx.refused_quota
       : condition == outcome::insufficient_funds ? ctx_.dx.refused_funds
                                                  : ctx_.dx.refused_error);
  }

  // Launches the cheapest advertised offer, moving to the next when capacity is refused
  // (bounded). Every row refused is a row tried for the capacity check.
  void launch_main() {
    auto& l = rec_.launch;
    std::vector<std::string> refused;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto target = launchable_offer(ctx_, refused);
      if (!target) break;
      l.order = *target;
      launched_at_ = ctx_.now();
      ctx_.dx.mark(dx_timeline::requested, launched_at_);
      l.result = launch_row(*target, ctx_.prefix() + "lc");
      if (l.result.call.not_sent) {  // nothing was requested
        ctx_.dx.at[dx_timeline::requested].reset();
        ctx_.dx.utc[dx_timeline::requested].clear();
        break;
      }
      ++ctx_.dx.attempts;
      if (l.result.call.success) {
        ctx_.dx.succeeded = true;
        rec_.rows.push_back({.key = target->key(), .launched = true, .evidence = l.result.call.evidence});
        break;
      }
      const auto condition = provider_condition(l.result.call, ctx_.spec);
      count_refusal(condition);
      // A refusal of this row, not of the account or the run (funds, quota, a rate limit, the
      // run's configuration, the network), moves on to the next row, as the further rows do: a
      // capacity refusal answered 500 must not end the lifecycle (issue 39).
      const bool row_refused =
          condition == outcome::no_capacity || (!condition && l.result.call.response && !blames_configuration(l.result.call, ctx_.spec));
      if (!row_refused) break;
      refused.push_back(target->key());
      rec_.rows.push_back(refused_row(*target, l.result.call));
    }
  }

  // A launch of `row` the provider refused, as a row tried: why, and whether the refusal took the
  // documented form of its errors. `advertises`: whether the catalogue says which rows have
  // capacity (a capacity refusal of a row it says nothing of contradicts nothing: not judged).
  // A capacity refusal of an advertised row is judged only when the catalogue, read again at
  // once, still advertises the row: capacity is shared with every other customer, and a row
  // taken in between is no contradiction the provider could not refute.
  row_tried refused_row(const offer& row, const call_result& call, bool advertises = true) {
    const bool capacity = provider_condition(call, ctx_.spec) == outcome::no_capacity;
    row_tried r{.key = row.key(),
                .why = !capacity    ? "failed: " + call.describe()
                       : advertises ? "refused for lack of capacity"
                                    : "refused for lack of capacity, which the catalogue does not advertise: not judged",
                .refused_for_capacity = capacity,
                .judged = advertises || !capacity,
                .evidence = call.evidence,
                .form_problem = refusal_form_problem(call)};
    if (!capacity || !advertises) return r;
    auto again = client_.list_offers();
    if (!again.value) {
      r.judged = false;
      r.why += ", and the catalogue could not be read again to see whether it still advertised the row (" +
               (again.problem.empty() ? again.call.describe() : again.problem) + "): not judged";
    } else if (const auto now = listed_row(ctx_.spec, *again.value, row); now && now->available) {
      r.why += ", while the catalogue read just after still advertises it";
      r.reread = again.call.evidence;
    } else {
      r.judged = false;
      r.why += "; the catalogue read just after no longer advertises it (taken in between): not judged";
    }
    return r;
  }

  // Why a refusal is not in the form the provider documents: a 5xx that no documented error kind
  // has (Verda documents its capacity refusal as 503), or a body outside its error envelope.
  std::optional<std::string> refusal_form_problem(const call_result& call) const {
    const int status = call.status();
    const auto& kinds = ctx_.spec.errors.kinds;
    if (status >= 500 && std::none_of(kinds.begin(), kinds.end(), [&](const auto& k) { return k.second.status == status; }))
      return "a server failure, a status the provider documents for no refusal";
    return ctx_.errors.envelope_problem(call);
  }

  // The launch and what billing knew before it; false when the lifecycle cannot go on.
  bool launch() {
    rec_.launch.offer_found = launchable_offer(ctx_).has_value();
    if (rec_.launch.offer_found) {
      billing_.before_launch();
      launch_main();
      const auto& call = rec_.launch.result.call;
      if (!call.success && !call.not_sent && provider_condition(call, ctx_.spec) == outcome::insufficient_funds) {
        rec_.launch.funds_available = billing_.funds_were_available(rec_.launch.order);
        rec_.launch.billing_before = billing_.before_launch_evidence();
      }
      rec_.launch.found_by_name = rec_.launch.result.call.success && !client_.launched_id(call, "").has_value() &&
                                  ctx_.spec.operation(operation_id::launch)->id_from_list_reads > 0;
    }
    auto verdict = judge_launch(rec_.launch, ctx_.spec);
    emit(std::move(verdict.decided));
    if (verdict.rest) skip_all(*verdict.rest, verdict.rest_reason);
    return !verdict.rest;
  }

  void steps() {
    if (!launch()) return;
    const std::string id = *rec_.launch.result.value;
    rec_.instance_id = id;
    visible(id);
    // A launch answered with an operation (Crusoe) is done when the operation is: its failure or
    // its never ending is the launch's, whatever the instance reads meanwhile.
    rec_.launch_action = await_action(operation_id::launch, rec_.launch.result.call, launched_at_, ctx_.spec.timing.time_to_running_s);
    const bool action_done = judge_action(rec_.launch_action, ctx_.spec, operation_id::launch, "").result == outcome::pass;
    if (action_done) rec_.running = wait_running(id, launched_at_);
    const bool running = action_done && rec_.running.how == running_wait::end::running;
    if (running) ctx_.dx.mark(dx_timeline::running, ctx_.now());
    emit(judge_reaches_running(rec_, ctx_.spec));
    if (running) on_running(id);
    else
      for (const char* dependent : {address_id, order_id, price_id, underlying_id, consistent_id, restart_id, stop_id, start_id})
        if (!unmet(dependent)) emit(make(dependent, outcome::skipped, "the instance never reached running"));
    isolation(id);
    if (running) restart(id);
    if (running) power(id);
    more_instances();
    further_offers();
    billing_.before_terminate();
    terminate(id);
    // Before billing's teardown, which terminates the extras a terminate taking one id left.
    bulk_delete();
    billing_.torn_down();
    billing_.finish(outcome::skipped, "the lifecycle ended before billing was judged");
    emit(judge_no_illegal_transition(rec_.reads));
  }

  // What the running instance is checked for: its address, its order, its agreement between get
  // and list, and (with --remote-exec or a fixture) its hardware.
  void on_running(const std::string& id) {
    const auto& running = *rec_.running.seen;
    billing_.running(id, rec_.launch.order, launched_at_);
    emit(judge_running_has_address(rec_.running));
    // A few more reads, a poll interval apart, for the transition watch: a status that goes back
    // now and then (every third read) is seen by reads, not by the one that found it running.
    for (int i = 0; i < settle_reads; ++i) {
      sleep();
      (void)observe(id);
    }
    rec_.compared.push_back({.got = running,
                             .ordered = rec_.launch.order,
                             .name = ctx_.prefix() + "lc",
                             .compare_region = !rec_.launch.order.region.empty(),
                             .evidence = rec_.running.last});
    emit(judge_underlying_provider(rec_.compared.front(), ctx_.spec));
    consistent(id);
    if (ctx_.opts.remote && ctx_.hardware) *ctx_.hardware = run_remote_smoke(ctx_, running);
    else if (ctx_.opts.hardware_fixture.is_object() && ctx_.hardware)
      *ctx_.hardware = fixture_hardware(running, ctx_.opts.hardware_fixture);
    record_address_owner(ctx_, running);
  }

  // visible_in_get and visible_in_list, a few reads each for eventual consistency.
  void visible(const std::string& id) {
    visibility_record v{.id = id, .has_get = ctx_.spec.operation(operation_id::get) != nullptr};
    if (!unmet(get_id)) {
      const auto read = poll({.max_looks = 5}, [&](poll_look&) -> std::optional<bool> {
        v.get = client_.get(id);
        return v.get.value && v.get.value->id == id ? std::optional(true) : std::nullopt;
      });
      if (!read.decided) sleep();  // as the five reads always did: a poll interval after each
      emit(judge_visible_in_get(v));
    }
    const auto listed = poll({.max_looks = 5}, [&](poll_look&) -> std::optional<bool> {
      v.list = client_.list();
      v.listed = v.list.value && std::any_of(v.list.value->begin(), v.list.value->end(), [&](auto& i) { return i.id == id; });
      return v.listed ? std::optional(true) : std::nullopt;
    });
    if (!listed.decided) sleep();
    emit(judge_visible_in_list(v));
    rec_.visible = std::move(v);
  }

  // schema.instance.consistent_across_endpoints: get and list read the same instance.
  void consistent(const std::string& id) {
    if (unmet(consistent_id)) return;
    consistency_record c{.get = client_.get(id), .list = client_.list(), .entry = {}};
    if (c.list.value)
      for (const auto& i : *c.list.value)
        if (i.id == id) c.entry = i;
    emit(judge_consistent(c));
  }

  // isolation.instance.*: the second account must not see or touch the first account's instance.
  void isolation(const std::string& id) {
    for (const char* i : {iso_get_id, iso_leak_id, iso_list_id, iso_restart_id, iso_terminate_id}) (void)unmet(i);
    if (ctx_.second == nullptr) return;
    auto& other = *ctx_.second;
    isolation_record i{.has_get = ctx_.spec.operation(operation_id::get) != nullptr,
                       .has_restart = ctx_.spec.operation(operation_id::restart) != nullptr};
    if (i.has_get) {
      i.theirs = other.call(operation_id::get, {{"id", id}});
      // A missing id of the same shape: a malformed one may be refused for its form alone.
      i.missing = deliberately(other.call(operation_id::get, {{"id", absent_like(id)}}), "an instance id that names nothing");
    }
    i.listed = other.list();
    i.listed_visible = i.listed.value && std::any_of(i.listed.value->begin(), i.listed.value->end(), [&](auto& x) { return x.id == id; });
    if (i.has_restart) {
      i.restart = other.restart(id);
      if (i.restart.success) rec_.restarting = lifecycle_record::restart_phase::other, ++rec_.restarts_asked;
    }
    i.terminate = other.terminate(id);
    std::tie(i.after, i.after_evidence) = observe(id);
    emit(judge_isolation(i, ctx_.spec));
    rec_.isolation = std::move(i);
  }

  // lifecycle.instance.restart_returns_to_running
  void restart(const std::string& id) {
    if (unmet(restart_id)) return;
    if (rec_.isolation && terminated_by_other(*rec_.isolation))
      return emit(make(restart_id, outcome::skipped, "the instance was terminated by another account"));
    restart_record r{.request = client_.restart(id), .action = {}, .wait = {}};
    if (r.request.success) {
      rec_.restarting = lifecycle_record::restart_phase::own;
      ++rec_.restarts_asked;
      const auto since = ctx_.now();
      // An accepted action must complete before the instance's state means anything.
      r.action = await_action(operation_id::restart, r.request, since, ctx_.spec.timing.time_to_running_s);
      if (judge_action(r.action, ctx_.spec, operation_id::restart, "").result == outcome::pass) {
        // Where the action says the restart is over, a stopped read is where it ended (issue 36).
        r.wait = wait_running(id, since, r.action.how == action_record::end::none ? undocumented_looks_allowed : 1);
        r.after_s = ctx_.seconds_since(since);
      }
      rec_.restarting = lifecycle_record::restart_phase::none;
    }
    emit(judge_restart(r, rec_.reads, ctx_.spec));
  }

  // lifecycle.instance.stop_reaches_stopped, then start_returns_to_running: a stop followed to the
  // spec's stopped state, then a start followed back to running, each judged by the instance's
  // state, whatever the answer and the action record say.
  void power(const std::string& id) {
    if (unmet(stop_id)) return (void)unmet(start_id);
    if (rec_.isolation && terminated_by_other(*rec_.isolation)) {
      emit(make(stop_id, outcome::skipped, "the instance was terminated by another account"));
      if (!unmet(start_id)) emit(make(start_id, outcome::skipped, "the instance was terminated by another account"));
      return;
    }
    power_record p;
    rec_.restarting = lifecycle_record::restart_phase::own;  // reads during the actions are not transitions
    ++rec_.restarts_asked;                                   // nor a list that lags them
    p.stop = client_.stop(id);
    if (p.stop.success) {
      const auto since = ctx_.now();
      p.stop_action = await_action(operation_id::stop, p.stop, since, ctx_.spec.timing.time_to_gone_s);
      if (judge_action(p.stop_action, ctx_.spec, operation_id::stop, "").result == outcome::pass) p.stopped = wait_stopped(id, since);
    }
    emit(judge_stop(p, ctx_.spec));
    if (!unmet(start_id)) {
      if (stopped(p)) start(id, p);
      emit(judge_start(p, ctx_.spec));
    }
    rec_.restarting = lifecycle_record::restart_phase::none;
  }

  // The start of the stopped instance, followed to running (a stopped read after its action said
  // done is where it ended, as after a restart).
  void start(const std::string& id, power_record& p) {
    p.start = client_.start(id);
    if (!p.start.success) return;
    const auto since = ctx_.now();
    p.start_action = await_action(operation_id::start, p.start, since, ctx_.spec.timing.time_to_running_s);
    if (judge_action(p.start_action, ctx_.spec, operation_id::start, "").result == outcome::pass)
      p.running = wait_running(id, since, p.start_action.how == action_record::end::none ? undocumented_looks_allowed : 1);
  }

  // Polls until the instance reads the spec's stopped state, within the spec's time to gone from
  // `since` (looking at least once), or an undocumented word persists.
  state_wait wait_stopped(const std::string& id, time_point since) {
    state_wait w{.within_s = ctx_.spec.timing.time_to_gone_s * ctx_.scale()};
    const auto r =
        poll({.deadline = since + ctx_.scaled(ctx_.spec.timing.time_to_gone_s), .undocumented_looks = undocumented_looks_allowed},
             [&](poll_look& l) -> std::optional<state_wait::end> {
               std::tie(w.seen, w.last) = observe(id);
               if (!w.seen) return std::nullopt;
               w.last_status = w.seen->provider_status;
               const auto read = read_toward(instance_state::stopped, w.seen->state);  // clients/effect.hpp
               if (read == toward::reached) return state_wait::end::reached;
               if (read == toward::ended) return state_wait::end::ended;
               l.undocumented_if(read == toward::undocumented);
               return std::nullopt;
             });
    w.how = r.decided.value_or(r.end == poll_end::undocumented ? state_wait::end::undocumented : state_wait::end::deadline);
    w.count = r.undocumented;
    w.after_s = ctx_.seconds_since(since);
    return w;
  }

  // Whether terminate binds its id into a one-element array (so one request can name several).
  [[nodiscard]] bool terminate_binds_array() const {
    const auto* op = ctx_.spec.operation(operation_id::terminate);
    bool binds_array = false;
    if (op->body)
      for (const auto& [name, ptr] : template_pointers(*op->body))
        if (name == "id") {
          const auto* node = find_pointer(*op->body, ptr.substr(0, ptr.rfind('/')));
          binds_array = node != nullptr && node->is_array() && node->size() == 1;
        }
    return binds_array;
  }

  // Two more instances: pagination over three, then terminate_many on the two.
  void more_instances() {
    many_record m{.binds_array = terminate_binds_array()};
    for (int i = 0; i < 2 && !m.not_sent; ++i) {
      auto target = launchable_offer(ctx_);
      if (!target) break;
      auto l = launch_row(*target, ctx_.prefix() + "extra" + std::to_string(i));
      if (l.value) m.extra.push_back(*l.value);
      if (l.call.not_sent) m.not_sent = l.call.describe();
    }
    pagination(m.extra.size() + 1, ctx_.now());
    tag_filter();
    if (m.binds_array && m.extra.size() >= 2) {
      m.terminate = client_.call(operation_id::terminate, {{"id", nlohmann::json(m.extra)}});
      if (m.terminate.success) {
        m.waited = true;
        const auto g = await_terminated(m.extra, ctx_.now());
        m.alive = g.alive.size();
        m.end = g.end;
        m.undocumented = g.undocumented;
        m.word = g.word;
        m.last = g.last;
      }
    }
    if (!m.terminate.success) extras_alive_ = m.extra;  // the bulk delete may act on them
    emit(judge_terminate_many(m));
  }

  // Reads the instances of one terminate until none is left, the time to gone passes from `since`,
  // or every one left reads an undocumented word too often in a row.
  gone_wait await_terminated(std::vector<std::string> alive, time_point since) {
    gone_wait g;
    const auto r =
        poll({.deadline = since + ctx_.scaled(ctx_.spec.timing.time_to_gone_s), .undocumented_looks = undocumented_looks_allowed},
             [&](poll_look& l) -> std::optional<bool> {
               std::vector<std::string> still;
               bool all_undocumented = true;
               for (const auto& x : alive) {
                 auto [seen, ev] = observe(x);
                 g.last = ev;
                 if (!deleted(seen)) {
                   still.push_back(x);
                   if (seen->state == instance_state::unknown) g.word = seen->provider_status;
                   else
                     all_undocumented = false;
                 }
               }
               alive = std::move(still);
               if (alive.empty()) return true;
               l.undocumented_if(all_undocumented);
               return std::nullopt;
             });
    g.alive = std::move(alive);
    g.end = r.end;
    g.undocumented = r.undocumented;
    g.after_s = ctx_.seconds_since(since);
    return g;
  }

  // lifecycle.instance.bulk_delete_exact_set: the run's instances still there (the extras no
  // terminate named, two in all, launched where fewer are) and one tagged otherwise; one terminate
  // of every instance carrying the run's tag; then every tagged one gone, the other left alone.
  void bulk_delete() {
    if (unmet(bulk_id)) return;
    bulk_record b{.tag = run_tag(ctx_.session.run_id()), .tagged = extras_alive_};
    b.control_tag = b.tag + "-other";
    for (int i = 0; b.tagged.size() < 2 && !b.not_sent && i < 2; ++i)
      if (auto l = launch_tagged("bulk" + std::to_string(i), b.tag, b.not_sent)) b.tagged.push_back(*l);
    if (b.tagged.size() >= 2) {
      std::optional<std::string> refused;
      if (auto l = launch_tagged("other", b.control_tag, refused)) b.control_id = *l;
      else
        b.no_control = refused ? "the launch was " + *refused : "the instance tagged otherwise could not be launched";
      b.request = client_.terminate_tagged(b.tag);
      if (b.request.success) {
        b.gone = await_terminated(b.tagged, ctx_.now());
        if (!b.control_id.empty()) std::tie(b.control_after, b.control_evidence) = observe(b.control_id);
      }
    }
    emit(judge_bulk_delete(b));
    if (!b.control_id.empty()) (void)client_.terminate(b.control_id);  // the teardown confirms it
  }

  // Launches the cheapest launchable row as <prefix><role>, tagged `tag`; its id, or nullopt (with
  // why in `not_sent` when the budget refused it).
  std::optional<std::string> launch_tagged(const std::string& role, const std::string& tag, std::optional<std::string>& not_sent) {
    auto target = launchable_offer(ctx_);
    if (!target) return std::nullopt;
    target->params["run_tag"] = tag;
    auto l = launch_row(*target, ctx_.prefix() + role);
    if (l.call.not_sent) not_sent = l.call.describe();
    return l.value;
  }

  // pagination.list.*: walk the list one item per page. A list may lag single reads (no
  // provider document promises read-after-write on it: Prime Intellect's GET /pods/ was seen 3 s
  // behind GET /pods/{id}), so a walk that finds fewer instances than the run launched is walked
  // again, a poll interval apart, within the spec's time to running from the launches
  // (`launched`); not where the list never showed the lifecycle's instance, which is
  // visible_in_list's finding and waiting would not change.
  void pagination(std::size_t expected, time_point launched) {
    const auto* op = ctx_.spec.operation(operation_id::list);
    walk_record w{.paginated = op->pagination && !op->pagination->size_param.empty(), .expected = expected};
    if (w.paginated) {
      std::size_t first_page = 0;
      const bool listed = rec_.visible && rec_.visible->listed;
      const auto deadline = listed ? launched + ctx_.scaled(ctx_.spec.timing.time_to_running_s) : ctx_.now();
      (void)poll({.deadline = deadline}, [&](poll_look&) -> std::optional<bool> {
        w.sizes.clear();
        first_page = ctx_.seen.size();
        w.paged = client_.walk(operation_id::list, 1, &w.sizes);
        ++w.walks;
        if (!w.paged.value) return false;
        std::multiset<std::string> ids;
        for (const auto& item : *w.paged.value) ids.insert(client_.to_instance(item, operation_id::list).id);
        w.found = ids.size();
        w.distinct = std::set<std::string>(ids.begin(), ids.end()).size();
        return w.distinct < expected && w.distinct == w.found ? std::nullopt : std::optional<bool>(true);
      });
      w.after_s = ctx_.seconds_since(launched);
      w.pages = pages_since(*op, first_page);  // a failed walk's too: a repeated page is its evidence
    }
    emit(judge_pagination(w, ctx_.spec));
  }

  // The list's successful answers from ctx.seen[from] on, with the ids each lists.
  std::vector<page_read> pages_since(const operation_spec& op, std::size_t from) const {
    std::vector<page_read> pages;
    for (auto i = from; i < ctx_.seen.size(); ++i) {
      const auto& o = ctx_.seen[i];
      if (o.op != operation_id::list || !o.result.success || !o.result.json) continue;
      page_read p{.result = o.result, .ids = {}};
      for (const auto& item : client_.collection(*o.result.json, op)) p.ids.push_back(client_.to_instance(item, operation_id::list).id);
      pages.push_back(std::move(p));
    }
    return pages;
  }

  // The list filtered by `tag`, with the ids it shows.
  std::pair<call_result, std::set<std::string>> filtered(const std::string& base, const std::string& tag) {
    const auto& op = *ctx_.spec.operation(operation_id::list);
    auto r = client_.raw("GET", base + (base.find('?') == std::string::npos ? "?" : "&") + op.tag_filter->param + "=" + tag, {}, {},
                         auth_mode::key, operation_id::list);
    std::set<std::string> ids;
    if (r.success && r.json)
      for (const auto& item : client_.collection(*r.json, op)) ids.insert(client_.to_instance(item, operation_id::list).id);
    return {std::move(r), std::move(ids)};
  }

  // lifecycle.instance.filter_selects_exactly: the list filtered by the run's tag lists exactly
  // the run's instances of the unfiltered list, and filtered by a tag no instance carries, none.
  void tag_filter() {
    const auto& op = *ctx_.spec.operation(operation_id::list);
    filter_record f{.declared = op.tag_filter.has_value()};
    if (!f.declared) return emit(judge_filter(f));
    f.param = op.tag_filter->param;
    f.source = op.tag_filter->source;
    // The list's own query, which a filter that stands alone replaces (DigitalOcean's type=gpus).
    const auto path = ctx_.path_of(op);
    const auto q = path.find('?');
    const bool alone = op.tag_filter->alone;
    f.replaced = alone && q != std::string::npos ? path.substr(q + 1) : std::string();
    const auto base = alone ? path.substr(0, q) : path;
    f.all = client_.list();
    if (f.all.value) {
      for (const auto& i : *f.all.value)
        if (i.name.starts_with(ctx_.prefix())) f.ours.insert(i.id);
      f.tag = run_tag(ctx_.session.run_id());
      std::tie(f.tagged, f.selected) = filtered(base, f.tag);
    }
    if (auto decided = judge_filter_tagged(f)) return emit(std::move(*decided));
    f.none_read = true;
    std::tie(f.untagged, f.untagged_ids) = filtered(base, f.tag + "-untagged");
    emit(judge_filter(f));
  }

  // The rows to try after the lifecycle's: the cheapest of another type first when there is
  // one, then further advertised rows, up to further_rows in all.
  static constexpr std::size_t further_rows = 3;
  std::vector<offer> further_plan(const std::vector<offer>& offers) {
    std::vector<offer> plan;
    std::vector<std::string> tried;
    for (const auto& r : rec_.rows) tried.push_back(r.key);
    const auto all = select_offer(ctx_.spec, offers, client_.pins);
    rec_.advertised = all.rows - all.not_gpu - all.unavailable - all.misfit - all.unpinned - all.unpriced;
    std::vector<offer> others;
    std::copy_if(offers.begin(), offers.end(), std::back_inserter(others),
                 [&](const offer& o) { return o.instance_type != rec_.launch.order.instance_type; });
    if (auto other = select_offer(ctx_.spec, others, client_.pins, tried).chosen) {
      tried.push_back(other->key());
      plan.push_back(std::move(*other));
    } else {
      rec_.further.one_type = "no other instance type is advertised as launchable";
    }
    while (plan.size() < further_rows) {
      auto next = select_offer(ctx_.spec, offers, client_.pins, tried).chosen;
      if (!next) break;
      tried.push_back(next->key());
      plan.push_back(std::move(*next));
    }
    if (plan.size() < further_rows) rec_.further.no_more = "no other row is advertised as launchable";
    return plan;
  }

  // More than one offer (issue 21): the cheapest row of another instance type, whose instance is
  // read until it runs and compared with its order, then further advertised rows, each launched
  // and terminated at once, up to further_rows in all and, live, as far as the budget allows
  // (after the lifecycle's own instances). What is launched is tracked and torn down as the
  // lifecycle's instance is.
  void further_offers() {
    auto& fr = rec_.further;
    std::vector<offer> plan;
    auto offers = client_.list_offers();
    if (!offers.value) {
      fr.no_more = "the offers could not be listed again: " + (offers.problem.empty() ? offers.call.describe() : offers.problem);
      fr.one_type = fr.no_more;
    } else {
      plan = further_plan(*offers.value);
    }
    std::optional<std::size_t> second;  // the row of the second order, once launched
    for (std::size_t i = 0; i < plan.size(); ++i)
      if (!try_further_row(plan[i], i, second)) break;
    judge_rows(fr.no_more);
    fr.orders = rec_.launch.order.key() + (fr.second_compared ? " and " + plan[*second].key() : "");
    judge_delivered(fr.orders, fr.second_compared ? "" : fr.one_type.empty() ? fr.no_more : fr.one_type);
  }

  // Launches one further row (the second order when it is the first of another type); false when
  // no further row should be tried.
  bool try_further_row(const offer& row, std::size_t i, std::optional<std::size_t>& second) {
    auto& fr = rec_.further;
    // Whether the spec reads which rows have capacity; where it reads none (RunPod's GraphQL
    // gpuTypes as the spec queries them, Vast.ai's bundles), a capacity refusal of a further row
    // contradicts nothing the catalogue said, and is recorded but not judged.
    const bool advertises = ctx_.spec.offer_fields.contains("available") || ctx_.spec.offer_fields.contains("regions_available") ||
                            ctx_.spec.offer_availability.has_value();
    const bool is_second = !second && row.instance_type != rec_.launch.order.instance_type;
    if (auto no = client_.ledger().would_refuse(row.instance_type)) {
      fr.no_more = "the budget allows no further instance: " + *no;
      if (!second && fr.one_type.empty()) fr.one_type = "the budget allows no second instance: " + *no;
      return false;
    }
    const auto name = ctx_.prefix() + (is_second ? std::string("order") : "row" + std::to_string(i));
    const auto since = ctx_.now();
    auto l = launch_row(row, name);
    if (!l.call.success) {
      const auto condition = provider_condition(l.call, ctx_.spec);
      if (l.call.not_sent || !l.call.response || (condition && condition != outcome::no_capacity)) {
        // Not the provider's failure to deliver what it advertised: a budget, a quota, a rate
        // limit or the network. The row is not counted, and no further one is tried.
        fr.no_more = "the launch of " + row.key() + " was " + l.call.describe() + ", so no further row was tried";
        if (!second && fr.one_type.empty()) fr.one_type = "the launch of another type was " + l.call.describe();
        return false;
      }
      rec_.rows.push_back(refused_row(row, l.call, advertises));
      if (is_second) fr.one_type = "the launch of the other type " + row.key() + " did not succeed (see " + std::string(capacity_id) + ")";
      return true;
    }
    rec_.rows.push_back({.key = row.key(), .launched = true, .evidence = l.call.evidence});
    if (is_second) second = i;
    if (!l.value) {  // no id to act on: swept by name at the end of the run
      if (is_second) fr.one_type = "the launch of the other type named no instance";
      return true;
    }
    if (is_second && !rec_.compared.empty()) fr.second_compared = compare_second_order(*l.value, row, name, since);
    (void)client_.terminate(*l.value);
    return true;
  }

  // The second order: read until it runs (or as last read), compared as the first was; false
  // (with why in one_type) when it could not be read.
  bool compare_second_order(const std::string& id, const offer& row, const std::string& name, time_point since) {
    const auto* launch_op = ctx_.spec.operation(operation_id::launch);
    const bool names_region = launch_op->body && template_pointers(*launch_op->body).contains("region");
    auto w = wait_running(id, since);
    std::optional<instance> seen = w.how == running_wait::end::running ? w.seen : std::nullopt;
    exchange last = w.last;
    if (!seen) std::tie(seen, last) = observe(id);
    if (!seen) {
      rec_.further.one_type = "the instance of the other type (" + row.key() + ") could not be read";
      return false;
    }
    rec_.compared.push_back({.got = *seen,
                             .ordered = row,
                             .name = name,
                             .compare_region = names_region && !row.region.empty(),
                             .evidence = last,
                             .second = true});
    return true;
  }

  void terminate(const std::string& id) {
    auto& t = rec_.terminate;
    t.by_other = rec_.isolation && terminated_by_other(*rec_.isolation);
    t.has_get = ctx_.spec.operation(operation_id::get) != nullptr;
    // A terminate the provider refuses before the instance's minimum runtime, as the spec
    // declares (Spheron's 20 minutes), is waited out and sent again.
    t.patient = terminate_after_minimum_runtime(client_, id, ctx_.clock);
    const auto terminated_at = ctx_.now();
    emit(judge_terminate_accepted(t, ctx_.spec));
    if (!terminate_accepted(t)) {
      for (const char* dependent : {terminate_schema_id, gone_id, idempotent_id})
        emit(make(dependent, outcome::skipped, "terminate was not accepted"));
      return;
    }
    billing_.terminating(terminated_at);
    emit(judge_response_schema(terminate_schema_id, ctx_.spec, operation_id::terminate, t.patient.result));
    t.again = client_.terminate(id);
    emit(judge_terminate_idempotent(t));
    // A terminate answered with an operation (Crusoe) is done when the operation is.
    if (t.patient.result.success)
      t.action = await_action(operation_id::terminate, t.patient.result, terminated_at, ctx_.spec.timing.time_to_gone_s);
    if (judge_action(t.action, ctx_.spec, operation_id::terminate, "").result == outcome::pass) await_gone(id, terminated_at);
    emit(judge_gone(t, ctx_.spec, ctx_.scale()));
  }

  // gone_after_terminate: terminated or 404 in get, not running in list, never running again,
  // within the spec's time to gone. Get running again decides at once; a list that still shows
  // the instance running is read again until the deadline, since a list may lag single reads (a
  // list 3 s behind and a permanent ghost read the same once). Waited out, the instance is left to
  // the teardown, which knows when the terminate was accepted (the client's
  // terminate_accepted_at) and does not wait the time to gone again.
  void await_gone(const std::string& id, time_point terminated_at) {
    auto& t = rec_.terminate;
    const auto r =
        poll({.deadline = terminated_at + ctx_.scaled(ctx_.spec.timing.time_to_gone_s), .undocumented_looks = undocumented_looks_allowed},
             [&](poll_look& l) -> std::optional<bool> {
               gone_read g{.get = t.has_get ? client_.get(id) : typed_result<instance>{}, .list = client_.list(), .entry = {}};
               if (g.list.value)
                 for (const auto& i : *g.list.value)
                   if (i.id == id) g.entry = i;
               const auto s = read_after_terminate(g, ctx_.spec, t.has_get);
               t.last = std::move(g);
               if (s.running_again || s.gone) return true;
               l.undocumented_if(s.unreadable);
               return std::nullopt;
             });
    t.end = r.end;
    t.undocumented = r.undocumented;
    t.after_s = ctx_.seconds_since(terminated_at);
  }

  context& ctx_;
  provider_client& client_;
  lifecycle_record& rec_;          // what the run saw, for the judges (the context's)
  std::set<std::string> decided_;  // the checks emitted, so that each is decided once
  time_point launched_at_;
  std::vector<std::string> extras_alive_;  // the extras no terminate named (for the bulk delete)
  billing_watch billing_{ctx_};            // billing read before, during and after (issue 22)
};

}  // namespace

void run_lifecycle(context& ctx) { driver(ctx).run(); }

}  // namespace neograde::conformance::detail
