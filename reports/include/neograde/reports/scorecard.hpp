#pragma once
// Scorecards: a graded summary of one run, rendered as JSON and Markdown, and an index of many.
// The grading formula is documented in reports/README.md; the JSON layout in scorecard.schema.json.

#include <neograde/reports/observation.hpp>
#include <neograde/reports/results.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace neograde::reports {

// The card copies a few sub-documents as its records hold them, whose layout is owned elsewhere:
// the spec's transparency, the footer's measurements, the HTTP evidence, the provider's instance
// and the replaced timings. They stay nlohmann::json, which is why this header includes it.

// A number as a record wrote it, so that the card writes it back the same: 0 stays 0 and
// 1812.0 stays 1812.0.
struct json_number {
  std::variant<std::int64_t, std::uint64_t, double> value;
  [[nodiscard]] double as_double() const;
  [[nodiscard]] std::string text() const;  // as JSON writes it
};
void to_json(nlohmann::json& j, const json_number& n);
void from_json(const nlohmann::json& j, json_number& n);

// The provider the run graded, from the results header (which copies the provider spec).
struct scorecard_provider {
  std::string id;
  std::string display_name;
  std::string kind;
  bool fictional = false;
  std::string docs_url;
  std::string api_version;
  nlohmann::json transparency;  // the spec's provider.transparency; null when it says nothing
};

// Outcome name (pass, fail, ...) -> how many checks had it.
using outcome_counts = std::map<std::string, int>;

struct category_summary {
  outcome_counts counts;
  std::optional<double> score;  // none when nothing in the category was graded
};

// One check outcome of the run.
struct check_row {
  std::string check_id;
  std::string category;
  std::string severity;
  std::string requirement;
  std::string outcome;
  std::string reason;
};

// A fail or warn outcome, with what a reader needs to check it.
struct finding_row {
  std::string check_id;
  std::string outcome;
  std::string severity;
  std::string requirement_text;
  std::string check_source;
  std::string reason;
  std::string reproduce;                              // empty when none
  nlohmann::json evidence = nlohmann::json::array();  // the exchanges as recorded (neograde::exchange)
};

struct gpu_measurement {
  std::string name;
  std::optional<json_number> value;
  std::string unit;
  std::optional<json_number> pct_of_datasheet;
  std::string verdict;  // empty for ungraded measurements
};

struct gpu_summary {
  std::optional<json_number> index;
  std::string name;
  std::string sku;
  std::vector<gpu_measurement> measurements;
};

// A failing or amber check of the GPU smoke test.
struct hardware_problem {
  std::string id;
  std::optional<json_number> gpu;  // none for node-wide checks
  std::string verdict;
  std::string message;
};

// The card's view of one --remote-exec hardware record (reports/README.md, Hardware).
struct hardware_summary {
  std::string status;
  std::string reason;
  std::string address;
  std::optional<json_number> time_to_ssh_s;
  nlohmann::json instance;  // as the provider described it; null when not recorded
  std::vector<gpu_summary> gpus;
  std::vector<hardware_problem> problems;
  std::string origin;          // "fixture" for the demo's stand-in record; "" for a measured one
  nlohmann::json fingerprint;  // the smoke record's fingerprint (identities hashed); null when none
};

// One claim of the spec's provider.transparency beside what the runs measured
// (reports/transparency.cpp): consistent, contradicted or unverified, with the evidence.
struct claim_row {
  std::string claim;     // hardware, machine, address, aggregates
  std::string declared;  // "" when the spec does not declare it
  std::string declared_source;
  std::string measured;  // what the evidence shows, in words
  std::string verdict;   // consistent, contradicted, unverified
  std::string evidence;  // where `measured` comes from
};

// Whether the run probed the rate limit (--probe-rate-limit; always on against the emulator), and
// how many 429s it met in its own traffic: without a probe the rate-limit checks judge only those.
struct rate_limit_coverage {
  bool probed = false;
  int met_in_traffic = 0;
};

struct scorecard {
  int scorecard_version = 1;
  scorecard_provider provider;
  std::string spec_version;
  std::string suite_version;
  std::string run_id;
  std::string source;  // emulated, live, replay or unknown, as the results header says
  std::string base_url;
  std::string started_at;
  std::string finished_at;  // empty when the run was interrupted
  bool complete = false;
  // A read-only audit (conformance --read-only): nothing was launched, and the checks that create
  // something were not run; the banner says so. In the card's JSON only when true.
  bool read_only = false;
  // Spec timings the user replaced, each {value, spec}: the run is not comparable with one under
  // the spec's timings.
  nlohmann::json timing_overrides = nlohmann::json::object();
  std::optional<rate_limit_coverage> rate_limit;  // none when the run did not record it (older runs)
  outcome_counts counts;
  std::map<std::string, category_summary> categories;
  std::optional<double> score;  // none when nothing was graded
  std::string tier;
  std::vector<std::string> tier_capped_by;
  int runs = 1;  // neograde report merges runs and says how many
  std::vector<std::string> flaky_checks;
  std::vector<hardware_summary> hardware;
  std::vector<claim_row> transparency_claims;              // every declared claim graded; a contradiction is a finding
  nlohmann::json measurements = nlohmann::json::object();  // the results footer's
  std::vector<check_row> checks;
  std::vector<finding_row> failures;
  std::string provenance;  // provenance_banner() when the card was built
  // People's dated observations of creating an account (neograde report --observations): labelled
  // OBSERVED wherever shown, never measured results, never in the score.
  std::vector<observation> observations;
};

