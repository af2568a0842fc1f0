#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/runner.hpp>

#include "context.hpp"

#include <neograde/clients/curl.hpp>
#include <neograde/clients/run_names.hpp>
#include <neograde/core/json_util.hpp>

#include <neograde/clients/url.hpp>

#include <neograde/clients/ssh.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/clients/stop.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace neograde::conformance {

double billed_seconds(const provider_spec& spec, const run_options& options) {
  const double remote = options.remote ? options.remote->ssh_wait_s + options.remote->smoke_timeout_s : 0;
  return billed_seconds_estimate(spec.timing.time_to_running_s, spec.timing.time_to_gone_s, remote);
}

bool is_loopback_url(const std::string& url) {
  auto u = http::parse_url(url);
  return u && http::is_loopback(*u);
}

std::optional<preflight_failure> preflight(const provider_spec& spec, const run_options& options,
                                           result_source* identified) {
  provider_client client(spec, options.base_url, options.api_key, options.http);
  // A catalogue the provider serves without credentials proves nothing about the key: read the
  // instance list instead (Vast.ai, Cudo).
  const auto* offers = spec.operation(operation_id::list_offers);
  auto r = client.call(offers != nullptr && offers->anonymous ? operation_id::list : operation_id::list_offers);
  if (identified != nullptr) *identified = client.target_source();
  if (r.transport) return preflight_failure{"cannot reach " + options.base_url + ": " + r.transport->message()};
  if (r.status() == 401 || r.status() == 403)
    return preflight_failure{"the API key was rejected by " + options.base_url + " (" + r.describe() +
                             "); set " + spec.auth.env + " or pass --api-key"};
  return std::nullopt;
}

