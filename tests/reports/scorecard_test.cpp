#include <neograde/reports/scorecard.hpp>

#include <gtest/gtest.h>

using namespace neograde::reports;
using nlohmann::json;

namespace {

json outcome(const std::string& id, const std::string& severity, const std::string& result) {
  return {{"record", "outcome"},      {"check_id", id},    {"category", id.substr(0, id.find('.'))},
          {"severity", severity},     {"outcome", result}, {"reason", "r"},
          {"evidence", json::array()}};
}

run_record run(std::vector<json> outcomes, std::string source = "emulated", bool fictional = false) {
  return {{{"record", "header"},
           {"provider", "p"},
           {"display_name", "P Cloud"},
           {"fictional", fictional},
           {"source", source},
           {"base_url", "https://api.p.example"},
           {"started_at", "2026-11-29T00:00:00Z"}},
          std::move(outcomes),
          json{{"record", "footer"}, {"measurements", {{"time_to_running_s", 1.5}}}}};
}

}  // namespace

TEST(Scorecard, WeightsBySeverityAndCountsWarnAsHalf) {
  // critical 8 pass, high 4 fail, medium 2 warn, low 1 pass: (8 + 0 + 1 + 1) / 15.
  auto card = build_scorecard(run({outcome("a.x.y", "critical", "pass"), outcome("b.x.y", "high", "fail"),
                                   outcome("c.x.y", "medium", "warn"), outcome("d.x.y", "low", "pass")}));
  EXPECT_DOUBLE_EQ(card.score.value(), 66.7);
  EXPECT_EQ(card.tier, "Bronze");
  EXPECT_EQ(card.counts.at("pass"), 2);
  EXPECT_EQ(card.failures.size(), 2u);
  EXPECT_DOUBLE_EQ(card.categories.at("b").score.value(), 0.0);
}

TEST(Scorecard, ConditionsSkipsAndErrorsAreNotGraded) {
  auto card = build_scorecard(run({outcome("a.x.y", "high", "pass"), outcome("b.x.y", "critical", "no_capacity"),
                                   outcome("c.x.y", "critical", "skipped"), outcome("d.x.y", "critical", "errored")}));
  EXPECT_DOUBLE_EQ(card.score.value(), 100.0);
  EXPECT_EQ(card.tier, "Platinum");
}

TEST(Scorecard, ACriticalFailureCapsTheTierAtBronze) {
  std::vector<json> outcomes;
  for (int i = 0; i < 40; ++i) outcomes.push_back(outcome("a.x." + std::to_string(i), "critical", "pass"));
  outcomes.push_back(outcome("lifecycle.instance.gone_after_terminate", "critical", "fail"));
  auto card = build_scorecard(run(outcomes));
  EXPECT_GT(card.score.value(), 95.0);
  EXPECT_EQ(card.tier, "Bronze");
  EXPECT_EQ(card.tier_capped_by.at(0), "lifecycle.instance.gone_after_terminate");
}

TEST(Scorecard, NothingGradedIsNotGraded) {
  auto card = build_scorecard(run({outcome("a.x.y", "high", "skipped")}));
  EXPECT_FALSE(card.score.has_value());
  EXPECT_EQ(card.tier, "Not graded");
}

TEST(Scorecard, EveryOutputCarriesItsProvenance) {
  EXPECT_NE(build_scorecard(run({}, "emulated")).provenance.find("EMULATED"), std::string::npos);
  EXPECT_NE(build_scorecard(run({}, "emulated", true)).provenance.find("FICTIONAL"), std::string::npos);
  EXPECT_NE(build_scorecard(run({}, "live")).provenance.find("LIVE"), std::string::npos);
  EXPECT_NE(build_scorecard(run({}, "replay")).provenance.find("REPLAY"), std::string::npos);
  auto md = render_markdown(build_scorecard(run({outcome("a.x.y", "high", "fail")})));
  EXPECT_NE(md.find("**EMULATED"), std::string::npos);
  EXPECT_NE(md.find("`a.x.y`"), std::string::npos);
  EXPECT_NE(render_index_markdown({build_scorecard(run({}))}).find("EMULATED"), std::string::npos);
}

