#include "context.hpp"

#include <neograde/core/clock.hpp>
#include <neograde/core/measurements.hpp>

#include <algorithm>
#include <cmath>

namespace neograde::conformance::detail {

void dx_timeline::mark(milestone m, run_clock::time_point now) {
  if (m != requested && at[m]) return;
  at[m] = now;
  utc[m] = utc_now_iso8601();
}

nlohmann::json dx_timeline::to_json() const {
  const auto when = [&](milestone m) { return utc[m].empty() ? std::nullopt : std::optional<std::string>(utc[m]); };
  // Each duration counts from the accepted launch request; a milestone not reached is none.
  const auto since_request = [&](milestone m) -> std::optional<double> {
    if (!at[requested] || !at[m]) return std::nullopt;
    return std::round(std::chrono::duration<double>(*at[m] - *at[requested]).count() * 1000) / 1000;
  };
  return measurement::developer_experience{
      .launch_requested_at = when(requested),
      .running_at = when(running),
      .ssh_at = when(ssh),
      .first_kernel_at = when(first_kernel),
      .time_to_running_s = since_request(running),
      .time_to_ssh_s = since_request(ssh),
      .time_to_first_kernel_s = since_request(first_kernel),
      .launch_attempts = attempts,
      .launch_refused = {.capacity = refused_capacity, .quota = refused_quota, .funds = refused_funds, .error = refused_error},
      .launch_succeeded = succeeded,
      .api_answered = api_answered};
}

check_outcome make(std::string id, outcome result, std::string reason, std::vector<exchange> evidence) {
  check_outcome o;
  o.check_id = std::move(id);
  o.result = result;
  o.reason = std::move(reason);
  o.evidence = std::move(evidence);
  return o;
}

teardown_result terminate_run_instances(context& ctx) {
  std::vector<teardown_target> known;
  for (const auto& c : ctx.client.ledger().instances())
    if (!c.deleted) known.push_back({c.id, c.name});
  teardown_options o;
  o.confirm_within = provider_time(ctx.spec.timing.time_to_gone_s, ctx.scale(), std::chrono::milliseconds(1000));
  o.poll = ctx.poll_interval();
  o.time_to_gone = ctx.scaled(ctx.spec.timing.time_to_gone_s);
  o.clock = &ctx.clock;
  const auto prefix = ctx.prefix();
  return terminate_and_confirm(
      ctx.client, known, [&](const instance& i) { return i.name.starts_with(prefix) && i.state != instance_state::terminated; }, o);
}

std::optional<check_outcome> context::unmet(const std::string& id) const {
  const auto it = inapplicable.find(id);
  if (it == inapplicable.end()) return std::nullopt;
  return make(id, outcome::skipped, it->second);
}

bool context::applies(const std::string& id) {
  auto skip = unmet(id);
  if (skip) emit(std::move(*skip));
  return !skip;
}

check_outcome not_applicable(std::string id, const std::string& why) {
  return make(std::move(id), outcome::skipped, "not applicable: " + why);
}

call_result deliberately(call_result r, std::string what) {
  r.evidence.deliberate = std::move(what);
  return r;
}

check_outcome expect_4xx(std::string id, const call_result& r, const std::string& what) {
  if (r.not_sent) return make(std::move(id), outcome::skipped, r.describe());
  auto evidence = r.evidence;
  if (evidence.deliberate.empty()) evidence.deliberate = what;
  if (!r.response) return make(std::move(id), outcome::errored, r.describe(), {evidence});
  if (r.status() == 429) return make(std::move(id), outcome::rate_limited, r.describe(), {evidence});
  if (is_client_error(r)) return make(std::move(id), outcome::pass, "HTTP " + std::to_string(r.status()), {evidence});
  return make(std::move(id), outcome::fail, what + " got HTTP " + std::to_string(r.status()) + ", expected 4xx", {evidence});
}

std::optional<offer> launchable_offer(context& ctx, const std::vector<std::string>& refused) {
  return ctx.client.choose_offer(refused).chosen;
}

template_vars launch_vars_for(const context& ctx, const std::optional<offer>& target) {
  if (!target) {
    auto vars = ctx.client.launch_vars(
        launch_request{.ssh_key_name = ctx.ssh_key_name, .public_key = ctx.public_key, .ssh_key_id = ctx.ssh_key_id});
    vars.erase("instance_type");
    return vars;
  }
  return ctx.client.launch_vars(launch_request{.instance_type = target->instance_type,
                                               .region = target->region,
                                               .ssh_key_name = ctx.ssh_key_name,
                                               .params = target->params,
                                               .public_key = ctx.public_key,
                                               .ssh_key_id = ctx.ssh_key_id});
}

std::optional<std::string> undocumented_status(const provider_spec& spec, const std::string& word) {
  // A null or absent status is documented when the spec says what it means.
  if (word.empty()) {
    if (spec.absent_state) return std::nullopt;
    return "an instance has no status, and the spec documents no meaning for that";
  }
  if (spec.states.contains(word)) return std::nullopt;
  return "status \"" + word + "\" is not in the documented vocabulary";
}

bool is_client_error(const call_result& r) { return r.status() >= 400 && r.status() < 500; }

std::optional<std::string> envelope_problem(const call_result& r, const context& ctx) { return ctx.errors.envelope_problem(r); }

}  // namespace neograde::conformance::detail
