#pragma once
// One run against one provider, opened once by every command that talks to it (conformance,
// fuzz, sweep, preflight). The session validates the URL, probes the target once (emulated,
// live or a replay), decides spend permission and the budget with one rule, and owns what the
// run's checks share: the accounts' clients and their spend ledger, the run id and name prefix,
// the SSH key, the clock, the journal, and a cassette being recorded or replayed.

#include <neograde/clients/http.hpp>
#include <neograde/clients/journal.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>
#include <neograde/core/types.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace neograde {

class replayer;
class cassette_writer;

// What a session is for: a run, which creates what its spend rules allow, or a sweep, which
// only terminates (its deletions are journaled as live mode's are, whatever the target).
enum class session_purpose { run, sweep };

struct session_options {
  std::string base_url;
  std::string api_key;
  std::string second_api_key;  // a second account: isolation checks, cross-account sequences
  bool allow_spend = false;    // --allow-spend as given; effective_allow_spend is applied here
  bool read_only = false;      // create nothing, even where it costs nothing (the emulator)
  // Live mode's rules (budget, journal, confirmed teardown) also on loopback: how they are tested.
  bool treat_as_live = false;
  spend_budget budget;  // live mode only
  std::filesystem::path journal = default_journal_path();
  std::string run_id;  // names what the run creates; empty: a new one (run_names.hpp)
  http::client_options http;
  offer_pins pins;  // --instance-type, --region: which offer rows the run may launch
  // Provider time an instance is held beyond billed_seconds_estimate's quarter hour
  // (--remote-exec: its SSH wait and smoke test), for the budget.
  double extra_hold_s = 0;
  // --remote-exec: the private key whose .pub the run registers; "" for a throw-away pair made
  // for the run and deleted with it. Unset: the fixed public key every run registers.
  std::optional<std::filesystem::path> ssh_identity;
  session_purpose purpose = session_purpose::run;
  // Re-grading a cassette: nothing is sent, the cassette's clock is the run's, results are
  // labelled replay. Exclusive with `record`.
  std::shared_ptr<replayer> replay;
  std::filesystem::path record;  // write every exchange after the probe to this cassette
  run_clock* clock = nullptr;    // null: the replay's when replaying, else the real one
};

// How a runner ended when it did not finish its work: one value type for conformance, fuzz and
// sweep, so that the app maps each to an exit code in one place. Bugs are exceptions, not this.
struct run_stop {
  enum class kind {
    target_unusable,  // nothing could be run (session::unusable, as the caller found it)
    signal,           // SIGINT or SIGTERM: what was created was torn down
    bug,              // an exception inside a check: neograde's fault, never the provider's
  };
  kind why = kind::bug;
  std::string message;  // e.g. "stopped by SIGINT after lifecycle.instance.reaches_running"
  int signal = 0;       // with kind::signal
};

class session {
 public:
  // Validates the URL (std::invalid_argument when it is not http(s) with a host), probes the
  // target with one authenticated read unless replaying, and decides the spend rules. A target
  // that cannot be used is not an exception: see unusable().
  session(const provider_spec& spec, session_options options);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  [[nodiscard]] const provider_spec& spec() const { return spec_; }
  [[nodiscard]] const session_options& options() const { return options_; }
  [[nodiscard]] const std::string& base_url() const { return options_.base_url; }
  [[nodiscard]] const std::string& run_id() const { return options_.run_id; }
  [[nodiscard]] std::string prefix() const;  // run_name_prefix(run_id())

  // The probe: the instance list, or the catalogue where there is no list (a read that needs
  // the key where the API has one). Not sent when replaying.
  [[nodiscard]] operation_id probe_operation() const;
  [[nodiscard]] const std::optional<call_result>& probe() const { return probe_; }
  // Set (kind target_unusable) when the probe found the target cannot be used at all:
  // unreachable, a TLS failure, a rejected key.
  [[nodiscard]] const std::optional<run_stop>& unusable() const { return unusable_; }

  // What the results are labelled: replay, or what the target said it is (emulated or live).
  [[nodiscard]] result_source provenance() const;
  // The emulator's time scale (1 against real providers), from the latest answers seen.
  [[nodiscard]] double time_scale() const;
  [[nodiscard]] bool emulated() const;
  // Live mode's rules apply: a non-loopback target, or treat_as_live.
  [[nodiscard]] bool live() const { return rules_.live; }
  [[nodiscard]] const spend_permission& spend() const { return spend_; }
  [[nodiscard]] const live_rules& rules() const { return rules_; }
  [[nodiscard]] run_clock& clock() const { return *clock_; }

  // The SSH key the run registers: its public line, and with --remote-exec its private file.
  [[nodiscard]] const std::string& public_key() const { return public_key_; }
  [[nodiscard]] const std::filesystem::path& private_key() const { return private_key_; }

  // The HTTP options of the run's clients (the cassette's hooks included). configure_http
  // changes them before the first client is made (fuzz: its request budget and pacing).
  [[nodiscard]] const http::client_options& http_options() const { return http_; }
  void configure_http(const std::function<void(http::client_options&)>& change);

  // The accounts' clients, made on first use, sharing the run's spend ledger.
  [[nodiscard]] provider_client& primary();
  [[nodiscard]] provider_client* second();  // null without a second key
  [[nodiscard]] spend_ledger& ledger() { return *ledger_; }
  // Another client of an account (the second with `second_account`; null without a second key),
  // on a connection of its own, for a thread of its own: as the account's client is made, with
  // the run's ledger, and knowing what the account's client has learnt of the target (fuzz
  // --connections).
  [[nodiscard]] std::unique_ptr<provider_client> connection(bool second_account);

  // The offer row the run launches, and why: read once (the run's first request), then kept.
  [[nodiscard]] const offer_selection& selection();

  // Live mode, before the first create: the credentials work, an offer has capacity, its price
  // is known and it fits the budget. When not, spending is withdrawn for the rest of the run.
  void pre_check();

 private:
  void make_ledger();
  [[nodiscard]] std::unique_ptr<provider_client> make_client(const std::string& key) const;
  void withdraw_spend(std::string why);

  const provider_spec& spec_;
  session_options options_;
  http::client_options http_;
  run_clock* clock_ = nullptr;
  std::unique_ptr<run_clock> recording_clock_;  // clock_ while recording: each read noted in the cassette
  std::optional<call_result> probe_;
  std::optional<run_stop> unusable_;
  bool probe_emulated_ = false;
  double probe_scale_ = 1.0;
  spend_permission spend_;
  live_rules rules_;
  std::shared_ptr<spend_ledger> ledger_;
  std::unique_ptr<provider_client> primary_, second_;
  std::optional<offer_selection> selection_;
  std::string public_key_;
  std::filesystem::path private_key_;
  std::filesystem::path key_dir_;  // the throw-away key's directory, removed with the session
};

}  // namespace neograde
