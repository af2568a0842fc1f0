#include <neograde/clients/journal.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/clients/url.hpp>
#include <neograde/core/billing.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace neograde {

bool is_live_target(const std::string& base_url, bool treat_as_live) {
  const auto url = http::parse_url(base_url);
  return treat_as_live || !url || !http::is_loopback(*url);
}

double billed_seconds_estimate(double time_to_running_s, double time_to_gone_s, double extra_hold_s) {
  constexpr double hold_s = 900;
  return time_to_running_s + hold_s + extra_hold_s + time_to_gone_s;
}

double billed_seconds_estimate(const provider_spec& spec, double extra_hold_s) {
  const auto& t = spec.timing;
  double held_s = billed_seconds_estimate(t.time_to_running_s, 0, extra_hold_s);
  if (t.minimum_runtime) held_s = std::max(held_s, t.minimum_runtime->seconds);
  double s = held_s + t.time_to_gone_s;
  if (const auto b = billing_of(spec)) {
    s = std::max(s, b->minimum_s);
    if (b->increment_s && *b->increment_s > 0) s = std::ceil(s / *b->increment_s - 1e-9) * *b->increment_s;
  }
  return s;
}

bool effective_allow_spend(const std::string& base_url, bool allow_spend_flag, bool treat_as_live) {
  return allow_spend_flag || !is_live_target(base_url, treat_as_live);
}

spend_permission read_only_permission() { return {.allowed = false, .refusal = read_only_refusal, .read_only = true}; }

std::string spend_skip_reason(const spend_permission& p, const std::string& what) {
  return p.read_only ? p.refusal + " (" + what + ")" : what + ": " + p.refusal;
}

spend_permission spend_permission_for(const std::string& base_url, bool allow_spend_flag, bool treat_as_live) {
  const bool loopback = !is_live_target(base_url, treat_as_live);
  if (!allow_spend_flag)
    return {false, loopback ? "creating resources is switched off for this run"
                            : "needs --allow-spend and NEOGRADE_LIVE=1 against a non-loopback host"};
  if (loopback) return {true, ""};
  const char* live = std::getenv(live_opt_in_env);
  if (live != nullptr && std::strcmp(live, "1") == 0) return {true, ""};
  return {false, "--allow-spend was given, but NEOGRADE_LIVE=1 is not set in the environment"};
}

std::string journal_origin(const std::string& base_url) {
  auto u = http::parse_url(base_url);
  if (!u) return "(not a URL)";
  auto path = u->target.substr(0, u->target.find_first_of("?#"));
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const bool v6 = u->host.find(':') != std::string::npos;
  return (u->tls ? "https://" : "http://") + (v6 ? "[" + u->host + "]" : u->host) + ":" + u->port + (path == "/" ? "" : path);
}

namespace {
std::string money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}
}  // namespace

spend_ledger::spend_ledger(spend_permission permission, live_rules rules, std::string run_id, std::string provider, std::string base_url)
    : permission_(std::move(permission)),
      rules_(std::move(rules)),
      run_id_(std::move(run_id)),
      provider_(std::move(provider)),
      base_url_(journal_origin(base_url)) {
  if (rules_.live && permission_.allowed) journal_ = std::make_unique<journal>(rules_.journal);
}

spend_ledger::~spend_ledger() = default;

void spend_ledger::note_price(const std::string& instance_type, double price_per_hour_usd) {
  if (!std::isfinite(price_per_hour_usd) || price_per_hour_usd < 0) return;
  std::lock_guard lock(mu_);
  prices_[instance_type] = price_per_hour_usd;
}

std::optional<double> spend_ledger::estimate_locked(const std::string& instance_type) const {
  std::optional<double> price;
  if (auto it = prices_.find(instance_type); it != prices_.end()) price = it->second;
  else
    price = highest_price_locked();
  if (!price) return std::nullopt;
  return *price * rules_.billed_seconds_per_instance / 3600.0;
}

std::optional<double> spend_ledger::highest_price_locked() const {
  std::optional<double> out;
  for (const auto& [t, p] : prices_) out = std::max(out.value_or(0.0), p);
  return out;
}

std::optional<double> spend_ledger::highest_price() const {
  std::lock_guard lock(mu_);
  return highest_price_locked();
}

std::optional<double> spend_ledger::estimate_usd(const std::string& instance_type) const {
  std::lock_guard lock(mu_);
  return estimate_locked(instance_type);
}

