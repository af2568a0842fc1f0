// neograde report: merges runs into scorecards and renders every format.
// neograde diff: what got better or worse between two reports or histories, the reliability
// figures beyond their thresholds included.

#include "commands.hpp"
#include "run_report.hpp"

#include <neograde/core/json_util.hpp>
#include <neograde/reports/compare.hpp>
#include <neograde/reports/drift.hpp>
#include <neograde/reports/history.hpp>
#include <neograde/reports/results.hpp>

#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

namespace neograde::app {
namespace {

// The runs under a report directory: its results.jsonl and findings.jsonl (a results file may
// also be named directly), one at a time.
void each_run(const std::filesystem::path& in, const std::function<void(reports::run_record&&)>& each) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_regular_file(in)) files.push_back(in);
  for (const char* name : {"results.jsonl", "findings.jsonl"})
    if (std::filesystem::is_regular_file(in / name)) files.push_back(in / name);
  if (files.empty()) throw usage_error("no results.jsonl or findings.jsonl in " + in.string());
  std::size_t runs = 0;
  for (const auto& f : files) {
    std::ifstream stream(f);
    if (!stream) throw usage_error("cannot read " + f.string());
    const auto skipped = reports::for_each_run(stream, [&](reports::run_record&& r) {
      ++runs;
      each(std::move(r));
    });
    if (skipped > 0) std::cerr << "neograde: " << f.string() << ": " << skipped << " unreadable line(s) skipped\n";
  }
  if (runs == 0) throw usage_error("no run in " + in.string());
}

std::vector<reports::run_record> read_runs(const std::filesystem::path& in) {
  std::vector<reports::run_record> runs;
  each_run(in, [&](reports::run_record&& r) { runs.push_back(std::move(r)); });
  return runs;
}

std::vector<reports::run_record> history_runs(const std::filesystem::path& dir) {
  auto h = reports::read_history(dir);
  for (const auto& note : h.notes) std::cerr << "neograde: " << note << "\n";
  return std::move(h.runs);
}

// A history is a directory without results.jsonl or findings.jsonl of its own (reports/README.md).
bool is_history(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p) && !std::filesystem::is_regular_file(p / "results.jsonl") &&
         !std::filesystem::is_regular_file(p / "findings.jsonl");
}

std::vector<reports::run_record> runs_at(const std::filesystem::path& p) {
  if (!is_history(p)) return read_runs(p);
  auto runs = history_runs(p);
  if (runs.empty()) throw usage_error("no complete run in the history " + p.string());
  return runs;
}

// The history without the latest run of each provider and source: what `diff --history` compares against.
std::vector<reports::run_record> without_latest(const std::vector<reports::run_record>& runs) {
  std::map<std::pair<std::string, std::string>, std::size_t> latest;  // history runs are oldest first
  for (std::size_t i = 0; i < runs.size(); ++i) latest[{runs[i].header.value("provider", ""), runs[i].header.value("source", "")}] = i;
  std::vector<reports::run_record> out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (latest[{runs[i].header.value("provider", ""), runs[i].header.value("source", "")}] != i) out.push_back(runs[i]);
  return out;
}

}  // namespace

