#pragma once
// Whether and how much a run may spend. On loopback (the emulator) the --allow-spend flag
// decides; anywhere else it takes both --allow-spend and NEOGRADE_LIVE=1 in the environment, so
// that no flag copied from a script or a shell history can spend money by itself. Every library
// that creates resources asks this, not only the CLI: provider_client sends no create request
// that its spend_ledger did not admit.

#include <neograde/core/spec.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neograde {

struct spend_permission {
  bool allowed = false;
  std::string refusal;     // why not, for the reason of a skipped check; empty when allowed
  bool read_only = false;  // refused because the run is a read-only audit (conformance --read-only)
};

// The refusal of a read-only audit (session_options::read_only): the run creates nothing, even
// where it would cost nothing, and the checks that would create something are not run.
inline constexpr const char* read_only_refusal = "not run: read-only audit";
[[nodiscard]] spend_permission read_only_permission();

// Why a check that does `what` ("launches an instance") is skipped under `p`: "launches an
// instance: <refusal>", or for a read-only audit "not run: read-only audit (launches an instance)".
[[nodiscard]] std::string spend_skip_reason(const spend_permission& p, const std::string& what);

// `treat_as_live`: apply the rules of a remote host to a loopback one (testing live mode).
[[nodiscard]] spend_permission spend_permission_for(const std::string& base_url, bool allow_spend_flag, bool treat_as_live = false);
// Whether live mode's rules apply: any non-loopback target, or `treat_as_live`.
[[nodiscard]] bool is_live_target(const std::string& base_url, bool treat_as_live);
// The --allow-spend a command runs with: as given, and always on a target that is not live (a
// loopback emulator, where nothing costs money). Every command applies this one rule, so that a
// results header and its footer agree on whether spending was allowed.
[[nodiscard]] bool effective_allow_spend(const std::string& base_url, bool allow_spend_flag, bool treat_as_live);

// The environment variable a live run needs besides --allow-spend.
inline constexpr const char* live_opt_in_env = "NEOGRADE_LIVE";

struct spend_budget {
  int max_instances = 1;       // instances a run may create, all launches counted
  double max_spend_usd = 5.0;  // the estimated cost of all of them together
};

// What live mode adds: a budget, a journal, teardown that confirms. Live is any non-loopback
// target, or a loopback one with --treat-as-live (how the rules themselves are tested).
struct live_rules {
  bool live = false;
  spend_budget budget;
  std::filesystem::path journal;           // the append-only journal (journal.hpp); live only
  double billed_seconds_per_instance = 0;  // how long one instance is expected to be billed
};

// How long one instance is expected to be billed, for the budget, in provider time: its time to
// running, a quarter of an hour of work while it runs (plus `extra_hold_s`, e.g. --remote-exec's
// SSH wait and smoke test), and its time to gone. The one estimate every command budgets with.
[[nodiscard]] double billed_seconds_estimate(double time_to_running_s, double time_to_gone_s, double extra_hold_s = 0);
// The same for a provider: an instance cannot be terminated before the spec's minimum runtime,
// is billed at least the billing minimum (billing.increment.minimum_s), and a started increment
// is billed whole.
[[nodiscard]] double billed_seconds_estimate(const provider_spec& spec, double extra_hold_s = 0);

// Why live mode's budget refuses one more instance of `what`, estimated at `estimate_usd`
// (nullopt: no price known), after `launched` instances committing `committed_usd`; nullopt when
// it fits. The ledger's rule, also for predicting it (neograde preflight).
[[nodiscard]] std::optional<std::string> budget_refusal(const live_rules& rules, int launched, double committed_usd,
                                                        std::optional<double> estimate_usd, const std::string& what);

class journal;
enum class journal_event;

// The run's account of what it creates. Thread-safe.
class spend_ledger {
 public:
  // Opens the journal when live (throws std::runtime_error when it cannot).
  spend_ledger(spend_permission permission, live_rules rules, std::string run_id, std::string provider, std::string base_url);
  ~spend_ledger();
  spend_ledger(const spend_ledger&) = delete;
  spend_ledger& operator=(const spend_ledger&) = delete;

  [[nodiscard]] const spend_permission& permission() const { return permission_; }
  [[nodiscard]] bool live() const { return rules_.live; }
  [[nodiscard]] const live_rules& rules() const { return rules_; }
  [[nodiscard]] const std::string& run_id() const { return run_id_; }

  // Prices seen in offer listings: the estimate of a launch of that type.
  void note_price(const std::string& instance_type, double price_per_hour_usd);
  // The cost one more instance of this type is estimated at (live rules), when a price is known:
  // its own price, else the highest price seen.
  [[nodiscard]] std::optional<double> estimate_usd(const std::string& instance_type) const;
  // The highest hourly price seen in offer listings, if any.
  [[nodiscard]] std::optional<double> highest_price() const;

  // Before a create request: the reason it must not be sent, or nullopt. Admitting journals the
  // intent (live), before anything is sent.
  [[nodiscard]] std::optional<std::string> admit(const std::string& name, const std::string& instance_type);
  // Whether admit() would refuse right now (without journaling anything).
  [[nodiscard]] std::optional<std::string> would_refuse(const std::string& instance_type) const;
  // After the response: the id (empty when the response named none); the create is counted.
  void created(const std::string& name, const std::string& id);
  // A create answered without an id whose id was found later (by its name in the list).
  void identified(const std::string& name, const std::string& id);
  // The provider answered the create with an error: nothing was created.
  void refused(const std::string& name, const std::string& detail);
  // No answer (transport error): it may exist; counted, and left to teardown and sweep by name.
  void unanswered(const std::string& name, const std::string& detail);
  // A follow-up step of the create of `id` was answered (multi-step creation): `detail` names the
  // step, its answer and what it bound; what it made is torn down with the instance.
  void step(const std::string& id, const std::string& name, const std::string& detail);
  void terminating(const std::string& id, const std::string& name);
  void deleted(const std::string& id, const std::string& name);
  void leaked(const std::string& id, const std::string& name, const std::string& detail);

  struct created_instance {
    std::string name;
    std::string id;  // empty when the provider named none
    bool deleted = false;
  };
  [[nodiscard]] std::vector<created_instance> instances() const;
  [[nodiscard]] int launched() const;
  [[nodiscard]] double committed_usd() const;

 private:
  // Appends to the journal (live only); throws when it cannot. record() is for the events after
  // a request: it never throws, since the intent before it is already on disk.
  void write(journal_event event, const std::string& name, const std::string& id, const std::string& type, const std::string& detail);
  void record(journal_event event, const std::string& name, const std::string& id, const std::string& type,
              const std::string& detail) noexcept;
  // Counts a create that may exist (answered or not) and returns its instance type.
  std::string count_locked(const std::string& name, const std::string& id);
  std::optional<std::string> refusal_locked(const std::string& instance_type) const;
  std::optional<double> estimate_locked(const std::string& instance_type) const;
  std::optional<double> highest_price_locked() const;

  spend_permission permission_;
  live_rules rules_;
  std::string run_id_, provider_, base_url_;
  std::unique_ptr<journal> journal_;
  mutable std::mutex mu_;
  std::map<std::string, double> prices_;
  std::map<std::string, std::string> pending_type_;  // name -> instance type, between admit and answer
  std::vector<created_instance> created_;
  int launched_ = 0;
  double committed_ = 0;
};

// The base URL as journaled: scheme, host, port and path; no user info, query or fragment.
[[nodiscard]] std::string journal_origin(const std::string& base_url);

}  // namespace neograde
