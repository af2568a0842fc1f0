#pragma once
// Shared by the check implementations; not part of the public interface.

#include <neograde/clients/oracles.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/run_names.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/core/poll.hpp>

#include "lifecycle_record.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neograde::conformance::detail {

// How long, and how reliably, a developer gets a working GPU: the run's own timeline, in run-clock
// time (durations) and UTC (when), written to the footer as `developer_experience`.
struct dx_timeline {
  enum milestone { requested, running, ssh, first_kernel, milestones };
  std::optional<run_clock::time_point> at[milestones];
  std::string utc[milestones];
  int attempts = 0;  // launch requests sent for the main instance
  int refused_capacity = 0, refused_quota = 0, refused_funds = 0, refused_error = 0;
  bool succeeded = false;     // a launch was accepted
  bool api_answered = false;  // any declared operation got an HTTP response

  // Marks a milestone now (the first time only); `requested` is reset by each launch attempt.
  void mark(milestone m, run_clock::time_point now);
  [[nodiscard]] nlohmann::json to_json() const;
};

// A declared operation's response, as a check saw it (its raw body cut to its first 16 KiB, as evidence is).
struct observed {
  operation_id op = operation_id::unknown;
  call_result result;
};

struct context {
  const provider_spec& spec;
  neograde::session& session;  // the run's: its id, accounts, key, HTTP options and spend ledger
  const run_options& opts;
  provider_client& client;
  provider_client* second = nullptr;  // the second account, when --second-api-key was given
  std::function<void(check_outcome)> emit;
  nlohmann::json& measurements;
  error_oracle errors;                                         // the spec's error conventions, compiled once
  std::vector<observed> seen;                                  // every declared operation's response, for the scanning checks
  std::vector<std::pair<std::string, exchange>> status_words;  // every status word read, with where
  std::string ssh_key_name;                                    // the run's SSH key, when the API has SSH keys and spending is allowed
  std::string ssh_key_id;
  const std::string& public_key;             // the session's: what register_key registers
  const std::filesystem::path& private_key;  // the session's: its private half's file, with --remote-exec
  nlohmann::json* hardware = nullptr;        // run_report::hardware
  const spend_permission& spend;             // the session's: may the run create instances and keys (after its pre-check)
  run_clock& clock;                          // the session's: real, virtual (tests) or a replay's
  // schema.instance.status_in_vocabulary failed the moment an undocumented word was read, so that
  // the finding stands even if the run is stopped before its end-of-run checks.
  bool vocabulary_failed = false;
  dx_timeline dx;
  lifecycle_record lifecycle;  // what the lifecycle's driver saw, step by step (its checks' only input)
  // The checks whose needs this run does not meet (their catalogue rows, needs.hpp), with the
  // skip's reason: decided once by the runner, before any check runs.
  std::map<std::string, std::string> inapplicable;

  // The skip of check `id` when the run does not meet its needs, else nullopt.
  [[nodiscard]] std::optional<check_outcome> unmet(const std::string& id) const;
  // Whether check `id` is to be judged; when not, its skip is emitted.
  [[nodiscard]] bool applies(const std::string& id);

  // The emulator's time scale (1 against real providers), and whether the target is an emulator:
  // the session's, read where they are.
  [[nodiscard]] double scale() const { return session.time_scale(); }
  [[nodiscard]] bool emulated() const { return session.emulated(); }
  [[nodiscard]] run_clock::time_point now() const { return clock.now(); }
  // Waits, noticing a stop request (SIGINT/SIGTERM) within a tenth of a second.
  void sleep(std::chrono::milliseconds d) const { sleep_unless_stopped(clock, d); }
  [[nodiscard]] double seconds_since(run_clock::time_point t) const { return std::chrono::duration<double>(now() - t).count(); }

