#include <neograde/conformance/readiness.hpp>

#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/needs.hpp>

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

// The checks a run with these options would skip, and why: each check's needs (its catalogue row)
// decided as the run decides them, then the deviations the spec declares.
std::vector<std::pair<std::string, std::string>> predicted_skips(const session& s, const run_options& o, const spend_permission& spend) {
  const auto& spec = s.spec();
  const auto run = conditions_of(s, o, spend);
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const auto& check : catalogue())
    if (auto unmet = applicability(check, spec, run)) {
      seen.insert(check.id);
      out.emplace_back(check.id, unmet->reason);
    }
  for (const auto& d : spec.deviations)
    if (seen.insert(d.check_id).second)
      out.emplace_back(d.check_id, "known deviation, reported as skipped if it misses: " + d.reason + " (" + d.source + ")");
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
