#pragma once
// `neograde preflight`: whether a run against a provider is ready, found out read-only. The key
// works (an authenticated read), which offer row the run would launch and why, its price and the
// run's estimated cost, what the run would create, and which checks it would skip and why.
// Nothing is created: the only requests are reads.

#include <neograde/conformance/runner.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace neograde::conformance {

// Ready: the run can start and grade (reachable, key accepted). A live run whose pre-check would
// refuse to launch (no offer, no price, over the budget) is still ready: it runs read-only, and
// the launching checks are listed as skipped with that reason.
struct readiness {
  bool ready = false;
  std::vector<std::string> problems;              // why the run is not ready (empty when it is)
  std::vector<std::string> lines;                 // the whole assessment, one statement a line
  nlohmann::json doc = nlohmann::json::object();  // the same, as data
};

// The session's spec must already hold the run's variables (app: apply_variables); `options` are
// those the conformance run would be given. The session's probe is the key check.
[[nodiscard]] readiness assess_readiness(session& s, const run_options& options);

}  // namespace neograde::conformance