namespace {

// A private directory under $TMPDIR, removed with everything in it.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& prefix) {
    auto base = std::filesystem::temp_directory_path() / (prefix + "XXXXXX");
    std::string tmpl = base.string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a directory in " + base.parent_path().string());
    path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

// The run's SSH key: registered once (when the API has SSH keys and spending is allowed), used by
// every launch, checked for visibility, and deleted at the end.
constexpr const char* run_public_key =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVHtN3Yc0SJ7Wz5k0u2m3Fh3Cj0m2Qk4XH7rW0b9c1e neograde";

void register_key(detail::context& ctx) {
  const char* visible_id = "lifecycle.ssh_key.visible_after_add";
  const char* hidden_id = "isolation.ssh_key.list_hidden";
  const char* empty_id = "validation.ssh_key.empty_name_rejected";
  const bool has_keys = ctx.spec.operation(operation_id::ssh_keys_add) != nullptr &&
                        ctx.spec.operation(operation_id::ssh_keys_list) != nullptr;
  if (!has_keys || !ctx.spend.allowed) {
    const std::string why = !has_keys ? "not applicable: the API has no SSH key operations"
                                      : "registers an SSH key: " + ctx.spend.refusal;
    for (const char* id : {visible_id, hidden_id, empty_id}) ctx.emit(detail::make(id, outcome::skipped, why));
    return;
  }
  auto empty = ctx.client.add_ssh_key("", ctx.public_key);
  if (empty.value && !empty.value->id.empty()) (void)ctx.client.delete_ssh_key(empty.value->id);
  ctx.emit(detail::expect_4xx(empty_id, empty.call, "an SSH key with an empty name"));

  auto key = ctx.client.add_ssh_key(ctx.prefix() + "key", ctx.public_key);
  if (!key.value) {
    for (const char* id : {visible_id, hidden_id})
      ctx.emit(detail::make(id, outcome::errored, "the run's SSH key could not be registered: " + key.call.describe(), {key.call.evidence}));
    return;
  }
  ctx.ssh_key_name = ctx.prefix() + "key";
  ctx.ssh_key_id = key.value->id;
  auto listed = ctx.client.list_ssh_keys();
  const bool present = listed.value && std::any_of(listed.value->begin(), listed.value->end(),
                                                   [&](const ssh_key& k) { return k.name == ctx.ssh_key_name || k.id == ctx.ssh_key_id; });
  ctx.emit(present ? detail::make(visible_id, outcome::pass, "listed after add", {listed.call.evidence})
                   : detail::make(visible_id, outcome::fail, "the added key is missing from the key list", {listed.call.evidence}));
  if (ctx.second == nullptr) return ctx.emit(detail::not_applicable(hidden_id, "needs a second account (--second-api-key)"));
  auto theirs = ctx.second->list_ssh_keys();
  const bool leaked = theirs.value && std::any_of(theirs.value->begin(), theirs.value->end(),
                                                  [&](const ssh_key& k) { return k.name == ctx.ssh_key_name; });
  if (!theirs.value) ctx.emit(detail::make(hidden_id, outcome::errored, theirs.call.describe(), {theirs.call.evidence}));
  else ctx.emit(leaked ? detail::make(hidden_id, outcome::fail, "the second account sees the first account's SSH key", {theirs.call.evidence})
                       : detail::make(hidden_id, outcome::pass, "not listed for the second account", {theirs.call.evidence}));
}

void delete_key(detail::context& ctx) {
  const char* id = "lifecycle.ssh_key.delete_removes";
  if (ctx.ssh_key_id.empty()) return ctx.emit(detail::make(id, outcome::skipped, "not applicable: no SSH key was registered"));
  if (ctx.spec.operation(operation_id::ssh_keys_delete) == nullptr)
    return ctx.emit(detail::not_applicable(id, "the API has no SSH key delete operation"));
  auto d = ctx.client.delete_ssh_key(ctx.ssh_key_id);
  auto listed = ctx.client.list_ssh_keys();
  const bool still = listed.value && std::any_of(listed.value->begin(), listed.value->end(),
                                                 [&](const ssh_key& k) { return k.id == ctx.ssh_key_id; });
  if (!d.success) return ctx.emit(detail::make(id, outcome::fail, "deleting the key failed: " + d.describe(), {d.evidence}));
  ctx.emit(still ? detail::make(id, outcome::fail, "the deleted key is still listed", {d.evidence, listed.call.evidence})
                 : detail::make(id, outcome::pass, "gone from the list", {d.evidence, listed.call.evidence}));
  ctx.ssh_key_id.clear();
}

// Before the first create of a live run: the credentials work, an offer has capacity, its price
// is known and it fits the budget. Returns why not.
std::optional<std::string> pre_check(provider_client& client, const spend_ledger& ledger) {
  auto s = client.choose_offer();
  if (!s.chosen) return s.explanation;
  if (!ledger.estimate_usd(s.chosen->instance_type))
    return "the offer " + s.chosen->key() + " has no price, so its cost cannot be bounded";
  if (auto no = ledger.would_refuse(s.chosen->instance_type)) return *no;
  return std::nullopt;
}

constexpr const char* leftovers_id = "lifecycle.run.nothing_left_behind";

// Terminates everything this run created, whatever happened (the ledger's instances, anything
// listed with the run's name prefix, the run's SSH key), confirms each is gone, and reports what
// is not as the run's own critical finding.
void teardown(detail::context& ctx) noexcept {
  try {
    teardown_scope no_stopping;
    auto& ledger = ctx.client.ledger();
    std::vector<teardown_target> known;
    for (const auto& c : ledger.instances())
      if (!c.deleted) known.push_back({c.id, c.name});
    teardown_options o;
    o.confirm_within = std::max(ctx.scaled(ctx.spec.timing.time_to_gone_s), std::chrono::milliseconds(1000));
    o.poll = ctx.poll_interval();
    o.clock = &ctx.clock;
    const auto prefix = ctx.prefix();
    auto r = terminate_and_confirm(ctx.client, known, [&](const instance& i) {
      return i.name.starts_with(prefix) && i.state != instance_state::terminated;
    }, o);
    if (!ctx.ssh_key_id.empty()) (void)ctx.client.delete_ssh_key(ctx.ssh_key_id);
    if (ledger.launched() == 0 && r.confirmed.empty() && r.leftovers.empty())
      return ctx.emit(detail::not_applicable(leftovers_id, "the run created no instance"));
    if (r.leftovers.empty())
      return ctx.emit(detail::make(leftovers_id, outcome::pass,
                                   std::to_string(r.confirmed.size()) + " instance(s) confirmed terminated or gone"));
    std::string what;
    for (const auto& l : r.leftovers)
      what += (what.empty() ? "" : "; ") + (l.id.empty() ? l.name : l.id) + " (" + l.status + ")";
    ctx.emit(detail::make(leftovers_id, outcome::fail,
                          std::to_string(r.leftovers.size()) + " instance(s) still there after teardown: " + what +
                              ". They may be billed: `neograde sweep --spec " + ctx.spec.provider.id + "` terminates them",
                          r.evidence));
  } catch (...) {
    // Teardown must not throw; the journal keeps what a sweep needs.
  }
}

}  // namespace

