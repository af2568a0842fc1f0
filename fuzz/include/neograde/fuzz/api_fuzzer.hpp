#pragma once
// Fuzzing a provider's API from its spec (neograde fuzz): RapidCheck generators of positive and
// negative requests for every operation, rc::state sequences of launch, get, list, restart,
// terminate and SSH-key operations checked against a model of the provider, and oracles on every
// response. Findings are shrunk, deduplicated by signature and reported in the conformance
// outcome format (category "fuzz").

#include <neograde/clients/http.hpp>
#include <neograde/clients/journal.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace neograde::fuzz {

struct fuzz_options {
  std::string base_url;
  std::string api_key;
  std::string second_api_key;  // a second account: cross-account sequences run only with it
  std::uint64_t seed = 1;      // the same seed against the same target replays the same run
  int max_requests = 2000;     // hard cap, shrinking included; teardown is not counted
  double rate = 0;             // requests per second; 0: 5 against remote hosts, unlimited on loopback
  std::chrono::seconds duration{0};  // 0: no limit but max_requests
  bool allow_spend = false;    // launches against a non-loopback host only with this and NEOGRADE_LIVE=1
  int max_instances = 0;       // hard cap on instances created, shrinking included; 0: 10, or 200 on loopback
  // Live mode (any non-loopback host, or treat_as_live): the spend budget and journal of
  // clients/spend.hpp apply to every launch as well.
  bool treat_as_live = false;
  spend_budget budget;
  std::filesystem::path journal = default_journal_path();
  int max_shrink_runs = 40;    // re-executions spent on shrinking one finding
  http::client_options http;
  // The time sequences wait on and judge by (boots, grace after terminate, teardown): null, the
  // real one; tests share a virtual one with the emulator, so that a sequence sees the same
  // phases at any machine speed (issue 19).
  run_clock* clock = nullptr;
  std::string run_id;          // names what the run creates: neograde-<run_id>-...
  std::function<void(result_source, double time_scale)> on_start;
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
};

// The oracles, as the checks that findings are reported under (check id fuzz.<oracle>).
[[nodiscard]] const std::vector<check_descriptor>& oracles();

// Runs a campaign. Throws std::runtime_error when the target cannot be used at all (no offers
// to launch with are not an error: launch sequences are then left out).
[[nodiscard]] fuzz_report run(const provider_spec& spec, const fuzz_options& options);

}  // namespace neograde::fuzz
