// Reliability over time: a synthetic history of 30 runs in the real results format, appended to a
// history folder, read back (torn runs skipped), its figures computed exactly, rendered, and diffed.
#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/reports/history.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace neograde::reports;
using nlohmann::json;

namespace {

// A scratch directory, removed at the end of the test.
struct scratch {
  std::filesystem::path dir;
  scratch() {
    dir = std::filesystem::temp_directory_path() /
          ("neograde-history-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
};

json header(const std::string& provider, const std::string& source, const std::string& run_id, const std::string& started) {
  return {{"record", "header"},
          {"suite", "neograde"},
          {"suite_version", suite_version},
          {"run_id", run_id},
          {"provider", provider},
          {"display_name", "Provider " + provider},
          {"provider_kind", "neocloud"},
          {"fictional", false},
          {"source", source},
          {"base_url", "https://api.example"},
          {"time_scale", 1.0},
          {"allow_spend", true},
          {"started_at", started}};
}

json outcome(const std::string& provider, const std::string& id, const std::string& result) {
  return {{"record", "outcome"},
          {"provider", provider},
          {"check_id", id},
          {"category", id.substr(0, id.find('.'))},
          {"severity", "high"},
          {"requirement", "MUST"},
          {"outcome", result},
          {"reason", result + " because"},
          {"source", "live"},
          {"duration_ms", 1},
          {"evidence", json::array()},
          {"measurements", json::object()}};
}

json footer(const std::string& provider, const json& measurements) {
  return {{"record", "footer"},       {"provider", provider},         {"finished_at", "2026-12-01T00:00:00Z"},
          {"counts", json::object()}, {"measurements", measurements}, {"complete", true}};
}

json dx(int attempts, bool succeeded, json refused, json running, json ssh, json kernel, bool answered) {
  return {{"launch_requested_at", "2026-11-01T06:00:01Z"},
          {"running_at", nullptr},
          {"ssh_at", nullptr},
          {"first_kernel_at", nullptr},
          {"time_to_running_s", running},
          {"time_to_ssh_s", ssh},
          {"time_to_first_kernel_s", kernel},
          {"launch_attempts", attempts},
          {"launch_refused", refused},
          {"launch_succeeded", succeeded},
          {"api_answered", answered}};
}

std::string lines(const std::vector<json>& records) {
  std::string out;
  for (const auto& r : records) out += neograde::dump_json(r) + "\n";
  return out;
}

// Run i (0..29) of the synthetic history of provider "lambda", live, one a day in November 2026:
// runs 0-2 predate the developer_experience measurement (run 1's API answered nothing); runs 9,
// 18 and 27 fail to launch (after 2 quota, 1 error and 3 capacity refusals); runs 5, 10, 15, 20,
// 25 meet one capacity refusal first; time to running drifts up (60 + i s), SSH 20 s later, the
// first kernel 10 s after that from run 10 on; run 18's API did not answer; the check
// lifecycle.instance.reaches_running flips with the failed launches.
std::string synthetic_run(int i) {
  char started[32];
  std::snprintf(started, sizeof started, "2026-11-%02dT06:00:00Z", i + 1);
  const std::string p = "lambda";
  const bool failed = i >= 3 && i % 9 == 0;
  std::vector<json> records{header(p, "live", "run-" + std::to_string(i), started)};
  records.push_back(outcome(p, "auth.key.required", i == 1 ? "errored" : "pass"));
  records.push_back(outcome(p, "lifecycle.instance.reaches_running", i == 1 ? "errored" : failed ? "fail" : "pass"));
  json m = {{"time_to_running_s", 1.0}};
  if (i >= 3) {
    json refused = {{"capacity", 0}, {"quota", 0}, {"error", 0}};
    int attempts = 1;
    if (i % 5 == 0) refused["capacity"] = 1, attempts = 2;
    if (i == 9) refused["quota"] = 2, attempts = 2;
    if (i == 18) refused["error"] = 1, attempts = 1;
    if (i == 27) refused["capacity"] = 3, attempts = 3;
    const double running = 60 + i;
    m["developer_experience"] =
        dx(attempts, !failed, refused, failed ? json(nullptr) : json(running), failed ? json(nullptr) : json(running + 20),
           failed || i < 10 ? json(nullptr) : json(running + 30), i != 18);
  }
  records.push_back(footer(p, m));
  return lines(records);
}

// The 30 live runs and two emulated ones, each appended from its own results file.
void write_history(const std::filesystem::path& history, const std::filesystem::path& scratch_dir) {
  for (int i = 0; i < 30; ++i) {
    const auto f = scratch_dir / ("run-" + std::to_string(i) + ".jsonl");
    std::ofstream(f) << synthetic_run(i);
    const auto r = add_to_history(history, f);
    ASSERT_EQ(r.added.size(), 1u) << i;
  }
  for (int i = 0; i < 2; ++i) {
    const auto f = scratch_dir / ("emulated-" + std::to_string(i) + ".jsonl");
    std::ofstream(f) << lines({header("lambda", "emulated", "emu-" + std::to_string(i), "2026-11-1" + std::to_string(i) + "T00:00:00Z"),
                               outcome("lambda", "auth.key.required", "pass"),
                               footer("lambda", {{"developer_experience", dx(1, true, {{"capacity", 0}, {"quota", 0}, {"error", 0}}, 0.5,
                                                                             nullptr, nullptr, true)}})});
    ASSERT_EQ(add_to_history(history, f).added.size(), 1u);
  }
}

const reliability& figures_of(const std::vector<reliability>& all, const std::string& source) {
  for (const auto& r : all)
    if (r.source == source) return r;
  throw std::runtime_error("no figures for " + source);
}

}  // namespace

TEST(History, NearestRank) {
  EXPECT_FALSE(nearest_rank({}, 50));
  EXPECT_EQ(*nearest_rank({5}, 95), 5);
  EXPECT_EQ(*nearest_rank({4, 1, 3, 2}, 50), 2);  // rank ceil(2) = 2
  EXPECT_EQ(*nearest_rank({4, 1, 3, 2}, 95), 4);  // rank ceil(3.8) = 4
  EXPECT_EQ(*nearest_rank({4, 1, 3, 2}, 0), 1);   // rank at least 1
}

TEST(History, LayoutIsByProviderSourceAndDateAndNeverOverwrites) {
  scratch s;
  const auto f = s.dir / "one.jsonl";
  std::ofstream(f) << synthetic_run(4);
  const auto r = add_to_history(s.dir / "h", f);
  ASSERT_EQ(r.added.size(), 1u);
  EXPECT_EQ(r.added[0], s.dir / "h" / "lambda" / "live" / "20261105T060000Z-run-4");
  EXPECT_TRUE(std::filesystem::is_regular_file(r.added[0] / "results.jsonl"));
  std::ofstream(r.added[0] / "results.jsonl", std::ios::app) << "{\"marker\":1}\n";
  const auto again = add_to_history(s.dir / "h", f);
  EXPECT_TRUE(again.added.empty());
  ASSERT_EQ(again.skipped.size(), 1u);
  EXPECT_NE(again.skipped[0].find("already in the history"), std::string::npos);
  std::ifstream in(r.added[0] / "results.jsonl");
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(content.find("marker"), std::string::npos) << "the run in the history was overwritten";
  // An interrupted run (no footer) is not appended; hostile names stay inside the folder.
  auto torn = synthetic_run(5);
  torn = torn.substr(0, torn.rfind('\n', torn.size() - 2) + 1);  // without its footer
  std::ofstream(s.dir / "torn.jsonl") << torn;
  const auto t = add_to_history(s.dir / "h", s.dir / "torn.jsonl");
  EXPECT_TRUE(t.added.empty());
  std::ofstream(s.dir / "hostile.jsonl") << lines({header("../../etc", "live/../x", "../run", "2026-11-01T00:00:00Z"), footer("x", {})});
  const auto h = add_to_history(s.dir / "h", s.dir / "hostile.jsonl");
  ASSERT_EQ(h.added.size(), 1u);
  EXPECT_EQ(h.added[0], s.dir / "h" / "_.._.._etc" / "live_.._x" / "20261101T000000Z-_.._run");
}

TEST(History, ThirtyRunsGiveExactFigures) {
  scratch s;
  write_history(s.dir / "h", s.dir);
  // Torn and broken runs in the folder are skipped with a note.
  std::filesystem::create_directories(s.dir / "h" / "lambda" / "live" / "20261201T000000Z-torn");
  std::ofstream(s.dir / "h" / "lambda" / "live" / "20261201T000000Z-torn" / "results.jsonl")
      << lines({header("lambda", "live", "torn", "2026-12-01T00:00:00Z")}) << "{\"record\":\"outc";
  std::filesystem::create_directories(s.dir / "h" / "lambda" / "live" / "20261202T000000Z-garbage");
  std::ofstream(s.dir / "h" / "lambda" / "live" / "20261202T000000Z-garbage" / "results.jsonl") << "not json\n\x01\xff\n";
  std::filesystem::create_directories(s.dir / "h" / "lambda" / "live" / ".20261203T000000Z-x.tmp-1");
  std::ofstream(s.dir / "h" / "lambda" / "live" / ".20261203T000000Z-x.tmp-1" / "results.jsonl") << synthetic_run(29);

  const auto h = read_history(s.dir / "h");
  EXPECT_EQ(h.runs.size(), 32u);
  EXPECT_GE(h.notes.size(), 2u);
  const auto all = compute_reliability(h.runs);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].source, "emulated");  // never mixed with the live runs
  EXPECT_EQ(all[0].runs, 2);
  const auto& r = figures_of(all, "live");
  EXPECT_EQ(r.provider, "lambda");
  EXPECT_EQ(r.runs, 30);
  EXPECT_EQ(r.first_started_at, "2026-11-01T06:00:00Z");
  EXPECT_EQ(r.last_started_at, "2026-11-30T06:00:00Z");
  EXPECT_EQ(r.dx_unknown, 3);
  EXPECT_EQ(r.launch_runs, 27);
  EXPECT_EQ(r.launch_succeeded, 24);
  EXPECT_DOUBLE_EQ(*r.launch_success_rate, 24.0 / 27);
  EXPECT_EQ(r.launch_attempts, 35);
  EXPECT_EQ(r.refused.at("capacity"), 8);
  EXPECT_EQ(r.refused.at("quota"), 2);
  EXPECT_EQ(r.refused.at("error"), 1);
  EXPECT_DOUBLE_EQ(*r.refusal_rate, 11.0 / 35);
  EXPECT_EQ(r.api_answered, 28);
  EXPECT_DOUBLE_EQ(*r.api_availability, 28.0 / 30);
  EXPECT_EQ(r.time_to_running_s.samples, 24);
  EXPECT_EQ(*r.time_to_running_s.p50, 75);
  EXPECT_EQ(*r.time_to_running_s.p95, 88);
  EXPECT_EQ(*r.time_to_ssh_s.p50, 95);
  EXPECT_EQ(*r.time_to_ssh_s.p95, 108);
  EXPECT_EQ(r.time_to_first_kernel_s.samples, 18);
  EXPECT_EQ(*r.time_to_first_kernel_s.p50, 109);
  EXPECT_EQ(*r.time_to_first_kernel_s.p95, 119);
  ASSERT_EQ(r.flipping.size(), 2u);
  EXPECT_EQ(r.flipping[0].check_id, "lifecycle.instance.reaches_running");
  EXPECT_EQ(r.flipping[0].flips, 8);  // pass, errored, pass ... then fail and pass again, three times
  EXPECT_EQ(r.flipping[0].outcomes.at("fail"), 3);
  EXPECT_EQ(r.flipping[1].check_id, "auth.key.required");
  EXPECT_EQ(r.flipping[1].flips, 2);
  ASSERT_EQ(r.trend.size(), 30u);
  EXPECT_FALSE(r.trend[0].launch_succeeded);
  EXPECT_EQ(r.trend[9].launch_succeeded, false);
  EXPECT_EQ(r.trend[27].refused, 3);

