#pragma once
// Runs the check catalogue against one provider and streams outcomes as they are decided.

#include <neograde/clients/session.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace neograde::conformance {

// --remote-exec: copy neograde-gpu-smoke to the running instance over SSH, run it there before
// terminating, and keep its JSON as the run's hardware record. The key it logs in with is the
// session's (session_options::ssh_identity); the endpoint is the instance's, as the spec's `ssh`
// section says the provider states it (instance::ssh), unless overridden here.
struct remote_exec_options {
  std::string binary;                   // the neograde-gpu-smoke to copy
  std::string user;                     // --ssh-user: replaces the endpoint's user; "": the endpoint's
  int port = 0;                         // --ssh-port: replaces the endpoint's port; 0: the endpoint's
  std::vector<std::string> smoke_args;  // e.g. --expect h100-sxm5-80gb --count 8
  double ssh_wait_s = 600;              // how long after "running" SSH may take to answer
  double smoke_timeout_s = 300;
  // Provider time the instance is held for this beyond a run's usual hold (the budget's).
  [[nodiscard]] double extra_hold_s() const { return ssh_wait_s + smoke_timeout_s; }
};

// Who owns the instance's address (clients/rdap.hpp): looked up in live runs through IANA's
// bootstrap; `url` names the RDAP server instead, and then the lookup is made in any run.
struct rdap_run_options {
  std::string url;        // --rdap-url
  bool disabled = false;  // --no-rdap
};

// What a conformance run adds to its session.
struct run_options {
  bool probe_rate_limit = false;  // probe for a 429 (always on against the emulator, unless probe_emulator is false)
  // Whether a run against the emulator probes without being asked (tests turn it off to show the
  // rate-limit checks judging the 429s met in normal traffic alone).
  bool probe_emulator = true;
  std::optional<remote_exec_options> remote;
  // Without --remote-exec: a GPU smoke document to record as the running instance's hardware,
  // labelled `origin: fixture` (the demo's stand-in; nothing was measured). Null: none.
  nlohmann::json hardware_fixture;
  rdap_run_options rdap;
  std::function<void(const check_descriptor&, const check_outcome&)> on_outcome;
};

struct run_report {
  result_source source = result_source::unknown;
  double time_scale = 1.0;
  std::vector<check_outcome> outcomes;
  nlohmann::json measurements = nlohmann::json::object();
  // With --remote-exec: the instance, whether SSH answered, and the smoke test's document.
  nlohmann::json hardware;
  // Set when the run did not finish its checks (the target unusable, a signal, a bug): why, and
  // after which check. The checks it did not get to are errored, and what it created torn down.
  std::optional<run_stop> stopped;
};

// Runs every check of the catalogue in the session, then tears down what the run created. It
// grades whatever answers: acting on the session's probe (session::unusable) is the caller's.
[[nodiscard]] run_report run(session& s, const run_options& options);

}  // namespace neograde::conformance
