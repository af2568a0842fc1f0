#pragma once
// Billing honesty (issue 22): the lifecycle reads the billing its spec declares before the launch,
// once the instance runs and after teardown, and decides billing.instance.stops_after_terminate and
// billing.instance.duration_consistent from the readings and the lifecycle's timestamps. The reads
// are GETs (or a GraphQL query) that cost nothing, made only in runs that launch anyway.

#include "context.hpp"

#include <neograde/core/billing.hpp>

#include <set>

namespace neograde::conformance::detail {

class billing_watch {
 public:
  using time_point = run_clock::time_point;

  explicit billing_watch(context& ctx);

  // Before the launch: the reading charges are measured from.
  void before_launch();
  // A read of the lifecycle's instance that saw it not yet running, `read_from` being the earliest
  // the provider can have answered it: billing from running cannot have started before.
  void not_running(time_point read_from);
  // Once the instance runs: the reading the duration is judged by (scope account) or first
  // judged by (scope instance).
  void running(const std::string& id, const offer& order, time_point launch_requested);
  // Just before the lifecycle's instance is terminated: the reading its deposit's return is
  // measured from (where the spec declares a deposit).
  void before_terminate();
  // A launch refused for lack of funds although the balance read before it covered the launch's
  // deposit and an hour of its offer: why it did, or nullopt (no balance read, or too low).
  [[nodiscard]] std::optional<std::string> funds_were_available(const offer& order) const;
  [[nodiscard]] exchange before_launch_evidence() const { return before_ ? before_->evidence : exchange{}; }
  void terminating(time_point sent);
  // After the teardown: decides both checks.
  void torn_down();
  // Decides what is not yet decided (the run ended before), and writes the readings.
  void finish(outcome result, const std::string& reason);

 private:
  struct reading {
    std::string phase;
    time_point at;  // when the answer was in: the figures are no later than this
    std::string at_utc;
    billing_figures figures;
    exchange evidence;
    std::string problem;  // why the read gave nothing, if it did not
  };

  reading read(const std::string& phase);
  // The charges between two readings of the amount (by how it moves), less what the account's
  // spend rate before the launch accounts for.
  [[nodiscard]] double charged_between(const reading& from, const reading& to) const;
  [[nodiscard]] double provider_seconds(time_point from, time_point to) const;
  [[nodiscard]] double tolerance() const;
  bool unmet(const char* id);
  [[nodiscard]] std::optional<std::string> generated_before_terminate(const reading& r) const;
  void others_gone();
  void stops(const reading& after);
  void deposit_returned(const reading& after);
  void duration_at(const reading& r, const std::string& when);
  void emit(check_outcome o);

  context& ctx_;
  std::optional<billing_spec> spec_;
  std::set<std::string> decided_;
  std::vector<reading> readings_;
  std::optional<reading> before_, at_running_, before_terminate_;
  std::string id_;
  std::optional<double> price_;
  std::optional<time_point> requested_, not_running_, terminate_sent_;
  bool duration_failed_ = false;
};

}  // namespace neograde::conformance::detail