// A read-only audit says so wherever the provenance shows, and only an audit does.
TEST(Scorecard, AReadOnlyAuditSaysSoInItsBanner) {
  auto audit = run({outcome("a.x.y", "high", "pass")}, "live");
  audit.header["read_only"] = true;
  const auto card = build_scorecard(audit);
  EXPECT_TRUE(card.read_only);
  EXPECT_NE(card.provenance.find("LIVE: measured against https://api.p.example"), std::string::npos);
  EXPECT_NE(card.provenance.find("A READ-ONLY AUDIT: nothing was launched"), std::string::npos);
  EXPECT_NE(render_markdown(card).find("READ-ONLY AUDIT"), std::string::npos);
  EXPECT_EQ(build_scorecard(run({outcome("a.x.y", "high", "pass")}, "live")).provenance.find("READ-ONLY"), std::string::npos);
}

// A run stopped before it decided every check is no verdict: the checks it reached passed, but
// the card has no score and no tier (it showed Platinum before), and every format says why.
TEST(Scorecard, AStoppedRunHasNoScoreAndSaysSo) {
  auto stopped = run({outcome("a.x.y", "critical", "pass"), outcome("b.x.y", "high", "errored")});
  stopped.footer->at("measurements")["stopped"] = "interrupted: stopped by SIGINT after a.x.y";
  const auto card = build_scorecard(stopped);
  EXPECT_FALSE(card.complete);
  EXPECT_FALSE(card.score.has_value());
  EXPECT_EQ(card.tier, "Not graded");
  EXPECT_NE(card.provenance.find("AN INCOMPLETE RUN (interrupted: stopped by SIGINT after a.x.y)"), std::string::npos) << card.provenance;
  EXPECT_NE(render_markdown(card).find("AN INCOMPLETE RUN"), std::string::npos);

  auto unfinished = run({outcome("a.x.y", "critical", "pass")});
  unfinished.footer.reset();
  EXPECT_EQ(build_scorecard(unfinished).tier, "Not graded");
  EXPECT_NE(build_scorecard(unfinished).provenance.find("AN INCOMPLETE RUN: "), std::string::npos);

  const auto finished = build_scorecard(run({outcome("a.x.y", "critical", "pass")}));
  EXPECT_EQ(finished.tier, "Platinum");
  EXPECT_EQ(finished.provenance.find("INCOMPLETE"), std::string::npos);
}

// The Markdown evidence says which request was sent wrong on purpose.
TEST(Scorecard, DeliberateEvidenceIsLabelled) {
  auto o = outcome("a.x.y", "high", "fail");
  o["evidence"] = json::array({{{"method", "GET"},
                                {"url", "https://api.p.example/v1/x"},
                                {"request_headers", json::array()},
                                {"request_body", ""},
                                {"status", 200},
                                {"response_headers", json::array()},
                                {"response_body", "{}"},
                                {"duration_ms", 1},
                                {"error", ""},
                                {"deliberate", "without credentials"}}});
  const auto md = render_markdown(build_scorecard(run({o})));
  EXPECT_NE(md.find("(deliberately invalid: without credentials)\nGET https://api.p.example/v1/x"), std::string::npos) << md;
}

// A run under timings the user replaced says so on its scorecard; one under the spec's does not.
TEST(Scorecard, ReplacedTimingsAreShown) {
  auto r = run({});
  EXPECT_EQ(render_markdown(build_scorecard(r)).find("non-standard"), std::string::npos);
  r.header["timing"] = {{"time_to_running_s", 30}, {"overridden", {{"time_to_running_s", {{"value", 30}, {"spec", 600}}}}}};
  const auto card = build_scorecard(r);
  EXPECT_EQ(card.timing_overrides["time_to_running_s"]["spec"], 600);
  EXPECT_NE(render_markdown(card).find("non-standard, set by the user: time_to_running_s 30 s (spec: 600 s)"), std::string::npos)
      << render_markdown(card);
}

