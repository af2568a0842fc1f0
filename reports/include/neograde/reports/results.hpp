#pragma once
// results.jsonl: one JSON object per line — a header record, one record per check outcome, a
// footer. Every other view (scorecards, index) is derived from it.

#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace neograde::reports {

inline constexpr const char* suite_version = "0.1.0";

struct run_header {
  std::string run_id;
  const provider_spec* spec = nullptr;
  result_source source = result_source::unknown;
  std::string base_url;
  double time_scale = 1.0;
  bool allow_spend = false;
  bool read_only = false;          // a read-only audit (conformance --read-only): written as "read_only": true, only then
  nlohmann::json offer_selection;  // which offer row the run launches, and why (null: not known)
  nlohmann::json timing_overrides = nlohmann::json::object();  // spec timings the run replaced (run_options)
};

// Appends records line by line, flushing each, so that an interrupted run leaves every
// complete line readable.
class results_writer {
 public:
  // Writes the header record to `path`.part; finish() renames it to `path`, so that the previous
  // results stay whole until this run has ended (after a crash, the .part file holds every line
  // written, a torn last line at most). Throws std::runtime_error if it cannot.
  results_writer(const std::filesystem::path& path, const run_header& header);
  ~results_writer();
  results_writer(const results_writer&) = delete;
  results_writer& operator=(const results_writer&) = delete;

  void outcome(const check_descriptor& d, const check_outcome& o);
  // The hardware record of --remote-exec: the instance, SSH, and the GPU smoke test's document.
  void hardware(const nlohmann::json& record);
  // Writes the footer with the counts and measurements, syncs the file, and moves it into place.
  void finish(const nlohmann::json& measurements);

 private:
  void line(const nlohmann::json& record);
  std::filesystem::path path_;
  std::filesystem::path part_;
  std::FILE* file_ = nullptr;
  std::string provider_;
  result_source source_;
  std::map<std::string, int> counts_;
};

// One run as read back: its header, outcomes and footer (absent if the run was interrupted).
struct run_record {
  nlohmann::json header;
  std::vector<nlohmann::json> outcomes;
  std::optional<nlohmann::json> footer;
  std::vector<nlohmann::json> hardware;  // --remote-exec records
};

// Reads every run in a results file. Lines that do not parse (a torn last line) are skipped and
// counted in `skipped_lines`.
[[nodiscard]] std::vector<run_record> read_results(const std::filesystem::path& path, std::size_t* skipped_lines = nullptr);
[[nodiscard]] std::vector<run_record> read_results(std::istream& in, std::size_t* skipped_lines = nullptr);
// The same, one run at a time (a report over many runs need not hold them all); returns the
// count of lines skipped.
std::size_t for_each_run(std::istream& in, const std::function<void(run_record&&)>& each);

// Writes a file so that readers see the old content or the new, never a mix: temp file, fsync,
// rename. Throws std::runtime_error on failure.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

}  // namespace neograde::reports