  // The JSON document is valid against its schema.
  std::ifstream schema_file(NEOGRADE_RELIABILITY_SCHEMA);
  const neograde::json_schema schema(json::parse(schema_file));
  const auto doc = reliability_document(all);
  for (const auto& v : schema.validate(doc)) ADD_FAILURE() << v.pointer << ": " << v.message;
  EXPECT_EQ(doc["providers"][1]["launch"]["succeeded"], 24);
  EXPECT_EQ(doc["providers"][1]["timings"]["percentile_method"], "nearest-rank");

  // Markdown: the table and each provider's flipping checks.
  const auto md = render_reliability_markdown(all);
  EXPECT_NE(md.find("## Reliability over time"), std::string::npos);
  EXPECT_NE(md.find("| Provider lambda (live) | live | 30 | 88.9% (24/27) | 31.4% (11/35; capacity 8, error 1, quota 2) | 93.3% (28/30) | "
                    "75 / 88 (n=24) | 95 / 108 (n=24) | 109 / 119 (n=18) | 2 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `lifecycle.instance.reaches_running` | 8 |"), std::string::npos);
  EXPECT_NE(md.find("3 run(s) without the developer_experience measurement"), std::string::npos);

  // HTML: the table and one SVG trend chart per provider and source, no script.
  const auto html = render_reliability_html(all);
  EXPECT_NE(html.find("<section id=\"reliability\">"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"reliability\">"), std::string::npos);
  std::size_t charts = 0;
  for (auto at = html.find("<svg class=\"chart trend\""); at != std::string::npos; at = html.find("<svg class=\"chart trend\"", at + 1))
    ++charts;
  EXPECT_EQ(charts, 2u);
  EXPECT_NE(html.find("class=\"launch-failed\""), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
}

// A launch refused for lack of funds (launch_refused.funds, as the run writes it) is a refusal like
// the others: it counts in the refusal rate, the per-run trend, the JSON document (valid against
// its schema) and the Markdown.
TEST(History, FundsRefusalsCountInEveryRefusalRate) {
  std::vector<run_record> runs;
  const json refused = {{"capacity", 1}, {"quota", 0}, {"funds", 2}, {"error", 0}};
  runs.push_back({header("lambda", "live", "a", "2026-11-01T00:00:00Z"),
                  {},
                  footer("lambda", {{"developer_experience", dx(4, true, refused, 60.0, nullptr, nullptr, true)}}),
                  {}});
  const auto all = compute_reliability(runs);
  ASSERT_EQ(all.size(), 1u);
  const auto& r = all[0];
  EXPECT_EQ(r.launch_attempts, 4);
  ASSERT_TRUE(r.refused.contains("funds"));
  EXPECT_EQ(r.refused.at("funds"), 2);
  ASSERT_TRUE(r.refusal_rate);
  EXPECT_DOUBLE_EQ(*r.refusal_rate, 3.0 / 4);
  ASSERT_EQ(r.trend.size(), 1u);
  EXPECT_EQ(r.trend[0].refused, 3);

  std::ifstream schema_file(NEOGRADE_RELIABILITY_SCHEMA);
  const neograde::json_schema schema(json::parse(schema_file));
  const auto doc = reliability_document(all);
  for (const auto& v : schema.validate(doc)) ADD_FAILURE() << v.pointer << ": " << v.message;
  EXPECT_EQ(doc["providers"][0]["refusals"]["refused"]["funds"], 2);
  EXPECT_NE(render_reliability_markdown(all).find("75.0% (3/4; capacity 1, funds 2)"), std::string::npos)
      << render_reliability_markdown(all);
}

TEST(History, HostileRecordsNeverThrow) {
  std::vector<run_record> runs;
  const json hostile_dx = {{"launch_attempts", "many"},
                           {"launch_succeeded", "yes"},
                           {"launch_refused", {{"capacity", -3}, {"quota", 1e300}}},
                           {"time_to_running_s", "fast"},
                           {"time_to_ssh_s", -1},
                           {"time_to_first_kernel_s", json::array()},
                           {"api_answered", 1}};
  const std::string name = "<script>alert(1)</script>|\n";
  runs.push_back({header(name, "live", "a", "2026-11-01T00:00:00Z"), {}, footer(name, {{"developer_experience", hostile_dx}}), {}});
  runs.push_back(
      {header(name, "live", "b", "x"), {json::array(), json("text"), outcome(name, name, name)}, footer(name, "not an object"), {}});
  runs.push_back({header(name, "live", "c", "2026-11-03T00:00:00Z"), {}, std::nullopt, {}});
  runs.push_back({json::array(), {}, json(nullptr), {}});
  std::vector<reliability> all;
  ASSERT_NO_THROW(all = compute_reliability(runs));
  ASSERT_FALSE(all.empty());
  for (const auto& r : all) {
    EXPECT_FALSE(r.launch_success_rate);
    EXPECT_EQ(r.time_to_running_s.samples, 0);
    std::string md, html;
    ASSERT_NO_THROW(md = render_reliability_markdown(all));
    ASSERT_NO_THROW(html = render_reliability_html(all));
    EXPECT_EQ(html.find("<script>"), std::string::npos);
    EXPECT_NO_THROW((void)neograde::dump_json(reliability_document(all)));
  }
}

TEST(History, DiffReportsRatesAndP95BeyondThresholds) {
  reliability before{.provider = "p", .source = "live", .runs = 10};
  before.launch_success_rate = 0.9;
  before.refusal_rate = 0.1;
  before.time_to_running_s.p95 = 100;
  before.time_to_ssh_s.p95 = 1;
  auto after = before;
  after.launch_success_rate = 0.75;   // -15 points
  after.refusal_rate = 0.3;           // +20 points
  after.time_to_running_s.p95 = 140;  // +40 %, +40 s; back from 140, -40 s is beyond 25 % of 140 (35 s)
  after.time_to_ssh_s.p95 = 3;        // +200 %, but only 2 s
  const auto changes = diff_reliability({before}, {after}, {});
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].check_id, "reliability.launch_success_rate");
  EXPECT_EQ(changes[0].kind, "regression");
  EXPECT_EQ(changes[0].before, "90.0%");
  EXPECT_EQ(changes[0].after, "75.0%");
  EXPECT_EQ(changes[1].check_id, "reliability.refusal_rate");
  EXPECT_EQ(changes[1].kind, "regression");
  EXPECT_EQ(changes[2].check_id, "reliability.p95.time_to_running_s");
  EXPECT_EQ(changes[2].kind, "regression");
  // Wider thresholds: nothing to report.
  EXPECT_TRUE(diff_reliability({before}, {after}, {.success_rate_points = 20, .refusal_rate_points = 25, .p95_percent = 50}).empty());
  // The other way round: improvements.
  const auto back = diff_reliability({after}, {before}, {});
  ASSERT_EQ(back.size(), 3u);
  for (const auto& c : back) EXPECT_EQ(c.kind, "improvement") << c.check_id;
  // Unknown on either side, or another source: no change claimed.
  auto unknown = after;
  unknown.launch_success_rate.reset();
  unknown.refusal_rate.reset();
  unknown.time_to_running_s.p95.reset();
  EXPECT_TRUE(diff_reliability({before}, {unknown}, {}).empty());
  auto emulated = after;
  emulated.source = "emulated";
  EXPECT_TRUE(diff_reliability({before}, {emulated}, {}).empty());
  const auto md = render_diff_markdown(changes, {});
  EXPECT_NE(md.find("3 regression(s), 0 improvement(s)"), std::string::npos);
  EXPECT_NE(md.find("| regression | p | live | `reliability.launch_success_rate` | 90.0% | 75.0% |"), std::string::npos) << md;
}

