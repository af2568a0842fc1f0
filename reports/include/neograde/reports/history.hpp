#pragma once
// Reliability over time: a history folder of runs appended by date, the figures computed over it
// per provider and source (launch success, refusals, timing percentiles, API availability, checks
// that flip, contract drift), rendered as Markdown, JSON (reports/reliability.schema.json) and an HTML section with
// a trend chart per provider, and compared between two histories by `neograde diff`.
//
// Layout (reports/README.md, History):
//   HISTORY/<provider>/<source>/<YYYYMMDD>T<HHMMSS>Z-<run_id>/results.jsonl
// one directory per run, named by its header's started_at (UTC) so that a listing sorts by date.

#include <neograde/reports/compare.hpp>
#include <neograde/reports/drift.hpp>
#include <neograde/reports/results.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neograde::reports {

// Appends every complete run of a results file to the history, each in its own new directory
// (written as a temporary directory, synced, then renamed into place, so that a reader never sees
// half a run). Never overwrites: a run already in the history (same directory name) is left as it
// is and reported in `skipped`. A run without a footer (interrupted) is not appended, and said so.
// Throws config_error when the file cannot be read or the history cannot be written.
struct history_append {
  std::vector<std::filesystem::path> added;  // the new run directories
  std::vector<std::string> skipped;          // one line each: which run, and why
};
[[nodiscard]] history_append add_to_history(const std::filesystem::path& history, const std::filesystem::path& results_file);

// Every run in a history, oldest first (by started_at). A directory without a readable
// results.jsonl, a run without a header or footer, or unreadable lines, are skipped with a note,
// never fatal. Throws config_error only when `history` is not a directory.
struct history_contents {
  std::vector<run_record> runs;
  std::vector<std::string> notes;
};
[[nodiscard]] history_contents read_history(const std::filesystem::path& history);

// The same runs one at a time, in the order of their files' paths (by provider, source and date),
// so that a report over a long history need not hold every run: returns the notes. Throws
// config_error only when `history` is not a directory.
std::vector<std::string> for_each_history_run(const std::filesystem::path& history, const std::function<void(run_record&&)>& each);

// Orders runs by started_at, oldest first, keeping the order of runs that started together (what
// read_history does after reading).
void sort_by_start(std::vector<run_record>& runs);

// What compute_reliability and the contract drift read of a run, and nothing else: the header's
// provider, display_name, source, started_at and run_id; each outcome's check_id and outcome; the
// footer's finished_at and its developer_experience, contract_shape and offer_selection
// measurements. The figures computed over these views are those computed over the whole runs; a
// year of history held this way is a small part of its size.
[[nodiscard]] run_record reliability_view(const run_record& run);

// p50 and p95 of one timing over the runs that measured it: nearest rank (the value at rank
// ceil(p/100 * n) of the n values sorted ascending), so each is a value some run measured.
struct timing_summary {
  int samples = 0;
  std::optional<double> p50, p95;
};
[[nodiscard]] std::optional<double> nearest_rank(std::vector<double> values, double percentile);

// A check whose graded outcome changed between consecutive runs that decided it.
struct flipping_check {
  std::string check_id;
  int flips = 0;                        // changes between consecutive runs
  std::map<std::string, int> outcomes;  // outcome -> runs
};

// One run on the trend chart.
struct trend_point {
  std::string run_id;
  std::string started_at;
  std::optional<bool> launch_succeeded;  // none: no developer_experience, or no launch attempted
  int refused = 0;                       // launch attempts refused (capacity, quota, funds, error)
  std::optional<double> time_to_running_s, time_to_ssh_s, time_to_first_kernel_s;
};