command add_report(CLI::App& app) {
  struct options {
    std::vector<std::string> in;
    std::string history;
    std::vector<std::string> observations;
    std::string out = "neograde-report";
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("report", "Merge runs into scorecards: HTML, Markdown, JSON, JUnit XML, CSV");
  cmd->add_option("--in", o->in, "A directory with results.jsonl (and findings.jsonl), or a results file; repeatable");
  cmd->add_option("--history", o->history,
                  "A history folder (neograde history add): its runs are merged too, and the report gains the reliability "
                  "section (reliability.json, reliability.md, trend charts)");
  cmd->add_option("--observations", o->observations,
                  "A person's observation of creating an account (reports/observation.schema.json), or a directory of them (*.json); "
                  "repeatable. Merged into its provider's card labelled OBSERVED with who and when, never into the score");
  cmd->add_option("--out", o->out, "Output directory")->capture_default_str();
  return [o] {
    if (o->in.empty() && o->history.empty()) throw usage_error("report: give --in or --history");
    // Read first: a bad record is refused before any run is read.
    std::vector<reports::observation> observations;
    for (const auto& path : o->observations) {
      try {
        auto some = reports::read_observations(path);
        observations.insert(observations.end(), some.begin(), some.end());
      } catch (const reports::observation_error& e) {
        throw usage_error(e.what());
      }
    }
    // Each run is merged as it is read; only the reliability figures of a history need them all.
    reports::run_merger merger;
    std::vector<reports::run_record> runs;
    const bool keep = !o->history.empty();
    if (keep) runs = history_runs(o->history);
    for (const auto& r : runs) merger.add(r);
    for (const auto& d : o->in)
      each_run(d, [&](reports::run_record&& r) {
        merger.add(r);
        if (keep) runs.push_back(std::move(r));
      });
    if (merger.runs() == 0) throw usage_error("no complete run in the history " + o->history);
    auto cards = merger.cards();
    for (const auto& unmatched : reports::attach_observations(cards, observations))
      std::cerr << "neograde: an observation of " << unmatched.provider << " (by " << unmatched.observed_by << ", " << unmatched.observed_at
                << ") matches no provider in the report: not shown\n";
    std::vector<reports::reliability> figures;
    if (keep) figures = reports::compute_reliability(runs);
    const auto html = write_report(cards, o->out, figures);
    std::cout << cards.size() << " scorecard(s)" << (keep ? ", reliability over " + std::to_string(runs.size()) + " run(s)" : "")
              << (observations.empty() ? "" : ", " + std::to_string(observations.size()) + " observation(s)")
              << "; report: " << html.string() << "\n";
    return exit_ok;
  };
}

command add_diff(CLI::App& app) {
  struct options {
    std::string before, after;
    std::string history;
    std::string markdown;
    reports::reliability_thresholds t;
    reports::drift_thresholds d;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("diff",
                                 "Regressions and improvements between two reports or histories, or a history's latest run and the runs "
                                 "before it: check outcomes, tiers, and launch success rate, refusal rate and p95 timings beyond the "
                                 "thresholds (exit 1 on a regression)");
  cmd->add_option("OLD", o->before, "The earlier report directory, results file or history folder");
  cmd->add_option("NEW", o->after, "The later report directory, results file or history folder");
  cmd->add_option("--history", o->history,
                  "Instead of OLD and NEW: a history folder, whose latest run of each provider and source is compared with the "
                  "runs before it");
  cmd->add_option("--markdown", o->markdown, "Also append the changes, as a Markdown summary, to this file (e.g. $GITHUB_STEP_SUMMARY)");
  cmd->add_option("--success-rate-points", o->t.success_rate_points, "Launch success rate: a change beyond this many percentage points")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--refusal-rate-points", o->t.refusal_rate_points, "Refusal rate: a change beyond this many percentage points")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--p95-percent", o->t.p95_percent, "p95 timings: a change beyond this percentage of the earlier p95 ...")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--p95-seconds", o->t.p95_seconds, "... and beyond this many seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--price-percent", o->d.price_percent, "Drift: the cheapest launchable row's price moving beyond this percentage")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--capacity-percent", o->d.capacity_percent, "Drift: the rows with capacity moving beyond this percentage")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  return [o] {
    std::vector<reports::run_record> before, after;
    if (!o->history.empty()) {
      if (!o->before.empty() || !o->after.empty()) throw usage_error("diff: give OLD and NEW, or --history, not both");
      after = runs_at(o->history);
      before = without_latest(after);
    } else {
      if (o->before.empty() || o->after.empty()) throw usage_error("diff: give OLD and NEW, or --history");
      before = runs_at(o->before);
      after = runs_at(o->after);
    }
    auto changes = reports::diff_scorecards(reports::merge_scorecards(before), reports::merge_scorecards(after));
    auto figures = reports::diff_reliability(reports::compute_reliability(before), reports::compute_reliability(after), o->t);
    changes.insert(changes.end(), figures.begin(), figures.end());
    // A history's latest runs against the runs before them; OLD's runs, and NEW's before its latest, against NEW's latest.
    for (const auto& d : o->history.empty() ? reports::diff_drift(before, after, o->d) : reports::diff_drift({}, after, o->d))
      changes.push_back(reports::as_change(d));
    int regressions = 0, improvements = 0, drift = 0;
    for (const auto& c : changes) {
      regressions += c.kind == "regression";
      improvements += c.kind == "improvement";
      drift += c.kind == "drift";
      std::cout << c.kind << "\t" << c.provider << " (" << c.source << ")\t" << (c.check_id.empty() ? std::string("tier") : c.check_id)
                << "\t" << (c.before.empty() ? "-" : c.before) << " -> " << (c.after.empty() ? "-" : c.after)
                << (c.reason.empty() ? "" : "\t" + c.reason) << "\n";
    }
    std::cout << regressions << " regression(s), " << improvements << " improvement(s), "
              << changes.size() - regressions - improvements - drift << " other change(s), " << drift << " contract drift(s)\n";
    if (!o->markdown.empty()) {
      std::ofstream md(o->markdown, std::ios::app);
      md << reports::render_diff_markdown(changes, o->t);
      if (!md) throw usage_error("cannot write " + o->markdown);
    }
    return regressions > 0 ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app
