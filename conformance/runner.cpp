#include <neograde/conformance/audit.hpp>
#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/needs.hpp>
#include <neograde/conformance/runner.hpp>

#include "context.hpp"

#include <neograde/clients/curl.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/core/contract_shape.hpp>
#include <neograde/core/json_util.hpp>

#include <cmath>
#include <set>

namespace neograde::conformance {

namespace {

void register_key(detail::context& ctx) {
  const char* visible_id = "lifecycle.ssh_key.visible_after_add";
  const char* hidden_id = "isolation.ssh_key.list_hidden";
  const char* empty_id = "validation.ssh_key.empty_name_rejected";
  // Without SSH key operations, or without spending (the first needs of all three), no key is made.
  if (!ctx.applies(visible_id)) {
    for (const char* id : {hidden_id, empty_id}) (void)ctx.applies(id);
    return;
  }
  // Keys without names (RunPod's account keys, a set of public keys): nothing to leave empty.
  if (ctx.applies(empty_id)) {
    auto empty = ctx.client.add_ssh_key("", ctx.public_key);
    if (empty.value && !empty.value->id.empty()) (void)ctx.client.delete_ssh_key(empty.value->id);
    ctx.emit(detail::expect_4xx(empty_id, empty.call, "an SSH key with an empty name"));
  }

  auto key = ctx.client.add_ssh_key(ctx.prefix() + "key", ctx.public_key);
  if (!key.value) {
    for (const char* id : {visible_id, hidden_id})
      ctx.emit(
          detail::make(id, outcome::errored, "the run's SSH key could not be registered: " + key.call.describe(), {key.call.evidence}));
    return;
  }
  ctx.ssh_key_name = ctx.prefix() + "key";
  ctx.ssh_key_id = key.value->id;
  auto listed = ctx.client.list_ssh_keys();
  const bool present = listed.value && std::any_of(listed.value->begin(), listed.value->end(),
                                                   [&](const ssh_key& k) { return k.name == ctx.ssh_key_name || k.id == ctx.ssh_key_id; });
  ctx.emit(present ? detail::make(visible_id, outcome::pass, "listed after add", {listed.call.evidence})
                   : detail::make(visible_id, outcome::fail, "the added key is missing from the key list", {listed.call.evidence}));
  if (!ctx.applies(hidden_id)) return;
  auto theirs = ctx.second->list_ssh_keys();
  // By name or, for nameless keys (Vast.ai's), by the id the add answered.
  const bool leaked = theirs.value && std::any_of(theirs.value->begin(), theirs.value->end(),
                                                  [&](const ssh_key& k) { return k.name == ctx.ssh_key_name || k.id == ctx.ssh_key_id; });
  if (!theirs.value) ctx.emit(detail::make(hidden_id, outcome::errored, theirs.call.describe(), {theirs.call.evidence}));
  else
    ctx.emit(leaked ? detail::make(hidden_id, outcome::fail, "the second account sees the first account's SSH key", {theirs.call.evidence})
                    : detail::make(hidden_id, outcome::pass, "not listed for the second account", {theirs.call.evidence}));
}

void delete_key(detail::context& ctx) {
  const char* id = "lifecycle.ssh_key.delete_removes";
  if (ctx.ssh_key_id.empty()) {
    if (auto skip = ctx.unmet(id)) return ctx.emit(std::move(*skip));  // a read-only audit's "not run"
    return ctx.emit(detail::make(id, outcome::skipped, "not applicable: no SSH key was registered"));
  }
  if (!ctx.applies(id)) return;
  auto d = ctx.client.delete_ssh_key(ctx.ssh_key_id);
  auto listed = ctx.client.list_ssh_keys();
  const bool still =
      listed.value && std::any_of(listed.value->begin(), listed.value->end(), [&](const ssh_key& k) { return k.id == ctx.ssh_key_id; });
  if (!d.success) return ctx.emit(detail::make(id, outcome::fail, "deleting the key failed: " + d.describe(), {d.evidence}));
  ctx.emit(still ? detail::make(id, outcome::fail, "the deleted key is still listed", {d.evidence, listed.call.evidence})
                 : detail::make(id, outcome::pass, "gone from the list", {d.evidence, listed.call.evidence}));
  ctx.ssh_key_id.clear();
}

constexpr const char* leftovers_id = "lifecycle.run.nothing_left_behind";

// Terminates everything this run created, whatever happened (the ledger's instances, anything
// listed with the run's name prefix, the run's SSH key), confirms each is gone, and reports what
// is not as the run's own critical finding.
void teardown(detail::context& ctx) noexcept {
  try {
    teardown_scope no_stopping;
    auto& ledger = ctx.client.ledger();
    auto r = detail::terminate_run_instances(ctx);
    if (!ctx.ssh_key_id.empty()) (void)ctx.client.delete_ssh_key(ctx.ssh_key_id);
    if (ledger.launched() == 0 && r.confirmed.empty() && r.leftovers.empty())
      return ctx.emit(ctx.spend.read_only
                          ? detail::make(leftovers_id, outcome::skipped, spend_skip_reason(ctx.spend, "the run created no instance"))
                          : detail::not_applicable(leftovers_id, "the run created no instance"));
    if (r.leftovers.empty())
      return ctx.emit(
          detail::make(leftovers_id, outcome::pass, std::to_string(r.confirmed.size()) + " instance(s) confirmed terminated or gone"));
    std::string what;
    for (const auto& l : r.leftovers) what += (what.empty() ? "" : "; ") + (l.id.empty() ? l.name : l.id) + " (" + l.status + ")";
    ctx.emit(detail::make(leftovers_id, outcome::fail,
                          std::to_string(r.leftovers.size()) + " instance(s) still there after teardown: " + what +
                              ". They may be billed: `neograde sweep --spec " + ctx.spec.provider.id + "` terminates them",
                          r.evidence));
  } catch (...) {
    // Teardown must not throw; the journal keeps what a sweep needs.
  }
}

}  // namespace

run_report run(session& s, const run_options& options) {
  run_report report;
  const auto& spec = s.spec();
  run_clock& clock = s.clock();
  auto& client = s.primary();
  // The catalogue first: the offer row the run would launch, with why, goes into the results
  // header (the session keeps it), and a replay learns what the target was.
  report.measurements["offer_selection"] = s.selection().to_json();
  report.source = s.provenance();
  report.time_scale = s.time_scale();

  detail::context ctx{.spec = spec,
                      .session = s,
                      .opts = options,
                      .client = client,
                      .second = s.second(),
                      .measurements = report.measurements,
                      .errors = error_oracle(spec),
                      .public_key = s.public_key(),
                      .private_key = s.private_key(),
                      .hardware = &report.hardware,
                      .spend = s.spend(),
                      .clock = clock};
  // Spending: the session's rule, and live mode's pre-check before any create (ctx.spend reads it).
  s.pre_check();
  // What applies, decided once from the catalogue's needs: the checks ask before they run.
  const auto conditions = conditions_of(s, options, ctx.spend);
  for (const auto& d : catalogue())
    if (auto unmet = applicability(d, spec, conditions); unmet && unmet->certain) ctx.inapplicable.emplace(d.id, unmet->reason);
  measurement::contract_recorder contract;
  client.observer = [&](operation_id op, const call_result& r) {
    // The scans read the parsed body, the status, the headers and the evidence, and of the raw
    // body only whether there was one: a prefix of it is kept, so that a run does not hold every
    // answer's body whole to its end (issue 36: 4 MiB answers).
    auto kept = r;
    if (kept.response && kept.response->body.size() > body_limits{}.text_bytes) {
      kept.response->body.resize(body_limits{}.text_bytes);
      kept.response->body.shrink_to_fit();
    }
    ctx.seen.push_back({op, std::move(kept)});
    if (r.response) {
      ctx.dx.api_answered = true;
      // The contract met, for drift between runs (issue 40.3): a keyed collection's keys are ids or names, not fields.
      const auto* spec_op = spec.operation(op);
      const auto keyed = spec_op != nullptr && spec_op->items_are_object_values ? spec_op->items : std::nullopt;
      contract.answer(nlohmann::json(op).get<std::string>(), r.status(), r.success && r.json ? &*r.json : nullptr, keyed);
    }
    read_statuses(ctx, op, r);
  };
  // A check's duration is the time since the previous outcome was decided.
  auto last = clock.now();
  std::string last_check = "the start";
  ctx.emit = [&](check_outcome o) {
    last_check = o.check_id;
    const auto now = clock.now();
    o.duration_ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    const auto* d = find_check(o.check_id);
    // A SHOULD-level requirement missed is a warning (Autobahn's NON-STRICT), not a failure.
    if (d != nullptr && d->requirement == requirement_level::should && o.result == outcome::fail) o.result = outcome::warn;
    // A deviation the spec declares (with its source) is reported as such, not graded.
    if (const auto* dev = spec.deviation_for(o.check_id); dev != nullptr && (o.result == outcome::fail || o.result == outcome::warn)) {
      o.reason = "known deviation: " + dev->reason + " (" + dev->source + "); observed: " + o.reason;
      o.result = outcome::skipped;
    }
    if ((o.result == outcome::fail || o.result == outcome::warn) && !o.evidence.empty())
      o.reproduce = curl_command(o.evidence.front(), spec);
    if (options.on_outcome && d != nullptr) options.on_outcome(*d, o);
    report.outcomes.push_back(std::move(o));
  };
  try {
    register_key(ctx);
    detail::run_request_checks(ctx);
    detail::run_lifecycle(ctx);
    delete_key(ctx);
    detail::run_rate_limit_probe(ctx);
    detail::run_observed_checks(ctx);
  } catch (const stop_requested& e) {
    report.stopped = run_stop{.why = run_stop::kind::signal, .message = std::string(e.what()) + " after " + last_check, .signal = e.signal};
  } catch (const std::exception& e) {
    // A bug of ours: the run still decides the rest, tears down and keeps its results.
    report.stopped = run_stop{.why = run_stop::kind::bug, .message = std::string("error after ") + last_check + ": " + e.what()};
  }
  // A stopped run decides the rest at once, before teardown (which a second kill may cut
  // short): what was decided stays, and every check it did not get to is errored (not graded),
  // never a provider failure. The leak check is teardown's own.
  if (report.stopped) {
    std::set<std::string> decided;
    for (const auto& o : report.outcomes) decided.insert(o.check_id);
    const std::string why =
        (report.stopped->why == run_stop::kind::signal ? "interrupted: " : "not decided: the run ended early: ") + report.stopped->message;
    for (const auto& d : catalogue())
      if (d.id != leftovers_id && !decided.contains(d.id)) ctx.emit(detail::make(d.id, outcome::errored, why));
  }
  teardown(ctx);
  report.measurements[measurement::spend::key] =
      measurement::spend{.live = s.live(),
                         .allowed = ctx.spend.allowed,
                         .instances_created = s.ledger().launched(),
                         .estimated_usd = std::round(s.ledger().committed_usd() * 100) / 100,
                         .max_instances = s.live() ? std::optional<int>(s.rules().budget.max_instances) : std::nullopt,
                         .max_spend_usd = s.live() ? std::optional<double>(s.rules().budget.max_spend_usd) : std::nullopt};
  report.measurements["developer_experience"] = ctx.dx.to_json();
  // The audit's figures, from what the run read: the catalogue as listed, and every request sent.
  const auto& selection = s.selection();
  report.measurements["catalogue"] = selection.listed.empty() && selection.explanation.starts_with("the offers could not be listed")
                                         ? catalogue_not_listed(selection.explanation)
                                         : catalogue_figures(selection.listed);
  std::vector<const exchange*> sent;
  for (auto* c : {&client, ctx.second})
    if (c != nullptr)
      for (const auto& e : c->transport().transcript()) sent.push_back(&e);
  report.measurements["api_traffic"] = traffic_figures(sent);
  for (const auto& [word, where] : ctx.status_words)
    if (!word.empty()) contract.status_word(word);
  report.measurements[measurement::contract_shape::key] = contract.shape();
  if (report.stopped) report.measurements["stopped"] = report.stopped->message;
  return report;
}

}  // namespace neograde::conformance
