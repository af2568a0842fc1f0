#pragma once
// Many runs into one scorecard per provider, and two sets of scorecards compared.

#include <neograde/reports/scorecard.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace neograde::reports {

// The runs of each provider and source (as their headers say), each group in start order
// (started_at; stable). Ordered by provider id, then source.
[[nodiscard]] std::map<std::pair<std::string, std::string>, std::vector<const run_record*>> runs_by_provider_and_source(
    const std::vector<run_record>& runs);

// One scorecard per provider and source (emulated, live, replay are never mixed). Runs of the
// same provider and source are merged in start order: each check keeps its latest outcome, so a
// conformance run and a fuzz run combine, and a repeated run replaces the earlier one. The card
// gets `runs` (how many were merged) and `flaky_checks` (checks whose outcome differed between
// them). Ordered by provider id, then source.
[[nodiscard]] std::vector<scorecard> merge_scorecards(const std::vector<run_record>& runs);

// merge_scorecards one run at a time: keeps, per provider and source, only what the merged card
// needs (each check's latest outcome, the outcomes seen, the latest header, footer, hardware and
// measurements), so that a report over thousands of runs holds one run and the cards. The runs
// may come in any order: start order (started_at, then arrival) decides what is latest.
class run_merger {
 public:
  run_merger();
  ~run_merger();
  run_merger(const run_merger&) = delete;
  run_merger& operator=(const run_merger&) = delete;
  void add(const run_record& run);
  void add(run_record&& run);  // the same, moving what it keeps out of `run`
  [[nodiscard]] std::size_t runs() const { return arrivals_; }
  [[nodiscard]] std::vector<scorecard> cards() const;

 private:
  struct group;
  std::map<std::pair<std::string, std::string>, group> groups_;
  std::size_t arrivals_ = 0;
};

// How a check's outcome moved between two reports.
struct outcome_change {
  std::string provider;  // provider id
  std::string source;
  std::string check_id;       // empty for a change of the whole card (tier)
  std::string before, after;  // outcomes (or tiers); empty when absent on that side
  std::string kind;           // regression, improvement, changed, added, removed
  std::string reason;         // the new outcome's reason
};

// Compares cards matched by provider and source. A regression is a graded outcome that got worse
// (pass -> warn -> fail) or a tier that fell; an improvement the reverse; anything else that
// differs (skipped, errored, provider conditions) is "changed". Ordered by provider, then check.
[[nodiscard]] std::vector<outcome_change> diff_scorecards(const std::vector<scorecard>& before, const std::vector<scorecard>& after);

}  // namespace neograde::reports
