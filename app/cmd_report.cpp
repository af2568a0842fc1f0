// neograde report: merges runs into scorecards and renders every format.
// neograde diff: what got better or worse between two reports or histories, the reliability
// figures beyond their thresholds included.

#include "commands.hpp"
#include "run_report.hpp"

#include <neograde/core/clock.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/reports/compare.hpp>
#include <neograde/reports/dataset.hpp>
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

namespace fs = std::filesystem;

// The inputs of a published report, copied byte for byte under DIR/dataset/ (reports/README.md,
// Publishing a dataset), and the `neograde report` arguments that read the copies, relative to
// DIR/dataset.
struct dataset_inputs {
  std::vector<std::string> args;
};

std::string numbered(const char* prefix, std::size_t i) {
  auto n = std::to_string(i);
  return prefix + std::string(n.size() < 3 ? 3 - n.size() : 0, '0') + n;
}

void copy_inputs(const fs::path& dataset, const std::string& history, const std::vector<std::string>& in,
                 const std::vector<std::string>& observations, dataset_inputs& out) {
  const auto results = dataset / "results";
  if (!history.empty()) {
    // Every run directory's results.jsonl, where the history's reader finds them (hidden
    // directories, such as a run being appended, are not read and not copied).
    const fs::path root(history);
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
      const auto name = it->path().filename().string();
      if (it->is_directory() && name.starts_with(".")) {
        it.disable_recursion_pending();
        continue;
      }
      if (name != "results.jsonl" || !it->is_regular_file() || it->is_symlink()) continue;
      const auto to = results / "history" / it->path().lexically_relative(root);
      fs::create_directories(to.parent_path());
      fs::copy_file(it->path(), to, fs::copy_options::overwrite_existing);
    }
    fs::create_directories(results / "history");
    out.args.insert(out.args.end(), {"--history", "results/history"});
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    const fs::path from(in[i]);
    const auto dir = numbered("in-", i + 1);
    fs::create_directories(results / dir);
    if (fs::is_regular_file(from)) {
      fs::copy_file(from, results / dir / from.filename(), fs::copy_options::overwrite_existing);
      out.args.insert(out.args.end(), {"--in", "results/" + dir + "/" + from.filename().string()});
      continue;
    }
    for (const char* name : {"results.jsonl", "findings.jsonl"})
      if (fs::is_regular_file(from / name)) fs::copy_file(from / name, results / dir / name, fs::copy_options::overwrite_existing);
    out.args.insert(out.args.end(), {"--in", "results/" + dir});
  }
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const fs::path from(observations[i]);
    const auto dir = dataset / "observations" / numbered("obs-", i + 1);
    fs::create_directories(dir);
    if (fs::is_regular_file(from)) {
      fs::copy_file(from, dir / from.filename(), fs::copy_options::overwrite_existing);
      out.args.insert(out.args.end(), {"--observations", "observations/" + dir.filename().string() + "/" + from.filename().string()});
      continue;
    }
    for (const auto& e : fs::directory_iterator(from))
      if (e.path().extension() == ".json" && e.is_regular_file()) fs::copy_file(e.path(), dir / e.path().filename());
    out.args.insert(out.args.end(), {"--observations", "observations/" + dir.filename().string()});
  }
}

// DIR/dataset: the inputs, the cards as the site wrote them, the licence and the manifest.
void publish_dataset(const fs::path& dir, const std::vector<reports::scorecard>& cards, const std::string& history,
                     const std::vector<std::string>& in, const std::vector<std::string>& observations, reports::dataset_info info) {
  const auto dataset = dir / "dataset";
  dataset_inputs inputs;
  copy_inputs(dataset, history, in, observations, inputs);
  info.rederive_args = inputs.args;
  fs::create_directories(dataset / "scorecards");
  fs::copy_file(dir / "scorecard.json", dataset / "scorecard.json", fs::copy_options::overwrite_existing);
  for (const auto& card : cards) {
    const auto name = reports::report_name(card);
    fs::copy_file(dir / "providers" / name / "scorecard.json", dataset / "scorecards" / (name + ".json"),
                  fs::copy_options::overwrite_existing);
  }
  reports::write_file_atomic(dataset / "LICENSE", reports::dataset_licence_text());
  reports::write_file_atomic(reports::manifest_path(dir), dump_json(reports::build_manifest(dir, cards, info), 2) + "\n");
}

int verify(const std::string& dir) {
  const auto check = reports::verify_dataset(dir);
  for (const auto& p : check.problems) std::cerr << "neograde: " << p << "\n";
  if (!check.problems.empty()) {
    std::cout << dir << ": does not verify (" << check.problems.size() << " problem(s) over " << check.files << " listed file(s))\n";
    return exit_failed;
  }
  std::cout << dir << ": " << check.files << " file(s) verified against the manifest\n";
  return exit_ok;
}

}  // namespace

