#include "concurrent.hpp"

#include "run_report.hpp"

#include <neograde/reports/compare.hpp>
#include <neograde/reports/results.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>

namespace neograde::app {

int default_jobs(std::size_t providers) { return static_cast<int>(std::clamp<std::size_t>(providers, 1, max_default_jobs)); }

std::vector<std::exception_ptr> run_concurrently(std::size_t count, int jobs, const std::function<void(std::size_t)>& job) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (auto i = next++; i < count; i = next++) try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
  };
  const auto threads = std::min<std::size_t>(count, static_cast<std::size_t>(std::max(jobs, 1)));
  if (threads <= 1) {
    worker();  // one at a time: on the calling thread, as before there were jobs
    return errors;
  }
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  pool.clear();  // joins
  return errors;
}

void print_progress_line(const std::string& line) {
  static std::mutex m;
  const std::scoped_lock lock(m);
  std::cerr << line << std::flush;
}

std::filesystem::path write_combined_report(const std::vector<std::filesystem::path>& provider_dirs, const std::filesystem::path& out) {
  std::string combined;
  for (const auto& dir : provider_dirs) {
    std::ifstream in(dir / "results.jsonl");
    combined.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  reports::write_file_atomic(out / "results.jsonl", combined);
  std::istringstream in(combined);
  return write_report(reports::merge_scorecards(reports::read_results(in)), out);
}

}  // namespace neograde::app