// The reliability figures of one provider and source (emulated, live and replay never mixed).
// Rates are fractions in [0, 1]; none when no run could say.
struct reliability {
  std::string provider;
  std::string display_name;
  std::string source;
  int runs = 0;
  std::string first_started_at, last_started_at;
  int dx_unknown = 0;                         // runs without the developer_experience measurement
  int launch_runs = 0;                        // runs that attempted a launch (launch_attempts >= 1)
  int launch_succeeded = 0;                   // of those, runs whose launch was accepted
  std::optional<double> launch_success_rate;  // launch_succeeded / launch_runs
  int launch_attempts = 0;                    // attempts over the launch runs
  std::map<std::string, int> refused;         // capacity, quota, funds, error -> attempts refused
  std::optional<double> refusal_rate;         // refused attempts / attempts
  int api_answered = 0;                       // runs in which the API answered at all
  std::optional<double> api_availability;     // api_answered / runs
  timing_summary time_to_running_s, time_to_ssh_s, time_to_first_kernel_s;
  std::vector<flipping_check> flipping;  // ordered by flips (most first), then id
  std::vector<trend_point> trend;        // oldest first
  // The latest run's contract against the runs before it (reports/drift.hpp), default thresholds.
  std::vector<contract_drift> drift;
};

// The figures per provider and source, ordered by provider id then source. Reads records as data:
// a missing or wrong-typed field is unknown, never an exception.
[[nodiscard]] std::vector<reliability> compute_reliability(const std::vector<run_record>& runs);

// The runs of a report over a long history, kept for compute_reliability as their
// reliability_view in CBOR (a few kilobytes a run), grouped by provider and source, in the order
// added. figures() decodes one group at a time: the same figures as compute_reliability over the
// runs themselves, with only one provider's runs in memory at once.
class reliability_runs {
 public:
  void add(const run_record& run);
  [[nodiscard]] std::size_t size() const { return runs_; }
  [[nodiscard]] std::vector<reliability> figures() const;

 private:
  std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::uint8_t>>> groups_;
  std::size_t runs_ = 0;
};

void to_json(nlohmann::json& j, const reliability& r);

// The reliability document (reports/reliability.schema.json): {"reliability_version": 1, "providers": [...]}.
[[nodiscard]] nlohmann::json reliability_document(const std::vector<reliability>& all);

// "## Reliability over time" with a table of every provider and, per provider, its flipping checks.
[[nodiscard]] std::string render_reliability_markdown(const std::vector<reliability>& all);

// The HTML section (<section id="reliability">), a table and one inline SVG trend chart per
// provider; everything escaped, no script, nothing requested. "" when `all` is empty.
[[nodiscard]] std::string render_reliability_html(const std::vector<reliability>& all);
// The index's form of it: the table alone, each provider linked to its history on its own page
// (`links`, by provider and source: provider_history_links of reports/html.hpp), so that the index
// stays small however long the history; the charts, drift and flipping checks are on the pages.
[[nodiscard]] std::string render_reliability_html(const std::vector<reliability>& all,
                                                  const std::map<std::pair<std::string, std::string>, std::string>& links);

// One provider's part of it, for its own page: its figures in a sentence, its trend chart, its
// contract drift and its flipping checks (no heading, no <section>).
[[nodiscard]] std::string render_reliability_provider_html(const reliability& r);

// When a change of the reliability figures is worth reporting (neograde diff --help, reports/README.md).
struct reliability_thresholds {
  double success_rate_points = 10;  // launch success rate, in percentage points
  double refusal_rate_points = 10;  // refusal rate, in percentage points
  double p95_percent = 25;          // a p95 timing, relative to the earlier one
  double p95_seconds = 5;           // ... and by at least this many seconds
};

// Compares figures matched by provider and source. A launch success rate that fell, a refusal rate
// that rose, or a p95 that grew beyond the thresholds is a regression; the reverse an improvement.
// check_id names the figure (reliability.launch_success_rate, reliability.p95.time_to_running_s).
[[nodiscard]] std::vector<outcome_change> diff_reliability(const std::vector<reliability>& before, const std::vector<reliability>& after,
                                                           const reliability_thresholds& t);

// The changes of `neograde diff` as a Markdown summary (a GitHub job summary): counts, the
// thresholds, then a table of the regressions, improvements and other changes.
[[nodiscard]] std::string render_diff_markdown(const std::vector<outcome_change>& changes, const reliability_thresholds& t);

}  // namespace neograde::reports