  // A duration from the spec, in seconds of provider time, as wall-clock time for this target.
  [[nodiscard]] std::chrono::milliseconds scaled(double seconds) const { return provider_time(seconds, scale()); }
  [[nodiscard]] std::chrono::milliseconds poll_interval() const {
    return provider_time(spec.timing.poll_interval_s, scale(), std::chrono::milliseconds(5));
  }
  // poll_until on the run's clock, a poll interval between looks (a stop request is noticed).
  template <class Look>
  auto poll_until(run_clock::time_point deadline, Look&& look) const {
    return neograde::poll_until(clock, deadline, look, [this] { sleep(poll_interval()); });
  }
  [[nodiscard]] std::string prefix() const { return session.prefix(); }
  // An operation's path with the spec's fixed variables and placeholder ids that name nothing.
  [[nodiscard]] std::string path_of(const operation_spec& op) const {
    template_vars vars;
    for (const auto& [k, v] : spec.variables) vars[k] = v;
    // A tag too (terminate_tagged's {tag}): a bulk delete by a tag no instance carries.
    for (const char* k : {"id", "instance_type", "region", "tag"}) vars.emplace(k, "neograde-none-" + session.run_id());
    return render_path(op.path, vars);
  }
};

[[nodiscard]] check_outcome make(std::string id, outcome result, std::string reason, std::vector<exchange> evidence = {});

// A check that does not apply to this provider or run (the API lacks the operation, no second
// account was given): skipped, with a reason starting "not applicable: ".
[[nodiscard]] check_outcome not_applicable(std::string id, const std::string& why);

// The result of a request a check sends wrong on purpose, its evidence marked with `what` ("without
// credentials"), so that a reader, and a validator between us and the API, can tell it from ours.
[[nodiscard]] call_result deliberately(call_result r, std::string what);

// Why a status word is not documented (not in the spec's states; absent without absent_status),
// or nullopt when it is.
[[nodiscard]] std::optional<std::string> undocumented_status(const provider_spec& spec, const std::string& word);

// fail unless the response is a 4xx (the common shape of "X MUST be answered with 4xx"); the
// request is one sent wrong on purpose, and its evidence is marked with `what` if not yet marked.
[[nodiscard]] check_outcome expect_4xx(std::string id, const call_result& r, const std::string& what);

// Why a response is not a well-formed error of this provider (content type, envelope), if it is not.
[[nodiscard]] std::optional<std::string> envelope_problem(const call_result& r, const context& ctx);

[[nodiscard]] bool is_client_error(const call_result& r);

// The offer row the run launches (select_offer: GPU, with capacity, priced, pinned, cheapest);
// `refused` lists the keys of rows already refused for capacity. (The runner records the first
// selection, with why, in the results header.)
[[nodiscard]] std::optional<offer> launchable_offer(context& ctx, const std::vector<std::string>& refused = {});

// The template variables a launch of `target` sends with the run's SSH key and public key, as
// the client builds them; without a target, no instance type.
[[nodiscard]] template_vars launch_vars_for(const context& ctx, const std::optional<offer>& target);

// --remote-exec on the running instance: waits for SSH, copies and runs neograde-gpu-smoke,
// and returns the hardware record (never throws; problems are recorded in it).
[[nodiscard]] nlohmann::json run_remote_smoke(context& ctx, const instance& running);
// The hardware record of a fixture smoke document (run_options::hardware_fixture) for the instance.
[[nodiscard]] nlohmann::json fixture_hardware(const instance& running, const nlohmann::json& smoke);

// Who owns the running instance's address (address_owner.cpp): an RDAP lookup where the run's
// options allow one, into the measurements and the hardware record.
void record_address_owner(context& ctx, const instance& running);

// Negative inputs (checks_inputs.cpp): broken bodies to every operation that takes one (the
// 4xx answers go to `samples`), and a body per request-schema constraint.
void broken_bodies(context& ctx, std::vector<call_result>& samples);
void schema_constraints(context& ctx);

// Terminates every instance of the run (the ledger's, and any listed under the run's name prefix)
// and confirms each gone within the spec's time to gone, as the run's teardown does.
[[nodiscard]] teardown_result terminate_run_instances(context& ctx);

void run_request_checks(context& ctx);
void run_lifecycle(context& ctx);
void run_rate_limit_probe(context& ctx);
void run_observed_checks(context& ctx);
// Keeps the status words a declared get or list answered, and decides
// schema.instance.status_in_vocabulary the moment an undocumented one is read.
void read_statuses(context& ctx, operation_id op, const call_result& r);

}  // namespace neograde::conformance::detail