command add_report(CLI::App& app) {
  struct options {
    std::vector<std::string> in;
    std::string history;
    std::vector<std::string> observations;
    std::string out = "neograde-report";
    std::string publish;
    std::string verify;
    std::string generated_at;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("report",
                                 "Merge runs into scorecards: HTML (an index and a page per provider), badges, Markdown, JSON, JUnit XML, "
                                 "CSV; --publish adds a citable dataset, --verify checks one");
  cmd->add_option("--in", o->in, "A directory with results.jsonl (and findings.jsonl), or a results file; repeatable");
  cmd->add_option("--history", o->history,
                  "A history folder (neograde history add): its runs are merged too, and the report gains the reliability "
                  "section (reliability.json, reliability.md, trend charts)");
  cmd->add_option("--observations", o->observations,
                  "A person's observation of creating an account (reports/observation.schema.json), or a directory of them (*.json); "
                  "repeatable. Merged into its provider's card labelled OBSERVED with who and when, never into the score");
  auto* out_option = cmd->add_option("--out", o->out, "Output directory")->capture_default_str();
  cmd->add_option("--publish", o->publish,
                  "Write the report into this directory as --out does, plus dataset/: the scorecards, the results files they came "
                  "from, a LICENSE (CC BY 4.0) and manifest.json (methodology, catalogue and suite versions, generation time, the "
                  "SHA-256 of every file)")
      ->excludes(out_option);
  cmd->add_option("--generated-at", o->generated_at,
                  "The generation time the pages and the manifest state (default: now; with --publish, the newest run's finish time, "
                  "so that publishing the same runs again gives the same files)");
  cmd->add_option("--verify", o->verify, "Check a published report (--publish) against its manifest; exit 1 if any file differs")
      ->excludes("--in")
      ->excludes("--history")
      ->excludes("--publish");
  return [o] {
    if (!o->verify.empty()) return verify(o->verify);
    if (o->in.empty() && o->history.empty()) throw usage_error("report: give --in or --history");
    if (!o->publish.empty()) {
      o->out = o->publish;
      if (fs::exists(fs::path(o->publish) / "dataset") && !fs::exists(reports::manifest_path(o->publish)))
        throw usage_error("report: " + o->publish + "/dataset exists and is not a published dataset: publish into another directory");
      fs::remove_all(fs::path(o->publish) / "dataset");  // an earlier publication's, replaced whole
    }
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
    reports::reliability_runs runs;  // what the reliability figures read of each run, compactly
    const bool keep = !o->history.empty();
    std::string newest;  // the latest finished_at of any run
    auto finished = [&](const reports::run_record& r) {
      if (r.footer && r.footer->is_object()) newest = std::max(newest, r.footer->value("finished_at", std::string()));
    };
    // A history's runs are merged one at a time; the reliability figures keep only what they read
    // of each (reliability_view, in CBOR), so that a year of daily runs fits in memory.
    auto add = [&](reports::run_record&& r) {
      finished(r);
      if (keep) runs.add(r);
      merger.add(std::move(r));
    };
    if (keep)
      for (const auto& note : reports::for_each_history_run(o->history, add)) std::cerr << "neograde: " << note << "\n";
    for (const auto& d : o->in) each_run(d, add);
    if (merger.runs() == 0) throw usage_error("no complete run in the history " + o->history);
    auto cards = merger.cards();
    for (const auto& unmatched : reports::attach_observations(cards, observations))
      std::cerr << "neograde: an observation of " << unmatched.provider << " (by " << unmatched.observed_by << ", " << unmatched.observed_at
                << ") matches no provider in the report: not shown\n";
    std::vector<reports::reliability> figures;
    if (keep) figures = runs.figures();
    reports::dataset_info info{.generated_at = o->generated_at, .generated_at_from = "given (--generated-at)", .rederive_args = {}};
    if (info.generated_at.empty() && !o->publish.empty()) {
      info.generated_at = newest.empty() ? utc_now_iso8601() : newest;
      info.generated_at_from = newest.empty() ? "the time of publishing (no run recorded its finish)" : "the newest run's finish time";
    }
    const auto html = write_report(cards, o->out, figures, info.generated_at);
    if (!o->publish.empty()) {
      publish_dataset(o->publish, cards, o->history, o->in, o->observations, info);
      std::cout << "dataset: " << reports::manifest_path(o->publish).string() << " (generated at " << info.generated_at << ")\n";
    }
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
