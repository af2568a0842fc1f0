#include <neograde/conformance/readiness.hpp>

#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/run_names.hpp>
#include <neograde/clients/spend.hpp>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace neograde::conformance {
namespace {

std::string usd(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", x);
  return buf;
}

// The checks a run with these options would skip, and why: predicted from the spec (operations
// it lacks, deviations it declares) and the options (no second account, no spending).
std::vector<std::pair<std::string, std::string>> predicted_skips(const session& s, const run_options& o, const spend_permission& spend) {
  const auto& spec = s.spec();
  const bool emulated = s.emulated();
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  auto skip = [&](const std::string& id, const std::string& why) {
    if (seen.insert(id).second) out.emplace_back(id, why);
  };
  const bool has_get = spec.operation(operation_id::get) != nullptr;
  const bool has_restart = spec.operation(operation_id::restart) != nullptr;
  const bool has_keys = spec.operation(operation_id::ssh_keys_add) != nullptr && spec.operation(operation_id::ssh_keys_list) != nullptr;
  for (const auto& d : spec.deviations)
    skip(d.check_id, "known deviation, reported as skipped if it misses: " + d.reason + " (" + d.source + ")");
  if (!spend.allowed) {
    const std::string why = "creates instances or keys: " + spend.refusal;
    for (const char* id : {"capacity.offers.advertised_is_launchable",
                           "lifecycle.instance.launch_returns_id",
                           "lifecycle.instance.visible_in_get",
                           "lifecycle.instance.visible_in_list",
                           "lifecycle.instance.filter_selects_exactly",
                           "lifecycle.instance.reaches_running",
                           "lifecycle.instance.running_has_address",
                           "lifecycle.instance.matches_order",
                           "transparency.instance.underlying_provider_as_listed",
                           "lifecycle.instance.restart_returns_to_running",
                           "lifecycle.instance.terminate_many",
                           "lifecycle.instance.terminate_accepted",
                           "lifecycle.instance.gone_after_terminate",
                           "lifecycle.instance.terminate_idempotent",
                           "lifecycle.instance.no_illegal_transition",
                           "schema.launch.matches_schema",
                           "schema.terminate.matches_schema",
                           "schema.instance.consistent_across_endpoints",
                           "pagination.list.each_once",
                           "pagination.list.size_honoured",
                           "pagination.list.metadata_truthful",
                           "validation.launch.unknown_instance_type_rejected",
                           "validation.launch.wrong_type_rejected",
                           "validation.launch.missing_required_rejected",
                           "validation.launch.long_name_no_5xx",
                           "validation.launch.non_ascii_name_no_5xx",
                           "validation.launch.unknown_region_rejected",
                           "lifecycle.ssh_key.visible_after_add",
                           "lifecycle.ssh_key.delete_removes",
                           "validation.ssh_key.empty_name_rejected",
                           "isolation.ssh_key.list_hidden",
                           "isolation.instance.get_denied",
                           "isolation.instance.list_hidden",
                           "isolation.instance.terminate_denied",
                           "isolation.instance.restart_denied",
                           "isolation.instance.no_existence_leak"})
      skip(id, why);
  }
  if (s.options().second_api_key.empty())
    for (const char* id : {"isolation.instance.get_denied", "isolation.instance.list_hidden", "isolation.instance.terminate_denied",
                           "isolation.instance.restart_denied", "isolation.instance.no_existence_leak", "isolation.ssh_key.list_hidden"})
      skip(id, "needs a second account (--second-api-key)");
  if (!has_get)
    for (const char* id :
         {"lifecycle.instance.visible_in_get", "schema.instance.consistent_across_endpoints", "errors.instance.unknown_id_is_404",
          "isolation.instance.get_denied", "isolation.instance.no_existence_leak", "schema.instance.get_matches_schema"})
      skip(id, "the API has no get-by-id operation");
  if (!has_restart)
    for (const char* id :
         {"lifecycle.instance.restart_returns_to_running", "errors.instance.restart_unknown_is_4xx", "isolation.instance.restart_denied"})
      skip(id, "the API has no restart operation");
  if (!has_keys)
    for (const char* id :
         {"lifecycle.ssh_key.visible_after_add", "lifecycle.ssh_key.delete_removes", "validation.ssh_key.empty_name_rejected",
          "isolation.ssh_key.list_hidden", "errors.ssh_key.delete_unknown_is_4xx"})
      skip(id, "the API has no SSH key operations");
  if (!o.probe_rate_limit && !emulated)
    for (const char* id : {"ratelimit.response.has_retry_after", "ratelimit.response.has_envelope"})
      skip(id,
           "judged only on a 429 the run happens to meet: the rate-limit probe runs only with --probe-rate-limit against a real provider");
  return out;
}

}  // namespace

