#pragma once
// Grading several providers at once (neograde demo, neograde conformance with several specs):
// each provider's run is the same sequential program as a single run, on a worker thread of its
// own, at most --jobs at a time, in one process. Every run keeps its own session, budget, ledger,
// journal entries and teardown; a stop request (Ctrl-C) reaches every run, and each tears down
// what it created. The results go to providers/<id>/ as a single run writes them, then into one
// results.jsonl and report.

#include <cstddef>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace neograde::app {

// --jobs when not given: every provider at once, up to this many (a provider's run mostly waits
// on the provider, so more runs than cores is the point).
inline constexpr int max_default_jobs = 32;
[[nodiscard]] int default_jobs(std::size_t providers);

// Runs job(0) .. job(count - 1) on at most `jobs` threads, lowest index first, and returns when
// every one has returned: for each, the exception it threw, or null.
[[nodiscard]] std::vector<std::exception_ptr> run_concurrently(std::size_t count, int jobs, const std::function<void(std::size_t)>& job);

// One line to stderr, whole, whichever run writes it (runs print their progress as they go).
void print_progress_line(const std::string& line);

// The providers' results.jsonl files, in the order given, as out/results.jsonl, and the report of
// them all in out (write_report). Returns index.html's path.
std::filesystem::path write_combined_report(const std::vector<std::filesystem::path>& provider_dirs, const std::filesystem::path& out);

}  // namespace neograde::app
