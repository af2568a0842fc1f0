#include "billing.hpp"

#include <neograde/core/clock.hpp>
#include <neograde/core/measurements.hpp>
#include <neograde/core/template.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace neograde::conformance::detail {

namespace {

constexpr const char* stops_id = "billing.instance.stops_after_terminate";
constexpr const char* duration_id = "billing.instance.duration_consistent";
constexpr const char* deposit_id = "billing.deposit.released_after_teardown";
constexpr const char* ids[] = {stops_id, duration_id, deposit_id};
// Longest wait after teardown for an amount to show a charge, in provider seconds.
constexpr double longest_wait_s = 900;

std::string usd(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

}  // namespace

billing_watch::billing_watch(context& ctx) : ctx_(ctx), spec_(billing_read_of(ctx.spec)) {}

void billing_watch::emit(check_outcome o) {
  if (!decided_.insert(o.check_id).second) return;
  ctx_.emit(std::move(o));
}

// The skip of `id` where the run does not meet the needs its catalogue row declares (a billing
// read, delays, an amount and an increment, a deposit and a balance, spending), emitted; true when
// so. The runner decided them once (needs.hpp), as preflight predicts them.
bool billing_watch::unmet(const char* id) {
  auto o = ctx_.unmet(id);
  if (o) emit(std::move(*o));
  return o.has_value();
}

billing_watch::reading billing_watch::read(const std::string& phase) {
  template_vars vars;
  for (const auto& [k, v] : ctx_.spec.variables) vars[k] = v;
  vars["id"] = id_;
  const auto body = spec_->body ? spec_->body->dump() : std::string();
  auto r = ctx_.client.raw(spec_->method, render_path(spec_->path, vars), body, body.empty() ? "" : "application/json");
  reading out{.phase = phase, .at = ctx_.now(), .at_utc = utc_now_iso8601(), .figures = {}, .evidence = r.evidence, .problem = {}};
  if (!r.success || !r.json) {
    out.problem = r.success ? "the answer is not JSON" : r.describe();
  } else {
    out.figures = read_billing(*spec_, *r.json);
    if (spec_->amount && !out.figures.amount) out.problem = "no amount at " + spec_->amount->pointer;
    else if (spec_->spend_rate && !out.figures.spend_rate)
      out.problem = "no spend rate at " + *spec_->spend_rate;
  }
  readings_.push_back(out);
  return out;
}

double billing_watch::provider_seconds(time_point from, time_point to) const {
  return std::chrono::duration<double>(to - from).count() / (ctx_.scale() > 0 ? ctx_.scale() : 1.0);
}

// Twice the step the amount is written in: two roundings separate any two readings.
double billing_watch::tolerance() const { return 1e-6 + (spec_->amount ? 2 * spec_->amount->resolution : 0.0); }

double billing_watch::charged_between(const reading& from, const reading& to) const {
  const double a = from.figures.amount.value_or(0), b = to.figures.amount.value_or(0);
  const auto moves = spec_->per_instance ? billing_moves::up : spec_->amount->moves;
  double charged = moves == billing_moves::down ? a - b : moves == billing_moves::up ? b - a : std::abs(b - a);
  // Whatever else the account ran before the launch goes on being billed meanwhile.
  if (!spec_->per_instance && before_ && before_->figures.spend_rate)
    charged -= *before_->figures.spend_rate * provider_seconds(from.at, to.at) / 3600;
  return charged;
}

void billing_watch::before_launch() {
  if (spec_ && !spec_->per_instance) before_ = read("before_launch");
}

void billing_watch::not_running(time_point read_from) {
  if (!at_running_) not_running_ = read_from;
}

void billing_watch::running(const std::string& id, const offer& order, time_point launch_requested) {
  id_ = id;
  price_ = order.price_per_hour_usd;
  requested_ = launch_requested;
  if (!spec_) return;
  at_running_ = read("running");
  duration_at(*at_running_, "once running");
}

std::optional<std::string> billing_watch::funds_were_available(const offer& order) const {
  if (!spec_ || !spec_->reads_balance() || !order.price_per_hour_usd) return std::nullopt;
  if (!before_ || !before_->problem.empty() || !before_->figures.amount) return std::nullopt;
  const double needed = deposit_usd(*spec_, *order.price_per_hour_usd) + billed_usd(*spec_, *order.price_per_hour_usd, 3600);
  if (*before_->figures.amount + tolerance() < needed) return std::nullopt;
  return "the balance read before the launch was " + usd(*before_->figures.amount) + " USD, enough for the deposit and an hour of " +
         order.key() + " (" + usd(needed) + " USD)";
}

void billing_watch::before_terminate() {
  if (!ctx_.unmet(deposit_id) && price_) before_terminate_ = read("before_terminate");
}

void billing_watch::terminating(time_point sent) { terminate_sent_ = sent; }

// billing.deposit.released_after_teardown: across the teardown the balance rises by the deposit
// the instance held, less what the run's instances can have been charged meanwhile (each at the
// highest price listed, over the time between the readings and one increment more).
void billing_watch::deposit_returned(const reading& after) {
  if (decided_.contains(deposit_id)) return;
  if (unmet(deposit_id)) return;
  if (!price_) return emit(not_applicable(deposit_id, "the offer launched lists no hourly price"));
  if (!before_terminate_ || !before_terminate_->problem.empty())
    return emit(
        make(deposit_id, outcome::errored,
             "the billing read before the terminate failed: " + (before_terminate_ ? before_terminate_->problem : std::string("not made")),
             before_terminate_ ? std::vector<exchange>{before_terminate_->evidence} : std::vector<exchange>{}));
  if (!after.problem.empty())
    return emit(make(deposit_id, outcome::errored, "the billing read after teardown failed: " + after.problem, {after.evidence}));
  const double held = deposit_usd(*spec_, *price_);
  const double rose = 0.0 - charged_between(*before_terminate_, after);  // 0.0 - x: never "-0" in the text
  // What the account was billed per hour just before the terminate (where the read says), else
  // every instance of the run at the highest price listed.
  const double seconds = provider_seconds(before_terminate_->at, after.at) + spec_->increment_s.value_or(0);
  const auto launched = std::max(1, ctx_.client.ledger().launched());
  const double rate = before_terminate_->figures.spend_rate.value_or(launched * ctx_.client.ledger().highest_price().value_or(*price_));
  const double charges = rate * seconds / 3600;
  const std::string basis = "the " + usd(held) + " USD deposit the instance held, less at most " + usd(charges) + " USD charged at " +
                            usd(rate) + " USD/h over " + usd(seconds) + " s";
  std::vector<exchange> ev{before_terminate_->evidence, after.evidence};
  if (rose + charges + tolerance() >= held)
    return emit(make(deposit_id, outcome::pass, "the balance rose by " + usd(rose) + " USD across the teardown: " + basis, ev));
  emit(make(deposit_id, outcome::fail,
            "the balance rose by " + usd(rose) + " USD across the teardown (from " + usd(*before_terminate_->figures.amount) + " to " +
                usd(*after.figures.amount) + "), short of " + basis + ": the deposit was not returned",
            ev));
}

// Whether the reading's figures were generated (as_of) before the terminate was sent, by the API's
// own clock: the answer's Date less the time since the terminate on the run's clock (so that a
// replay judges as the run did); how long before, if so.
std::optional<std::string> billing_watch::generated_before_terminate(const reading& r) const {
  if (!spec_->as_of || !r.figures.as_of || !terminate_sent_) return std::nullopt;
  std::string date;
  for (const auto& [k, v] : r.evidence.response_headers)
    if (k.size() == 4 && (k == "Date" || k == "date")) date = v;
  const auto as_of = seconds_until_utc(*r.figures.as_of, "%Y-%m-%dT%H:%M:%SZ");
  const auto answered = seconds_until_utc(date, "%a, %d %b %Y %H:%M:%S GMT");
  if (!as_of || !answered) return std::nullopt;
  const double since_terminate = std::chrono::duration<double>(r.at - *terminate_sent_).count();
  const double before = static_cast<double>(*answered - *as_of) - since_terminate;
  if (before <= 1) return std::nullopt;  // Date and as_of are whole seconds
  return usd(before) + " s";
}

// What the reading `r` says was charged for the instance, against what its price allows for the
// time since billing can have started (the declared start, or the launch request where the spec
// declares none), each started increment whole.
void billing_watch::duration_at(const reading& r, const std::string& when) {
  if (decided_.contains(duration_id)) return;
  if (unmet(duration_id)) return;
  if (!r.problem.empty())
    return emit(make(duration_id, outcome::errored, "the billing read " + when + " failed: " + r.problem, {r.evidence}));
  if (!price_) return emit(not_applicable(duration_id, "the offer launched lists no hourly price"));
  if (!spec_->per_instance && (!before_ || !before_->problem.empty()))
    return emit(make(duration_id, outcome::errored,
                     "the billing read before the launch failed: " + (before_ ? before_->problem : std::string("not made")),
                     before_ ? std::vector<exchange>{before_->evidence} : std::vector<exchange>{}));
  const bool from_running = spec_->billed_from == "running" && not_running_;
  const auto start = from_running ? *not_running_ : *requested_;
  const double billable_s = provider_seconds(start, r.at);
  const double allowed = billed_usd(*spec_, *price_, billable_s);
  // A balance also lacks the deposit the running instance holds (billing.deposit): not a charge.
  const double held = spec_->reads_balance() ? deposit_usd(*spec_, *price_) : 0.0;
  const double billed = spec_->per_instance ? charged_between(reading{}, r) : charged_between(*before_, r) - held;
  std::vector<exchange> ev{r.evidence};
  if (before_ && !spec_->per_instance) ev.insert(ev.begin(), before_->evidence);
  const std::string basis =
      usd(*price_) + " USD/h for " + usd(billable_s) + " s since " +
      (from_running ? "the last read that saw the instance not yet running (billing starts when it runs)" : "the launch request") +
      ", in increments of " + usd(*spec_->increment_s) + " s";
  if (billed > allowed + tolerance()) {
    duration_failed_ = true;
    return emit(make(
        duration_id, outcome::fail,
        "billed " + usd(billed) + " USD for the instance " + when + ", more than the " + usd(allowed) + " USD at most due (" + basis + ")",
        ev));
  }
  // Scope instance: the reading after teardown decides.
  if (spec_->per_instance && when == "once running") return;
  emit(make(duration_id, outcome::pass,
            "billed " + usd(billed) + " USD " + when + ", within the " + usd(allowed) + " USD due (" + basis + ")", ev));
}

// The spend rate back to its level before the launch, or the amount still once the instance is
// gone (over two increments, or as long as a charge takes to show in the amount's resolution).
void billing_watch::stops(const reading& after) {
  if (unmet(stops_id)) return;
  if (!after.problem.empty())
    return emit(make(stops_id, outcome::errored, "the billing read after teardown failed: " + after.problem, {after.evidence}));
  const double tol = tolerance();
  if (spec_->spend_rate && !spec_->per_instance) {
    if (!before_ || !before_->figures.spend_rate)
      return emit(make(stops_id, outcome::errored, "no spend rate was read before the launch to compare with",
                       before_ ? std::vector<exchange>{before_->evidence} : std::vector<exchange>{}));
    const double base = *before_->figures.spend_rate;
    auto last = after;
    const auto since = ctx_.now();
    const auto deadline = since + ctx_.scaled(ctx_.spec.timing.time_to_gone_s);
    while (last.problem.empty() && *last.figures.spend_rate > base + tol && ctx_.now() < deadline) {
      ctx_.sleep(ctx_.poll_interval());
      last = read("after_teardown");
    }
    if (!last.problem.empty())
      return emit(make(stops_id, outcome::errored, "the billing read after teardown failed: " + last.problem, {last.evidence}));
    if (*last.figures.spend_rate <= base + tol)
      return emit(make(stops_id, outcome::pass,
                       "the spend rate is back to " + usd(*last.figures.spend_rate) + " USD/h (" + usd(base) + " before the launch)",
                       {before_->evidence, last.evidence}));
    return emit(make(stops_id, outcome::fail,
                     "still billed at " + usd(*last.figures.spend_rate) + " USD/h " + usd(provider_seconds(since, last.at)) +
                         " s after the instance was gone (" + usd(base) + " USD/h before the launch)",
                     {before_->evidence, last.evidence}));
  }
  // An amount without a spend rate: the catalogue's billing_stop_signal need holds an increment.
  double wait_s = std::max(2 * *spec_->increment_s, 1.0);
  if (price_ && *price_ > 0 && spec_->amount->resolution > 0) wait_s = std::max(wait_s, 3 * spec_->amount->resolution / *price_ * 3600);
  if (wait_s > longest_wait_s)
    return emit(not_applicable(stops_id, "a charge would take " + usd(wait_s) + " s to show in the amount, longer than a run waits (" +
                                             usd(longest_wait_s) + " s)"));
  ctx_.sleep(ctx_.scaled(wait_s));
  const auto later = read("later");
  if (!later.problem.empty())
    return emit(make(stops_id, outcome::errored, "the billing read after teardown failed: " + later.problem, {later.evidence}));
  if (const auto stale = generated_before_terminate(later))
    return emit(make(stops_id, outcome::skipped,
                     "inconclusive: the figures were generated at " + *later.figures.as_of + ", " + *stale + " before the terminate",
                     {later.evidence}));
  const double grown = charged_between(after, later);
  if (grown > tol)
    return emit(make(stops_id, outcome::fail,
                     "charged " + usd(grown) + " USD in the " + usd(provider_seconds(after.at, later.at)) +
                         " s after the instance was gone (the amount went from " + usd(*after.figures.amount) + " to " +
                         usd(*later.figures.amount) + ")",
                     {after.evidence, later.evidence}));
  emit(make(stops_id, outcome::pass,
            "the amount stayed at " + usd(*later.figures.amount) + " over " + usd(provider_seconds(after.at, later.at)) +
                " s after the instance was gone",
            {after.evidence, later.evidence}));
}

// The account's figures cover every instance of the run: the others (further rows, the extras
// that a terminate taking one id leaves to the run's teardown) are billed as long as they live.
// They are terminated and confirmed gone first, as the run's teardown would do them, so that the
// account is billed nothing of the run's when the figures are read.
void billing_watch::others_gone() { (void)terminate_run_instances(ctx_); }

void billing_watch::torn_down() {
  if (!spec_) return;
  if (!terminate_sent_) return finish(outcome::skipped, "terminate was not accepted");
  if (std::all_of(std::begin(ids), std::end(ids), [this](const char* id) { return ctx_.unmet(id).has_value(); }))
    return finish(outcome::skipped, "no billing check applies");
  if (!spec_->per_instance) others_gone();
  const auto after = read("after_teardown");
  deposit_returned(after);
  stops(after);
  if (spec_->per_instance && !decided_.contains(duration_id)) duration_at(readings_.back(), "after teardown");
}

void billing_watch::finish(outcome result, const std::string& reason) {
  for (const char* id : ids) {
    if (!decided_.contains(id) && !unmet(id)) emit(make(id, result, reason));
  }
  if (!spec_ || readings_.empty()) return;
  measurement::billing m{.scope = spec_->per_instance ? "instance" : "account",
                         .price_per_hour_usd = price_,
                         .increment_s = spec_->increment_s,
                         .billed_from = spec_->billed_from,
                         .readings = {}};
  for (const auto& r : readings_)
    m.readings.push_back({.phase = r.phase,
                          .at = r.at_utc,
                          .amount = r.figures.amount,
                          .spend_rate_usd_per_hour = r.figures.spend_rate,
                          .as_of = r.figures.as_of,
                          .problem = r.problem});
  ctx_.measurements[measurement::billing::key] = std::move(m);
  readings_.clear();
}

}  // namespace neograde::conformance::detail