std::optional<std::string> budget_refusal(const live_rules& rules, int launched, double committed_usd, std::optional<double> estimate_usd,
                                          const std::string& what) {
  const auto& b = rules.budget;
  if (launched + 1 > b.max_instances)
    return "the budget allows " + std::to_string(b.max_instances) + " instance(s) per run (--max-instances) and " +
           std::to_string(launched) + " were created";
  if (!estimate_usd) return "no offer price is known, so the cost cannot be bounded (--max-spend)";
  if (committed_usd + *estimate_usd > b.max_spend_usd + 1e-9)
    return "launching " + what + " is estimated at " + money(*estimate_usd) + " (" +
           std::to_string(static_cast<long>(std::lround(rules.billed_seconds_per_instance / 60))) + " min billed), with " +
           money(committed_usd) + " already committed; that exceeds --max-spend " + money(b.max_spend_usd);
  return std::nullopt;
}

std::optional<std::string> spend_ledger::refusal_locked(const std::string& instance_type) const {
  if (!permission_.allowed) return permission_.refusal;
  if (!rules_.live) return std::nullopt;
  return budget_refusal(
      rules_, launched_, committed_, estimate_locked(instance_type),
      prices_.contains(instance_type) ? instance_type : "an instance of a type without a listed price (priced as the dearest offer)");
}

std::optional<std::string> spend_ledger::would_refuse(const std::string& instance_type) const {
  std::lock_guard lock(mu_);
  return refusal_locked(instance_type);
}

std::optional<std::string> spend_ledger::admit(const std::string& name, const std::string& instance_type) {
  std::lock_guard lock(mu_);
  if (auto no = refusal_locked(instance_type)) return no;
  pending_type_[name] = instance_type;
  try {
    write(journal_event::intent, name, "", instance_type, "");
  } catch (const std::exception& e) {
    pending_type_.erase(name);
    return std::string("the journal cannot be written, so nothing is launched: ") + e.what();
  }
  return std::nullopt;
}

void spend_ledger::write(journal_event event, const std::string& name, const std::string& id, const std::string& type,
                         const std::string& detail) {
  if (!journal_) return;
  journal_entry e;
  e.event = event;
  e.run_id = run_id_;
  e.provider = provider_;
  e.base_url = base_url_;
  e.name = name;
  e.id = id;
  e.instance_type = type;
  if (auto it = prices_.find(type); it != prices_.end()) e.price_per_hour_usd = it->second;
  e.detail = detail;
  journal_->append(std::move(e));
}

void spend_ledger::record(journal_event event, const std::string& name, const std::string& id, const std::string& type,
                          const std::string& detail) noexcept {
  try {
    write(event, name, id, type, detail);
  } catch (const std::exception&) {
    // After the fact: the intent is journaled, and a sweep finds the instance by its name.
  }
}

std::string spend_ledger::count_locked(const std::string& name, const std::string& id) {
  auto type = std::move(pending_type_[name]);
  pending_type_.erase(name);
  ++launched_;
  committed_ += estimate_locked(type).value_or(0);
  created_.push_back({name, id, false});
  return type;
}

void spend_ledger::created(const std::string& name, const std::string& id) {
  std::lock_guard lock(mu_);
  const auto type = count_locked(name, id);
  record(journal_event::created, name, id, type, id.empty() ? "the response named no id" : "");
}

void spend_ledger::identified(const std::string& name, const std::string& id) {
  std::lock_guard lock(mu_);
  for (auto& c : created_)
    if (c.name == name && c.id.empty()) c.id = id;
  // A second `created` event, now with the id: the journal's readers take the latest one.
  record(journal_event::created, name, id, "", "the id was found by the instance's name in the list");
}

void spend_ledger::refused(const std::string& name, const std::string& detail) {
  std::lock_guard lock(mu_);
  pending_type_.erase(name);
  record(journal_event::refused, name, "", "", detail);
}

void spend_ledger::unanswered(const std::string& name, const std::string& detail) {
  std::lock_guard lock(mu_);
  (void)count_locked(name, "");
  (void)detail;  // the intent stays open in the journal: sweep looks for the name
}

void spend_ledger::step(const std::string& id, const std::string& name, const std::string& detail) {
  std::lock_guard lock(mu_);
  record(journal_event::step, name, id, "", detail);
}

void spend_ledger::terminating(const std::string& id, const std::string& name) {
  std::lock_guard lock(mu_);
  record(journal_event::terminating, name, id, "", "");
}

void spend_ledger::deleted(const std::string& id, const std::string& name) {
  std::lock_guard lock(mu_);
  for (auto& c : created_)
    if ((!id.empty() && c.id == id) || (!name.empty() && c.name == name)) c.deleted = true;
  record(journal_event::deleted, name, id, "", "");
}

void spend_ledger::leaked(const std::string& id, const std::string& name, const std::string& detail) {
  std::lock_guard lock(mu_);
  record(journal_event::leaked, name, id, "", detail);
}

std::vector<spend_ledger::created_instance> spend_ledger::instances() const {
  std::lock_guard lock(mu_);
  return created_;
}

int spend_ledger::launched() const {
  std::lock_guard lock(mu_);
  return launched_;
}

double spend_ledger::committed_usd() const {
  std::lock_guard lock(mu_);
  return committed_;
}

}  // namespace neograde
