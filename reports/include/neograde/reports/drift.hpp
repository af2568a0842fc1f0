#pragma once
// Contract drift (issue 40.3): how a provider's answers changed between its runs. Each run keeps
// the contract it met (core/contract_shape.hpp, the footer measurement contract_shape) and the
// catalogue it read (offer_selection); the latest run is compared with the runs before it:
//   field_vanished   a field the previous run's answers had, absent now while its parent is there
//                    (and the last three runs had it wherever they had its parent: a field that
//                    comes and goes with the instance's state is no contract)
//   field_appeared   a field no earlier run's answers had, under a parent they had
//   field_type_changed a field read now only with JSON types no earlier run read it with (null aside)
//   status_word_new  an instance status word no earlier run read
//   status_new       an HTTP status an operation never answered before (4xx, or 2xx/3xx; not 5xx or 429)
//   operation_gone   an operation that answered with success, and never 404 or 410, now answers 404 or 410 only
//   operation_moved  ... and never a redirect, now answers a redirect (301, 302, 307, 308) only
//   price_jump       the cheapest launchable row's price moved beyond the threshold
//   capacity_jump    the rows with capacity advertised moved beyond the threshold
// Runs without the measurement (older ones) compare nothing of it. Drift is not graded: it is
// reported beside the checks (neograde diff, the report's reliability section), never scored.

#include <neograde/reports/compare.hpp>
#include <neograde/reports/results.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace neograde::reports {

struct drift_thresholds {
  double price_percent = 20;     // of the earlier price
  double capacity_percent = 25;  // of the earlier count of rows with capacity (at least one row)
};

struct contract_drift {
  std::string provider, source;
  std::string kind;       // one of the kinds above
  std::string operation;  // the operation (list_offers, get, ...); "" for status words and the catalogue
  std::string subject;    // the field (a JSON pointer, "*" for items), the word, the status, or the figure
  std::string before, after;
  std::string since_run, since_started_at;  // the earlier run compared with (for a new word or field: the latest before)
  std::string run, started_at;              // the later run
  // One sentence: "field /instances/*/ip vanished from get (present in run r1, 2026-12-01T...)".
  [[nodiscard]] std::string text() const;
};
void to_json(nlohmann::json& j, const contract_drift& d);

// The drift of `later` against `earlier` (the runs before it of the same provider and source,
// oldest first).
[[nodiscard]] std::vector<contract_drift> drift_between(const std::vector<const run_record*>& earlier, const run_record& later,
                                                        const drift_thresholds& t = {});

// Per provider and source in `after`: its latest run against every run of `before` with that
// provider and source, and the runs of `after` before it. With before empty, a history's latest
// runs against the runs before them. Ordered by provider, source, then kind.
[[nodiscard]] std::vector<contract_drift> diff_drift(const std::vector<run_record>& before, const std::vector<run_record>& after,
                                                     const drift_thresholds& t = {});

// As a change of `neograde diff`: kind "drift", check_id "drift.<kind>", the sentence as reason.
[[nodiscard]] outcome_change as_change(const contract_drift& d);

}  // namespace neograde::reports