// A document this version cannot read as a scorecard: another scorecard_version, or a key it
// writes missing or of another type. what() names the key by its JSON pointer. Keys it does not
// know are ignored.
struct scorecard_format_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The one JSON mapping of a scorecard, both ways (reports/scorecard_json.cpp). from_json throws
// scorecard_format_error.
void to_json(nlohmann::json& j, const scorecard& card);
void from_json(const nlohmann::json& j, scorecard& card);

// Weighted score, tier and counts of one run.
[[nodiscard]] scorecard build_scorecard(const run_record& run);

// The timings a user replaced for the run (--time-to-running, --time-to-gone), as one line that
// says the run is not comparable with a standard one; "" for a run under the spec's timings.
[[nodiscard]] std::string timing_overrides_summary(const scorecard& card);

// "" when the run probed the rate limit (or did not record whether it did); else one line saying
// it did not, what the rate-limit checks judged instead, and how to probe (--probe-rate-limit).
[[nodiscard]] std::string rate_limit_summary(const scorecard& card);

// The provenance banner every output carries: EMULATED, REPLAY or LIVE, and what that means.
[[nodiscard]] std::string provenance_banner(const scorecard& card);

// The one banner of a page over many cards: a sentence for each source present (EMULATED, REPLAY,
// LIVE, UNKNOWN SOURCE), then what only some cards are, each naming just those providers: fictional
// ones, read-only audits, the base URL and date of each live run, timings a user replaced, rate
// limits not probed, people's observations (OBSERVED). `kind` is the source, or audit, timings,
// ratelimit, observed, fictional; the texts are plain (escape them).
struct banner_line {
  std::string kind;
  std::string text;
};
[[nodiscard]] std::vector<banner_line> sources_banner(const std::vector<scorecard>& cards);
// The banner's lines as one paragraph.
[[nodiscard]] std::string sources_summary(const std::vector<scorecard>& cards);

// The name of a card's files in a report (providers/NAME/, providers/NAME.html, badges/NAME.svg):
// its provider id with anything but [A-Za-z0-9_-] as _, suffixed -live, -replay or -unknown for a
// source other than emulated, so that the sources of one provider never share a file.
[[nodiscard]] std::string report_name(const scorecard& card);

// The spec's transparency metadata in one line ("hardware: owns (source); deprecated: ..."), or
// "" when the spec says nothing.
[[nodiscard]] std::string transparency_summary(const scorecard& card);

// The status a reader knows for one check outcome (reports/README.md, Status): "pass"; "fail" (a
// warn too: a SHOULD missed); "not applicable" (skipped, with a reason that begins "not
// applicable"); "unknown" (errored, a provider condition such as no_capacity, any other skip).
// Reports show the outcome itself beside it wherever the two differ.
[[nodiscard]] std::string check_status(const std::string& outcome, const std::string& reason);
// The status, with the outcome in brackets where they differ: "pass", "fail (warn)", "unknown (rate_limited)".
[[nodiscard]] std::string status_label(const std::string& outcome, const std::string& reason);

// How many of a card's checks have each status; `warn` is how many of the fails are warns.
struct status_counts {
  int pass = 0, fail = 0, warn = 0, not_applicable = 0, unknown = 0;
};
[[nodiscard]] status_counts count_statuses(const scorecard& card);

// The score as JSON writes it (66.7, 100.0), or `none` when nothing was graded.
[[nodiscard]] std::string score_text(const scorecard& card, const char* none = "n/a");

// Provider kinds in the order reports group them, so that a marketplace is never ranked as
// though it were a neocloud: neocloud, marketplace, aggregator, depin, hyperscaler, then anything
// else (an unknown kind, from an older or hand-edited record). `kind_rank` is the position,
// `kind_title` the group's heading ("DePIN networks").
[[nodiscard]] int kind_rank(const std::string& kind);
[[nodiscard]] std::string kind_title(const std::string& kind);

[[nodiscard]] std::string render_markdown(const scorecard& card);
// One table per kind (kind_rank order), each worst first.
[[nodiscard]] std::string render_index_markdown(const std::vector<scorecard>& cards);

}  // namespace neograde::reports
