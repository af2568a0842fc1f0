// neograde report: merges runs into scorecards and renders every format.
// neograde diff: what got better or worse between two reports.

#include "commands.hpp"
#include "run_report.hpp"

#include <neograde/reports/compare.hpp>
#include <neograde/reports/results.hpp>

#include <iostream>
#include <memory>

namespace neograde::app {
namespace {

// The runs under a report directory: its results.jsonl and findings.jsonl (a results file may
// also be named directly).
std::vector<reports::run_record> read_runs(const std::filesystem::path& in) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_regular_file(in)) files.push_back(in);
  for (const char* name : {"results.jsonl", "findings.jsonl"})
    if (std::filesystem::is_regular_file(in / name)) files.push_back(in / name);
  if (files.empty()) throw usage_error("no results.jsonl or findings.jsonl in " + in.string());
  std::vector<reports::run_record> runs;
  for (const auto& f : files) {
    std::size_t skipped = 0;
    auto more = reports::read_results(f, &skipped);
    if (skipped > 0) std::cerr << "neograde: " << f.string() << ": " << skipped << " unreadable line(s) skipped\n";
    runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  if (runs.empty()) throw usage_error("no run in " + in.string());
  return runs;
}

std::vector<reports::scorecard> cards_in(const std::vector<std::string>& dirs) {
  std::vector<reports::run_record> runs;
  for (const auto& d : dirs) {
    auto more = read_runs(d);
    runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return reports::merge_scorecards(runs);
}

}  // namespace

command add_report(CLI::App& app) {
  struct options {
    std::vector<std::string> in;
    std::string out = "neograde-report";
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("report", "Merge runs into scorecards: HTML, Markdown, JSON, JUnit XML, CSV");
  cmd->add_option("--in", o->in, "A directory with results.jsonl (and findings.jsonl), or a results file; repeatable")->required();
  cmd->add_option("--out", o->out, "Output directory")->capture_default_str();
  return [o] {
    const auto cards = cards_in(o->in);
    const auto html = write_report(cards, o->out);
    std::cout << cards.size() << " scorecard(s); report: " << html.string() << "\n";
    return exit_ok;
  };
}

command add_diff(CLI::App& app) {
  struct options {
    std::string before, after;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("diff", "Regressions and improvements between two reports (exit 1 on a regression)");
  cmd->add_option("OLD", o->before, "The earlier report directory (or results file)")->required();
  cmd->add_option("NEW", o->after, "The later report directory (or results file)")->required();
  return [o] {
    const auto changes = reports::diff_scorecards(cards_in({o->before}), cards_in({o->after}));
    int regressions = 0, improvements = 0;
    for (const auto& c : changes) {
      regressions += c.kind == "regression";
      improvements += c.kind == "improvement";
      std::cout << c.kind << "\t" << c.provider << " (" << c.source << ")\t" << (c.check_id.empty() ? std::string("tier") : c.check_id)
                << "\t" << (c.before.empty() ? "-" : c.before) << " -> " << (c.after.empty() ? "-" : c.after)
                << (c.reason.empty() ? "" : "\t" + c.reason) << "\n";
    }
    std::cout << regressions << " regression(s), " << improvements << " improvement(s), " << changes.size() - regressions - improvements
              << " other change(s)\n";
    return regressions > 0 ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app