// Issue 21 point 3: the card says when a run did not probe the rate limit, in every rendering.
TEST(Scorecard, ARunThatDidNotProbeTheRateLimitSaysSo) {
  auto r = run({});
  EXPECT_FALSE(build_scorecard(r).rate_limit.has_value());  // older runs recorded nothing
  (*r.footer)["measurements"]["rate_limit"] = {{"probed", true}, {"met_in_traffic", 0}, {"probe_met", true}};
  EXPECT_EQ(rate_limit_summary(build_scorecard(r)), "");
  (*r.footer)["measurements"]["rate_limit"] = {{"probed", false}, {"met_in_traffic", 2}, {"probe_met", false}};
  const auto card = build_scorecard(r);
  ASSERT_TRUE(card.rate_limit.has_value());
  EXPECT_FALSE(card.rate_limit->probed);
  EXPECT_EQ(card.rate_limit->met_in_traffic, 2);
  EXPECT_NE(render_markdown(card).find("| Rate limit | not probed"), std::string::npos) << render_markdown(card);
  EXPECT_NE(render_markdown(card).find("--probe-rate-limit"), std::string::npos);
  const json j = card;
  EXPECT_EQ(j["rate_limit"]["probed"], false);
  const auto back = j.get<scorecard>();
  ASSERT_TRUE(back.rate_limit.has_value());
  EXPECT_EQ(back.rate_limit->met_in_traffic, 2);
}

TEST(ScorecardIndex, OrdersWorstFirst) {
  auto good = build_scorecard(run({outcome("a.x.y", "high", "pass")}));
  auto bad = build_scorecard(run({outcome("a.x.y", "high", "fail")}));
  bad.provider.display_name = "Worse Cloud";
  auto md = render_index_markdown({good, bad});
  EXPECT_LT(md.find("Worse Cloud"), md.find("P Cloud"));
}

TEST(ScorecardIndex, GroupsByKindAndRanksWithinIt) {
  auto neo = build_scorecard(run({outcome("a.x.y", "high", "pass")}));
  neo.provider.kind = "neocloud";
  auto market = build_scorecard(run({outcome("a.x.y", "high", "fail")}));
  market.provider.display_name = "Bazaar";
  market.provider.kind = "marketplace";
  auto network = build_scorecard(run({outcome("a.x.y", "high", "fail")}));
  network.provider.display_name = "Mesh";
  network.provider.kind = "depin";
  const auto md = render_index_markdown({network, market, neo});
  // The worst score overall (Bazaar, Mesh) does not come first: the neoclouds do.
  EXPECT_LT(md.find("## Neoclouds"), md.find("P Cloud"));
  EXPECT_LT(md.find("P Cloud"), md.find("## Marketplaces"));
  EXPECT_LT(md.find("## Marketplaces"), md.find("Bazaar"));
  EXPECT_LT(md.find("Bazaar"), md.find("## DePIN networks"));
  EXPECT_LT(md.find("## DePIN networks"), md.find("Mesh"));
  EXPECT_EQ(md.find("## Hyperscalers"), std::string::npos);  // no empty groups
  EXPECT_EQ(kind_rank("aggregator"), 2);
  EXPECT_EQ(kind_title("something else"), "Other kinds");
}

TEST(Scorecard, HardwareSectionFromTheSmokeTestsDocument) {
  auto r = run({outcome("a.x.y", "high", "pass")});
  r.hardware.push_back(
      {{"record", "hardware"},
       {"status", "fail"},
       {"reason", "gpu.sku [GPU 0]: delivered NVIDIA H100 PCIe"},
       {"instance", {{"id", "i-1"}, {"type", "gpu_8x_h100_sxm5"}}},
       {"time_to_ssh_s", 41.2},
       {"smoke",
        {{"status", "fail"},
         {"gpus",
          {{{"index", 0},
            {"name", "NVIDIA H100 PCIe"},
            {"sku", "h100-pcie-80gb"},
            {"measurements", {{"hbm_triad", {{"value", 1812.0}, {"unit", "GB/s"}, {"pct_of_datasheet", 54.1}, {"verdict", "fail"}}}}}}}},
         {"checks",
          {{{"id", "gpu.sku"}, {"gpu", 0}, {"verdict", "fail"}, {"message", "delivered | PCIe"}},
           {{"id", "gpu.mig"}, {"gpu", 0}, {"verdict", "pass"}, {"message", "MIG off"}}}}}}});
  const auto card = build_scorecard(r);
  ASSERT_EQ(card.hardware.size(), 1u);
  const auto& hw = card.hardware[0];
  EXPECT_EQ(hw.status, "fail");
  EXPECT_EQ(hw.gpus.at(0).measurements.at(0).pct_of_datasheet.value().as_double(), 54.1);
  ASSERT_EQ(hw.problems.size(), 1u);  // failures and ambers only
  EXPECT_EQ(hw.problems[0].id, "gpu.sku");
  EXPECT_DOUBLE_EQ(card.score.value(), 100.0);  // the API's grade is its own
  const auto md = render_markdown(card);
  EXPECT_NE(md.find("## Hardware"), std::string::npos);
  EXPECT_NE(md.find("| 0 | NVIDIA H100 PCIe | h100-pcie-80gb | hbm_triad | 1812.0 GB/s | 54.1% | fail |"), std::string::npos) << md;
  EXPECT_NE(md.find("delivered \\| PCIe"), std::string::npos);  // escaped for the table
}