readiness assess_readiness(session& s, const run_options& options) {
  const auto& spec = s.spec();
  readiness r;
  auto say = [&](const std::string& line) { r.lines.push_back(line); };
  auto problem = [&](const std::string& p) {
    r.problems.push_back(p);
    say("NOT READY: " + p);
  };
  const bool live = s.live();
  r.doc["provider"] = spec.provider.id;
  r.doc["base_url"] = s.base_url();
  r.doc["live"] = live;

  // Variables, as the run would send them.
  nlohmann::json vars = nlohmann::json::object();
  for (const auto& [name, decl] : spec.variable_decls) {
    if (auto it = spec.variables.find(name); it != spec.variables.end()) {
      vars[name] = it->second;
      say("variable " + name + " = " + it->second);
    } else {
      say("variable " + name + " is not set" + (decl.required ? "" : " (optional)"));
    }
  }
  r.doc["variables"] = vars;

  // The key: the session's probe, an authenticated read.
  if (!s.probe()) throw std::logic_error("assess_readiness needs a probed session, not a replay");
  const auto read_op = s.probe_operation();
  const auto& read = *s.probe();
  r.doc["emulated"] = s.emulated();
  r.doc["key"] = {{"operation", nlohmann::json(read_op)}, {"status", read.status()}};
  if (read.transport) {
    problem("cannot reach " + s.base_url() + ": " + read.describe());
  } else if (read.status() == 401 || read.status() == 403) {
    problem("the API key was rejected (" + read.describe() + "); check " + spec.auth.env);
  } else if (!read.success) {
    problem("an authenticated read (" + nlohmann::json(read_op).get<std::string>() + ") answered " + read.describe());
  } else {
    say("the API key works: " + nlohmann::json(read_op).get<std::string>() + " answered HTTP " + std::to_string(read.status()));
  }

  // The offer the run would launch, and why.
  const auto& selection = s.selection();
  r.doc["offer_selection"] = selection.to_json();
  say(selection.chosen ? "offer: " + selection.explanation : "no offer: " + selection.explanation);

  // Spending: permission, price, estimated cost, budget. A live run whose pre-check would refuse
  // (no offer, no price, over the budget) still runs, read-only: its launching checks are skipped.
  auto spend = s.spend();
  const auto& rules = s.rules();
  const double hours = rules.billed_seconds_per_instance / 3600;
  nlohmann::json cost{{"billed_hours_per_instance", hours}};
  const int instances = live ? rules.budget.max_instances : 3;
  if (spend.allowed && selection.chosen) {
    const auto& o = *selection.chosen;
    std::optional<double> each;
    if (o.price_per_hour_usd) {
      each = *o.price_per_hour_usd * hours;
      cost["max_instances"] = instances;
      cost["estimated_usd_per_instance"] = *each;
      cost["estimated_usd"] = *each * instances;
      say("estimated cost: " + usd(*each) + " per instance (" + usd(*o.price_per_hour_usd) + "/h for about " +
          std::to_string(static_cast<int>(hours * 60)) + " min), " + usd(*each * instances) + " for at most " + std::to_string(instances) +
          " instance(s)" + (live ? "; budget --max-spend " + usd(rules.budget.max_spend_usd) : ""));
    }
    // The ledger's own rule, as the run's pre-check applies it before the first create.
    if (live)
      if (auto no = budget_refusal(rules, 0, 0, each, o.key())) spend = {false, "the pre-check would refuse: " + *no};
  } else if (spend.allowed && live) {
    spend = {false, "the pre-check would refuse: " + selection.explanation};
  }
  cost["allowed"] = spend.allowed;
  if (!spend.allowed) {
    say("the run launches nothing: " + spend.refusal);
    cost["refusal"] = spend.refusal;
  } else if (selection.chosen) {
    const auto& o = *selection.chosen;
    // What the run would create.
    std::vector<std::string> creates;
    const auto prefix = s.prefix();
    if (spec.operation(operation_id::ssh_keys_add) != nullptr && spec.operation(operation_id::ssh_keys_list) != nullptr)
      creates.push_back("an SSH key " + prefix + "key (deleted at the end)");
    creates.push_back("an instance " + prefix + "lc of " + o.key());
    if (instances > 1)
      creates.push_back("up to " + std::to_string(std::min(instances - 1, 2)) + " more (" + prefix +
                        "extra0...) for the "
                        "pagination and terminate-many checks");
    // More than one offer: another type for the order check, further rows for the capacity check.
    if (const int further = live ? std::min(instances - 1, 3) : 3; further > 0)
      creates.push_back("up to " + std::to_string(further) + " more of other advertised rows (" + prefix + "order, " + prefix +
                        "row1...) for the order and capacity checks, each terminated at once" +
                        (live ? ", as far as --max-instances leaves room after the above" : ""));
    for (const auto& c : creates) say("would create " + c);
    say("everything created is journaled and terminated at the end, also on a crash (`neograde sweep` finds the rest)");
    cost["creates"] = creates;
  }
  r.doc["spend"] = cost;

  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [id, why] : predicted_skips(s, options, spend)) {
    skipped.push_back({{"check", id}, {"why", why}});
    say("would skip " + id + ": " + why);
  }
  r.doc["skipped"] = skipped;
  r.ready = r.problems.empty();
  r.doc["ready"] = r.ready;
  r.doc["problems"] = r.problems;
  say(r.ready ? "READY" : "NOT READY (" + std::to_string(r.problems.size()) + " problem(s))");
  return r;
}

}  // namespace neograde::conformance
