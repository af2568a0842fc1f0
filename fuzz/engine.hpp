#pragma once
// Shared by the generators, the sequences and the campaign; not part of the public interface.

#include <neograde/clients/oracles.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/session.hpp>
#include <neograde/fuzz/api_fuzzer.hpp>

#include <rapidcheck.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace neograde::fuzz::detail {

// What a request should get: accepted (positive data), rejected with 4xx (negative data), or
// either (data the schema allows but the provider may refuse); never a 5xx in any case.
enum class expectation { accept, reject, any };

// One generated request.
struct request_case {
  std::string generator;                    // what produced it, e.g. "body_missing_required_field"
  std::string operation;                    // the operation it exercises: "launch", "get", "unknown_path", ...
  operation_id op = operation_id::unknown;  // read the response as this operation's
  std::string method;
  std::string path;  // relative to the base URL, query included
  std::string body;
  std::string content_type;
  auth_mode auth = auth_mode::key;
  expectation expect = expectation::any;
  std::string note;  // what makes it what it is: "/name is 4096 characters"
};
std::ostream& operator<<(std::ostream& os, const request_case& c);

// An oracle that did not hold.
struct violation {
  std::string oracle;  // server_error, negative_accepted, ... (fuzz.<oracle>)
  std::string operation;
  int status = 0;  // 0: no response
  std::string message;
  exchange evidence;
  long detected_after = 0;  // the campaign's requests when it was first seen, before shrinking
  [[nodiscard]] std::string status_class() const;
  [[nodiscard]] std::string signature() const { return operation + "|" + oracle + "|" + status_class(); }
};

// Thrown out of a sequence when an oracle fails, and when the request budget is spent.
struct violation_error {
  violation v;
};
struct budget_spent {};

// The API under fuzz: clients for one or two accounts, the budget, the pacing, and the oracles
// that apply to every response. A campaign on several connections (fuzz_options::connections)
// has one target per connection, a lane: each with clients of its own and a name prefix of its
// own under the run's, sharing the budget, the pacing and the instance count.
class target {
 public:
  // Sets the session's HTTP options (budget and pacing hook, no transcript) and makes its clients.
  target(neograde::session& s, const fuzz_options& options);
  // Lane `lane` of a campaign on several connections: new clients on connections of their own.
  target(target& main, int lane);

  [[nodiscard]] const provider_spec& spec() const { return spec_; }
  [[nodiscard]] const fuzz_options& options() const { return opts_; }
  [[nodiscard]] neograde::session& session() const { return session_; }
  [[nodiscard]] provider_client& primary() { return *primary_; }
  [[nodiscard]] provider_client* second() { return second_; }
  [[nodiscard]] bool loopback() const { return loopback_; }
  [[nodiscard]] bool may_launch() const;  // spending allowed and instances left under the cap
  void count_launch() { ++shared_->launched; }
  [[nodiscard]] int launched() const { return shared_->launched; }
  // What this target names what it creates with: the run's prefix, and a lane's mark after it.
  [[nodiscard]] const std::string& prefix() const { return prefix_; }
  [[nodiscard]] std::string fresh_name(const std::string& what) { return prefix_ + what + std::to_string(++names_); }

  [[nodiscard]] long requests() const { return shared_->requests; }
  [[nodiscard]] bool spent() const;                  // the request budget or the duration is used up
  void unlimited() { shared_->unlimited = true; }    // teardown: no budget, still paced
  void stop_requests() { shared_->stopped = true; }  // another lane failed: no lane sends more

  // A line of progress while the campaign waits (a sequence's pause, an action's effect): at most
  // one a minute, so that a campaign on a provider's own timings never looks hung (one on Gcore's
  // spent 25 minutes in such waits without a word).
  void waiting(const std::string& what);

  // The clock sequences wait on: the session's.
  [[nodiscard]] run_clock& clock() const { return session_.clock(); }

  // A declared operation's time in provider seconds, as wall-clock time on this target.
  [[nodiscard]] std::chrono::milliseconds scaled(double seconds) const;