TEST(Scorecard, HostileHardwareDocumentIsReadFieldByField) {
  auto r = run({});
  r.hardware.push_back(
      {{"record", "hardware"},
       {"status", 7},
       {"reason", json::array()},
       {"instance", "i"},
       {"smoke",
        {{"gpus", {1, "x", {{"index", "zero"}, {"measurements", {{"m", 3}}}}}}, {"checks", {{{"verdict", "fail"}, {"id", 9}}, "junk"}}}}});
  const auto card = build_scorecard(r);
  const auto& hw = card.hardware.at(0);
  EXPECT_EQ(hw.status, "");
  EXPECT_FALSE(hw.gpus.at(0).index.has_value());
  EXPECT_FALSE(hw.gpus.at(0).measurements.at(0).value.has_value());
  EXPECT_EQ(hw.problems.at(0).id, "");
  EXPECT_NO_THROW((void)render_markdown(card));
}

// The status vocabulary readers know: pass, fail (warn included and said so), not applicable,
// unknown; every outcome maps to one of them.
TEST(ScorecardStatus, EveryOutcomeHasAStatusAndKeepsItsOutcome) {
  EXPECT_EQ(check_status("pass", ""), "pass");
  EXPECT_EQ(check_status("fail", ""), "fail");
  EXPECT_EQ(check_status("warn", ""), "fail");
  EXPECT_EQ(status_label("warn", ""), "fail (warn)");
  EXPECT_EQ(check_status("skipped", "not applicable: no 429 met"), "not applicable");
  EXPECT_EQ(status_label("skipped", "not applicable: no 429 met"), "not applicable");
  EXPECT_EQ(status_label("skipped", "needs a second account"), "unknown (skipped)");
  for (const char* o : {"errored", "no_capacity", "quota", "rate_limited", "insufficient_funds", "bogus", ""})
    EXPECT_EQ(check_status(o, "not applicable: x"), "unknown") << o;
  EXPECT_EQ(status_label("", ""), "unknown (no outcome)");
  const auto card = build_scorecard(run({outcome("a.x.y", "high", "pass"), outcome("b.x.y", "low", "warn"), outcome("c.x.y", "low", "fail"),
                                         outcome("d.x.y", "low", "quota")}));
  const auto n = count_statuses(card);
  EXPECT_EQ(n.pass, 1);
  EXPECT_EQ(n.fail, 2);
  EXPECT_EQ(n.warn, 1);
  EXPECT_EQ(n.unknown, 1);
  const auto md = render_markdown(card);
  EXPECT_NE(md.find("| fail | 2 | fail 1, warn 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `b.x.y` | b | low | warn | fail | r |"), std::string::npos) << md;
  EXPECT_NE(render_index_markdown({card}).find("| 1 | 2 (1) | 0 | 1 | [p](providers/p/scorecard.md) |"), std::string::npos);
}

// A card's files are named by its id, made safe, and never shared between sources.
TEST(ScorecardStatus, ReportNamesAreSafeAndApartBySource) {
  auto card = build_scorecard(run({}));
  EXPECT_EQ(report_name(card), "p");
  card.source = "live";
  EXPECT_EQ(report_name(card), "p-live");
  card.provider.id = "../../etc/x y";
  card.source = "3";
  EXPECT_EQ(report_name(card), "______etc_x_y-unknown");
  card.provider.id.clear();
  card.source = "replay";
  EXPECT_EQ(report_name(card), "unnamed-replay");
}
