#include "run_report.hpp"

#include "commands.hpp"
#include "concurrent.hpp"

#include <neograde/core/json_util.hpp>
#include <neograde/reports/results.hpp>
#include <neograde/reports/exports.hpp>
#include <neograde/reports/history.hpp>
#include <neograde/reports/html.hpp>
#include <neograde/reports/scorecard.hpp>
#include <neograde/core/clock.hpp>

#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace neograde::app {

run_summary run_and_report(session& s, conformance::run_options options, const nlohmann::json& timing_overrides,
                           const std::filesystem::path& out_dir, bool shared_terminal) {
  const auto& spec = s.spec();
  std::filesystem::create_directories(out_dir);
  const auto results_path = out_dir / "results.jsonl";
  // One line per check; on a terminal of its own, the passing ones overwrite each other.
  const bool tty = !shared_terminal && ::isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  // The offer row first: the run's first request, after which a replay knows its time scale.
  const auto selection = s.selection().to_json();
  std::optional<reports::results_writer> writer(std::in_place, results_path,
                                                reports::run_header{.run_id = s.run_id(),
                                                                    .spec = &spec,
                                                                    .source = s.provenance(),
                                                                    .base_url = s.base_url(),
                                                                    .time_scale = s.time_scale(),
                                                                    .allow_spend = s.spend().allowed,
                                                                    .read_only = s.spend().read_only,
                                                                    .offer_selection = selection,
                                                                    .timing_overrides = timing_overrides});
  options.on_outcome = [&](const check_descriptor& d, const check_outcome& o) {
    writer->outcome(d, o);
    const auto word = nlohmann::json(o.result).get<std::string>();
    std::ostringstream line;
    if (tty) line << "\r\033[K";
    line << "[" << spec.provider.id << "] " << word << std::string(word.size() < 12 ? 12 - word.size() : 1, ' ') << o.check_id << " ("
         << static_cast<long>(o.duration_ms) << " ms; " << std::fixed << std::setprecision(1)
         << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s elapsed)" << std::defaultfloat
         << (tty && o.result == outcome::pass ? "" : "\n");
    print_progress_line(line.str());
  };
  auto report = conformance::run(s, options);
  if (tty) std::cerr << "\r\033[K";
  if (!report.hardware.is_null()) writer->hardware(report.hardware);
  writer->finish(report.measurements);
  writer.reset();

  auto runs = reports::read_results(results_path);
  run_summary summary;
  summary.scorecard = reports::build_scorecard(runs.back());
  const auto& card = summary.scorecard;
  reports::write_file_atomic(out_dir / "scorecard.json", dump_json(nlohmann::json(card), 2) + "\n");
  reports::write_file_atomic(out_dir / "scorecard.md", reports::render_markdown(card));
  if (const auto it = card.counts.find(to_string(outcome::fail)); it != card.counts.end()) summary.failed = it->second;
  for (const auto& hw : card.hardware)
    if (hw.status == "fail" || hw.status == "unreachable") ++summary.failed;
  summary.stopped = report.stopped;
  return summary;
}

int report_stop(const run_stop& stop, const std::string& what, const std::string& where) {
  switch (stop.why) {
    case run_stop::kind::target_unusable: std::cerr << "neograde: error: " << stop.message << "\n"; return exit_usage;
    case run_stop::kind::signal:
      std::cerr << "neograde: " << what << " stopped (" << stop.message << "); what it created was torn down; the results so far are in "
                << where << "\n";
      return exit_for_signal(stop.signal);
    case run_stop::kind::bug: break;
  }
  std::cerr << "neograde: internal error, a bug in neograde and not the provider's fault (" << stop.message << "); what " << what
            << " created was torn down; the results so far are in " << where << "\n";
  return exit_bug;
}

std::filesystem::path write_report(const std::vector<reports::scorecard>& cards, const std::filesystem::path& out_dir,
                                   const std::vector<reports::reliability>& reliability, const std::string& generated_at) {
  std::filesystem::create_directories(out_dir / "providers");
  std::filesystem::create_directories(out_dir / "badges");
  nlohmann::json all = nlohmann::json::array();
  for (const auto& card : cards) {
    const auto name = reports::report_name(card);
    const auto dir = out_dir / "providers" / name;
    std::filesystem::create_directories(dir);
    reports::write_file_atomic(dir / "scorecard.json", dump_json(nlohmann::json(card), 2) + "\n");
    reports::write_file_atomic(dir / "scorecard.md", reports::render_markdown(card));
    reports::write_file_atomic(out_dir / "badges" / (name + ".svg"), reports::render_badge_svg(card));
    reports::write_file_atomic(out_dir / "badges" / (name + ".json"), reports::render_badge_json(card));
    all.push_back(card);
  }
  reports::write_file_atomic(out_dir / "scorecard.json", dump_json(all, 2) + "\n");
  std::string index = reports::render_index_markdown(cards), reliability_html;
  std::map<std::pair<std::string, std::string>, std::string> history;  // (provider, source) -> its page's history
  if (!reliability.empty()) {
    const auto md = reports::render_reliability_markdown(reliability);
    reports::write_file_atomic(out_dir / "reliability.json", dump_json(reports::reliability_document(reliability), 2) + "\n");
    reports::write_file_atomic(out_dir / "reliability.md", md);
    index += "\n" + md;
    // The index has the table; each provider's trend, drift and flipping checks go on its page.
    reliability_html = reports::render_reliability_html(reliability, reports::provider_history_links(cards));
    for (const auto& r : reliability) history[{r.provider, r.source}] = reports::render_reliability_provider_html(r);
  }
  reports::write_file_atomic(out_dir / "index.md", index);
  reports::write_file_atomic(out_dir / "junit.xml", reports::render_junit(cards));
  reports::write_file_atomic(out_dir / "matrix.csv", reports::render_matrix_csv(cards));
  const auto site = reports::render_html_site(cards, generated_at.empty() ? utc_now_iso8601() : generated_at, reliability_html, history);
  for (const auto& page : site.providers) reports::write_file_atomic(out_dir / page.path, page.html);
  const auto html = out_dir / "index.html";
  reports::write_file_atomic(html, site.index);
  return html;
}

}  // namespace neograde::app