  // The oracles every response is held to, for a request with this expectation.
  [[nodiscard]] std::optional<violation> judge(const std::string& operation, operation_id op, const call_result& r,
                                               expectation expect) const;
  // Sends a generated request and judges the response.
  [[nodiscard]] std::pair<call_result, std::optional<violation>> send(const request_case& c);

  // Request outcomes, for the throughput report: [accepted, rejected at the door, reached logic].
  void tally(const call_result& r, const std::string& generator);
  // An action's effect a sequence read and found (a stop, a start, a delete by tag, an offer walk
  // that ended), for the report: that the oracles on effects ran, not only that nothing failed.
  void count_effect(const std::string& what) { ++tally_["effect:" + what]; }
  // Adds a lane's tallies and created instances to this (the main) target's.
  void absorb(const target& lane);
  [[nodiscard]] nlohmann::json tallies() const;

  // Offer rows to launch with (type, region and the row's launch parameters).
  std::vector<offer> offers;
  std::string ssh_key_name;          // the run's SSH key, when launches need one
  std::string ssh_key_id;            // ... and its id, for launches that name keys by id
  std::vector<std::string> created;  // ids of every instance a launch returned, for teardown

 private:
  // What the lanes of a campaign share; the request hook of every client counts here.
  struct shared_state {
    std::atomic<long> requests = 0;
    std::atomic<int> launched = 0;
    std::atomic<bool> unlimited = false;
    std::atomic<bool> stopped = false;
    std::mutex pacing;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point next_slot = started;
    std::mutex progress;
    std::optional<std::chrono::steady_clock::time_point> last_progress;
  };
  void before_attempt();
  neograde::session& session_;
  const provider_spec& spec_;
  const fuzz_options& opts_;
  bool loopback_ = false;
  std::shared_ptr<const error_oracle> errors_;
  std::shared_ptr<const std::map<operation_id, json_schema>> response_schemas_;
  std::shared_ptr<shared_state> shared_;
  std::unique_ptr<provider_client> own_primary_, own_second_;  // a lane's
  provider_client* primary_ = nullptr;
  provider_client* second_ = nullptr;
  std::string prefix_;
  int names_ = 0;
  double interval_s_ = 0;
  std::map<std::string, long> tally_;
};

// One of several generators, each picked in proportion to its weight: RapidCheck's
// weightedOneOf for a list built at run time (it takes an initializer list). The pick is
// uniform whatever the generation size (RapidCheck scales ranges by size).
template <class T>
rc::Gen<T> weighted(std::vector<std::pair<std::size_t, rc::Gen<T>>> gens) {
  std::size_t total = 0;
  for (const auto& [w, g] : gens) total += w;
  auto shared = std::make_shared<const decltype(gens)>(std::move(gens));
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, total)), [shared](std::size_t pick) {
    for (const auto& [w, g] : *shared) {
      if (pick < w) return g;
      pick -= w;
    }
    return shared->back().second;
  });
}

// The request generators for every operation of the spec (positive and negative data).
[[nodiscard]] rc::Gen<request_case> request_cases(target& t);

// The result of running one stateful sequence: a violation, or nothing.
struct sequence_run {
  std::optional<violation> found;
  std::string steps;      // the commands, one per line
  bool complete = false;  // false when the budget ran out or the instance cap stopped it
};

// Generates a sequence from `random`, runs it (or a shrink of it) and cleans up what it made.
class sequences {
 public:
  explicit sequences(target& t);
  ~sequences();
  [[nodiscard]] bool available() const;
  // Runs one generated sequence; when it fails, shrinks it with at most `shrink_runs` re-runs,
  // keeping candidates that fail with the same signature. Generates and shrinks under `rc_mu`.
  [[nodiscard]] sequence_run run_one(const rc::Random& random, int size, int shrink_runs, std::mutex& rc_mu);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Terminates every instance whose name starts with the run's prefix and deletes the run's SSH
// keys; returns the ids that could not be cleaned up.
std::vector<std::string> teardown(target& t);

}  // namespace neograde::fuzz::detail