run_report run(const provider_spec& spec, const run_options& options) {
  run_report report;
  run_clock& clock = options.clock != nullptr ? *options.clock : real_clock();
  provider_client client(spec, options.base_url, options.api_key, options.http);
  std::optional<provider_client> second;
  if (!options.second_api_key.empty()) second.emplace(spec, options.base_url, options.second_api_key, options.http);
  client.pins = options.pins;
  if (second) second->pins = options.pins;
  // The catalogue first: the target's identity (emulator or not) is then known, and the offer
  // row the run would launch, with why, goes into the results header.
  const auto selection = client.choose_offer().to_json();
  report.measurements["offer_selection"] = selection;
  report.source = options.source.value_or(client.target_source());
  report.time_scale = client.target_time_scale();
  if (options.on_start) options.on_start(report.source, report.time_scale, selection);

  detail::context ctx{.spec = spec,
                      .opts = options,
                      .client = client,
                      .second = second ? &*second : nullptr,
                      .scale = report.time_scale,
                      .emulated = client.target_is_emulator(),
                      .measurements = report.measurements,
                      .errors = error_oracle(spec),
                      .clock = clock};
  // Spending: the permission, live mode's budget and journal, and the pre-check before any create.
  const bool live = is_live_target(options.base_url, options.treat_as_live);
  ctx.spend = spend_permission_for(options.base_url, options.allow_spend, options.treat_as_live);
  const live_rules rules{
      .live = live, .budget = options.budget, .journal = options.journal, .billed_seconds_per_instance = billed_seconds(spec, options)};
  auto make_ledger = [&] {
    try {
      return std::make_shared<spend_ledger>(ctx.spend, rules, options.run_id, spec.provider.id, options.base_url);
    } catch (const std::exception& e) {
      ctx.spend = {false, std::string("the journal cannot be opened: ") + e.what()};
      return std::make_shared<spend_ledger>(ctx.spend, rules, options.run_id, spec.provider.id, options.base_url);
    }
  };
  auto ledger = make_ledger();
  client.set_spend_ledger(ledger);
  if (live && ctx.spend.allowed) {
    if (auto why = pre_check(client, *ledger)) {
      ctx.spend = {false, "the pre-check refused: " + *why};
      ledger = make_ledger();
      client.set_spend_ledger(ledger);
    }
  }
  if (second) second->set_spend_ledger(ledger);
  ctx.public_key = run_public_key;
  ctx.hardware = &report.hardware;
  // --remote-exec logs in with the key the run registers: the one given, or a throw-away pair
  // deleted with the run.
  std::optional<temp_dir> key_dir;
  if (options.remote) {
    auto key = options.remote->identity.empty()
                   ? ssh::generate_key((key_dir.emplace("neograde-key-").path / "key"), run_tag(options.run_id))
                   : ssh::existing_key(options.remote->identity);
    if (!key.error.empty()) throw std::runtime_error("--remote-exec: " + key.error);
    ctx.public_key = key.public_key;
    ctx.private_key = key.private_key.string();
  }
  client.observer = [&](operation_id op, const call_result& r) {
    ctx.seen.push_back({op, r});
    if (!r.success || !r.json) return;
    const auto* spec_op = spec.operation(op);
    const auto before = ctx.status_words.size();
    if (op == operation_id::get && spec_op->item) {
      if (const auto* obj = find_pointer(*r.json, *spec_op->item); obj != nullptr && obj->is_object())
        ctx.status_words.emplace_back(client.to_instance(*obj).provider_status, r.evidence);
    } else if (op == operation_id::list) {
      for (const auto& item : client.collection(*r.json, spec_op->items.value_or(""), spec_op->items_are_object_values))
        ctx.status_words.emplace_back(client.to_instance(item, operation_id::list).provider_status, r.evidence);
    }
    // An undocumented status word is a finding the moment it is read.
    for (auto i = before; i < ctx.status_words.size() && !ctx.vocabulary_failed; ++i)
      if (auto problem = detail::undocumented_status(spec, ctx.status_words[i].first)) {
        ctx.vocabulary_failed = true;
        ctx.emit(detail::make("schema.instance.status_in_vocabulary", outcome::fail, *problem, {ctx.status_words[i].second}));
      }
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
    report.stopped = std::string(e.what()) + " after " + last_check;
    report.stop_signal = e.signal;
  } catch (const std::exception& e) {
    report.stopped = std::string("error after ") + last_check + ": " + e.what();
  }
  // A stopped run decides the rest at once, before teardown (which a second kill may cut
  // short): what was decided stays, and every check it did not get to is errored (not graded),
  // never a provider failure. The leak check is teardown's own.
  if (report.stopped) {
    std::set<std::string> decided;
    for (const auto& o : report.outcomes) decided.insert(o.check_id);
    const std::string why = (report.stop_signal != 0 ? "interrupted: " : "not decided: the run ended early: ") + *report.stopped;
    for (const auto& d : catalogue())
      if (d.id != leftovers_id && !decided.contains(d.id)) ctx.emit(detail::make(d.id, outcome::errored, why));
  }
  teardown(ctx);
  report.measurements["spend"] = {{"live", live},
                                  {"allowed", ctx.spend.allowed},
                                  {"instances_created", ledger->launched()},
                                  {"estimated_usd", std::round(ledger->committed_usd() * 100) / 100}};
  if (live) {
    report.measurements["spend"]["max_instances"] = options.budget.max_instances;
    report.measurements["spend"]["max_spend_usd"] = options.budget.max_spend_usd;
  }
  if (report.stopped) report.measurements["stopped"] = *report.stopped;
  return report;
}

}  // namespace neograde::conformance