TEST(History, SyntheticHistoryDiffsAgainstItsFirstHalf) {
  std::vector<run_record> first, all;
  for (int i = 0; i < 30; ++i) {
    std::istringstream in(synthetic_run(i));
    auto runs = read_results(in);
    if (i < 15) first.push_back(runs[0]);
    all.push_back(runs[0]);
  }
  // First half: 12 launch runs (3..14), 11 succeeded (91.7%); all 30: 88.9%: -2.8 points, within
  // the default 10; p95 of time to running 74 -> 88 s (+19 %): within 25 %.
  EXPECT_TRUE(diff_reliability(compute_reliability(first), compute_reliability(all), {}).empty());
  const auto tight = diff_reliability(compute_reliability(first), compute_reliability(all), {.success_rate_points = 1, .p95_percent = 10});
  ASSERT_EQ(tight.size(), 4u);
  EXPECT_EQ(tight[0].check_id, "reliability.launch_success_rate");
  for (const auto& c : tight) EXPECT_EQ(c.kind, "regression") << c.check_id;
  EXPECT_EQ(tight[1].check_id, "reliability.p95.time_to_running_s");
  EXPECT_EQ(tight[2].check_id, "reliability.p95.time_to_ssh_s");
  EXPECT_EQ(tight[3].check_id, "reliability.p95.time_to_first_kernel_s");  // 104 -> 119 s
}

// The index's form of the section: the table, each provider linked to its history on its own page,
// and no chart (a year of daily runs would make the index megabytes of SVG).
TEST(History, TheIndexLinksEachProviderToItsHistory) {
  std::vector<run_record> runs;
  for (int i = 0; i < 30; ++i) {
    std::istringstream in(synthetic_run(i));
    runs.push_back(read_results(in)[0]);
  }
  const auto all = compute_reliability(runs);
  ASSERT_FALSE(all.empty());
  std::map<std::pair<std::string, std::string>, std::string> links{
      {{all[0].provider, all[0].source}, "providers/x.html#provider-x-history"}};
  const auto html = render_reliability_html(all, links);
  EXPECT_NE(html.find("<section id=\"reliability\">"), std::string::npos);
  EXPECT_NE(html.find("<td><a href=\"providers/x.html#provider-x-history\">"), std::string::npos) << html;
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("class=\"flipping\""), std::string::npos);
  EXPECT_NE(render_reliability_provider_html(all[0]).find("<svg class=\"chart trend\""), std::string::npos);
  EXPECT_NE(render_reliability_html(all).find("<svg class=\"chart trend\""), std::string::npos);  // the whole section keeps them
}
