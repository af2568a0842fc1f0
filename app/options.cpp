#include "options.hpp"

#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/clients/url.hpp>
#include <neograde/core/json_util.hpp>

#include <cstdlib>
#include <map>

namespace neograde::app {

provider_spec load_spec_or_throw(const std::string& name_or_path) {
  auto path = resolve_spec(name_or_path);
  if (!path) throw usage_error("no spec named \"" + name_or_path + "\" (see `neograde providers`)");
  auto spec = load_spec(*path);
  if (!spec) throw usage_error("invalid spec " + spec.error().what());
  return std::move(*spec);
}

std::string api_key_or_throw(const provider_spec& spec, const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv(spec.auth.env.c_str()); env != nullptr && *env != '\0') return env;
  throw usage_error("no API key: pass --api-key or set " + spec.auth.env);
}

void add_live_options(CLI::App* cmd, live_cli& o) {
  cmd->add_option("--max-spend", o.max_spend_usd,
                  "Live mode: refuse a launch whose estimated cost (offer price x the spec's expected times) would "
                  "take the run over this many USD")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--journal", o.journal,
                  "Live mode: the append-only journal of what runs create (default: $XDG_STATE_HOME/neograde/journal.jsonl)");
  // Applies every live-mode rule to a loopback emulator: how those rules are tested.
  cmd->add_flag("--treat-as-live", o.treat_as_live)->group("");
}

void add_target_options(CLI::App* cmd, target_cli& o, bool pins) {
  cmd->add_option("--set", o.sets,
                  "A spec variable for this run, NAME=VALUE (repeatable; e.g. --set project_id=...); "
                  "overrides the variable's environment variable")
      ->type_name("NAME=VALUE");
  if (!pins) return;
  cmd->add_option("--instance-type", o.instance_type, "Launch only offers of this instance type");
  cmd->add_option("--region", o.region, "Launch only offers in this region");
}

nlohmann::json apply_run_cli(session_options& session, conformance::run_options& run, provider_spec& spec, const run_cli& o) {
  if (!http::parse_url(session.base_url)) throw usage_error("not an http(s) URL with a host: " + session.base_url);
  session.treat_as_live = o.live.treat_as_live;
  apply_variables(spec, o.target, is_live_target(session.base_url, session.treat_as_live));
  session.pins = {o.target.instance_type, o.target.region};
  session.second_api_key = o.second_api_key;
  session.http.extra_ca_file = o.ca_file;
  session.allow_spend = o.allow_spend;
  session.read_only = o.read_only;
  session.budget = {o.max_instances, o.live.max_spend_usd};
  if (!o.live.journal.empty()) session.journal = o.live.journal;
  run.probe_rate_limit = o.probe_rate_limit;
  run.rdap = o.rdap;
  if (!run.rdap.url.empty() && !http::parse_url(run.rdap.url))
    throw usage_error("--rdap-url: not an http(s) URL with a host: " + run.rdap.url);
  auto overrides = nlohmann::json::object();
  auto override_timing = [&](const char* name, const std::optional<double>& given, double& timing) {
    if (!given) return;
    overrides[name] = {{"value", *given}, {"spec", timing}};
    timing = *given;
  };
  override_timing("time_to_running_s", o.time_to_running_s, spec.timing.time_to_running_s);
  override_timing("time_to_gone_s", o.time_to_gone_s, spec.timing.time_to_gone_s);
  return overrides;
}

void add_timing_options(CLI::App* cmd, run_cli& o) {
  cmd->add_option("--time-to-running", o.time_to_running_s,
                  "Seconds an instance may take to run, instead of the spec's (a staging API or a test double); "
                  "recorded in the results and shown on the scorecard")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-to-gone", o.time_to_gone_s,
                  "Seconds a terminated instance may take to be gone, instead of the spec's; recorded like --time-to-running")
      ->check(CLI::PositiveNumber);
}

void apply_variables(provider_spec& spec, const target_cli& o, bool live) {
  std::map<std::string, std::string> sets;
  for (const auto& s : o.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw usage_error("--set takes NAME=VALUE, not \"" + s + "\"");
    sets[s.substr(0, eq)] = s.substr(eq + 1);
  }
  auto r = resolve_variables(spec, sets, live);
  if (!r.unknown.empty()) {
    std::string declared;
    for (const auto& [name, _] : spec.variable_decls) declared += (declared.empty() ? "" : ", ") + name;
    throw usage_error("--set " + r.unknown.front() + ": " + spec.provider.id +
                      " has no such variable (it has: " + (declared.empty() ? "none" : declared) + ")");
  }
  if (!r.missing.empty()) {
    std::string what;
    for (const auto& m : r.missing) what += (what.empty() ? "" : "; ") + m;
    throw usage_error("a live run of " + spec.provider.id + " needs " + what);
  }
  spec.variables = std::move(r.values);
}

void discover_variables(provider_spec& spec, const session_options& so) {
  for (const auto& [name, d] : spec.variable_decls) {
    if (!d.from || spec.variables.contains(name)) continue;
    provider_client client(spec, so.base_url, so.api_key, so.http);
    const auto r = client.raw("GET", d.from->path);
    const auto* v = r.success && r.json ? d.from->value.read([&](const std::string& p) { return find_pointer(*r.json, p); }) : nullptr;
    const auto value = v != nullptr ? string_at(*v, "").value_or("") : std::string();
    if (value.empty())
      throw usage_error("a live run of " + spec.provider.id + " needs " + name + ", which GET " + d.from->path + " did not give (" +
                        (r.success ? "no value at " + d.from->value.pointer : r.describe()) + "); set " +
                        (d.env.empty() ? "" : d.env + " or ") + "--set " + name + "=...");
    spec.variables[name] = value;
  }
}

}  // namespace neograde::app
