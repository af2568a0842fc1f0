#pragma once
// Fuzzing a provider's API from its spec (neograde fuzz): RapidCheck generators of positive and
// negative requests for every operation, rc::state sequences of launch, get, list, restart, stop,
// start, terminate (one, or by tag), offer-page walks and SSH-key operations checked against a
// model of the provider, and oracles on every response. Findings are shrunk, deduplicated by signature and reported in the conformance
// outcome format (category "fuzz").

#include <neograde/clients/session.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <optional>
#include <vector>

namespace neograde::fuzz {

// What a campaign adds to its session (clients/session.hpp), which holds the target, the
// accounts, the spend rules and the run id.
struct fuzz_options {
  std::uint64_t seed = 1;            // the same seed against the same target replays the same run
  int max_requests = 2000;           // hard cap, shrinking included; teardown is not counted
  double rate = 0;                   // requests per second; 0: 5 against remote hosts, unlimited on loopback
  std::chrono::seconds duration{0};  // 0: no limit but max_requests
  int max_instances = 0;             // hard cap on instances created, shrinking included; 0: 10, or 200 on loopback
  int max_shrink_runs = 40;          // re-executions spent on shrinking one finding
  // Connections per account, each with a thread of its own taking the campaign's iterations in
  // turn. On one (the default) a seed replays the campaign exactly; on several, every finding's
  // reproduction is still exact, but which findings come first depends on how requests interleave.
  int connections = 1;
  std::function<void(const check_descriptor&, const check_outcome&)> on_finding;
  // Asked after each new finding (shrunk and reported): true ends the campaign there, e.g. after
  // the first N findings or once a given oracle has fired. Empty: run to the budget.
  std::function<bool(const check_outcome&)> stop_when;
  std::function<void(const std::string&)> on_progress;  // one line of progress (stderr)
};

struct fuzz_report {
  result_source source = result_source::unknown;
  double time_scale = 1.0;
  std::vector<check_descriptor> descriptors;  // one per finding, in order
  std::vector<check_outcome> findings;
  nlohmann::json measurements = nlohmann::json::object();
  // Set when the campaign ended before its budget: the target unusable, a signal, a bug (what it
  // created is torn down either way).
  std::optional<run_stop> stopped;
};

// The oracles, as the checks that findings are reported under (check id fuzz.<oracle>).
[[nodiscard]] const std::vector<check_descriptor>& oracles();

// Runs a campaign in the session, whose clients it makes (with its own request budget and pacing:
// no client of the session may exist yet). No offers to launch with are not an error: launch
// sequences are then left out. Acting on the session's probe (session::unusable) is the caller's.
[[nodiscard]] fuzz_report run(session& s, const fuzz_options& options);

}  // namespace neograde::fuzz
