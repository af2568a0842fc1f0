// Merging runs into one card per provider and source, and diffing two reports.
#include <neograde/reports/compare.hpp>

#include <gtest/gtest.h>

using namespace neograde::reports;
using nlohmann::json;

namespace {

json outcome(const std::string& id, const std::string& severity, const std::string& result) {
  return {{"record", "outcome"},      {"check_id", id},    {"category", id.substr(0, id.find('.'))},
          {"severity", severity},     {"outcome", result}, {"reason", result + " because"},
          {"evidence", json::array()}};
}

run_record run(const std::string& provider, const std::string& started, std::vector<json> outcomes,
               const std::string& source = "emulated") {
  return {{{"record", "header"}, {"provider", provider}, {"display_name", provider}, {"source", source}, {"started_at", started}},
          std::move(outcomes),
          json{{"record", "footer"}, {"measurements", {{"time_to_running_s", 1.0}}}}};
}

const scorecard& card_of(const std::vector<scorecard>& cards, const std::string& provider, const std::string& source = "emulated") {
  for (const auto& c : cards)
    if (c.provider.id == provider && c.source == source) return c;
  throw std::runtime_error("no card for " + provider);
}

std::string outcome_in(const scorecard& card, const std::string& id) {
  for (const auto& c : card.checks)
    if (c.check_id == id) return c.outcome;
  return "";
}

}  // namespace

TEST(Merge, LatestOutcomeWinsAndChangesAreFlaky) {
  const auto cards = merge_scorecards({
      run("p", "2026-11-29T10:00:00Z", {outcome("a.x.y", "high", "pass"), outcome("b.x.y", "low", "pass")}),
      run("p", "2026-11-29T12:00:00Z", {outcome("a.x.y", "high", "fail")}),
      run("p", "2026-11-29T11:00:00Z", {outcome("fuzz.server_error.launch", "high", "fail")}),
  });
  ASSERT_EQ(cards.size(), 1u);
  const auto& c = cards[0];
  EXPECT_EQ(c.runs, 3);
  EXPECT_EQ(outcome_in(c, "a.x.y"), "fail");                     // the 12:00 run, though read second
  EXPECT_EQ(outcome_in(c, "b.x.y"), "pass");                     // only the first run had it
  EXPECT_EQ(outcome_in(c, "fuzz.server_error.launch"), "fail");  // a fuzz run combines
  EXPECT_EQ(c.flaky_checks, std::vector<std::string>{"a.x.y"});
  EXPECT_EQ(c.counts.at("fail"), 2);
}

// A report streams its runs through a run_merger: whatever order they arrive in, the card is
// the one the runs make in start order (checks in first-seen order, the latest header and
// measurements), and equal to merge_scorecards'.
TEST(Merge, TheOrderRunsArriveInChangesNothing) {
  auto first = run("p", "2026-11-29T10:00:00Z", {outcome("a.x.y", "high", "pass"), outcome("b.x.y", "low", "pass")});
  auto second = run("p", "2026-11-29T11:00:00Z", {outcome("c.x.y", "low", "warn"), outcome("a.x.y", "high", "fail")});
  (*second.footer)["measurements"] = {{"time_to_running_s", 2.0}, {"only_second", 1}};
  auto third = run("p", "2026-11-29T12:00:00Z", {outcome("b.x.y", "low", "fail")});
  third.header["display_name"] = "P, renamed";
  const auto in_order = merge_scorecards({first, second, third});
  for (const auto& arrival : {std::vector<run_record>{third, second, first}, std::vector<run_record>{second, third, first}}) {
    run_merger merger;
    for (const auto& r : arrival) merger.add(r);
    EXPECT_EQ(merger.runs(), 3u);
    const auto cards = merger.cards();
    ASSERT_EQ(cards.size(), 1u);
    EXPECT_EQ(json(cards[0]), json(in_order[0]));
  }
  const auto& c = in_order[0];
  ASSERT_EQ(c.checks.size(), 3u);
  EXPECT_EQ(c.checks[0].check_id, "a.x.y");
  EXPECT_EQ(c.checks[1].check_id, "b.x.y");
  EXPECT_EQ(c.checks[2].check_id, "c.x.y");
  EXPECT_EQ(outcome_in(c, "a.x.y"), "fail");
  EXPECT_EQ(outcome_in(c, "b.x.y"), "fail");
  EXPECT_EQ(c.provider.display_name, "P, renamed");  // the latest run's header
}

TEST(Merge, SourcesAndProvidersStayApart) {
  const auto cards =
      merge_scorecards({run("p", "1", {outcome("a.x.y", "high", "pass")}), run("p", "2", {outcome("a.x.y", "high", "fail")}, "live"),
                        run("q", "3", {outcome("a.x.y", "high", "pass")})});
  ASSERT_EQ(cards.size(), 3u);
  EXPECT_EQ(outcome_in(card_of(cards, "p"), "a.x.y"), "pass");
  EXPECT_EQ(outcome_in(card_of(cards, "p", "live"), "a.x.y"), "fail");
  EXPECT_EQ(card_of(cards, "p").runs, 1);
}

TEST(Diff, RegressionsImprovementsAndOtherChanges) {
  const auto before = merge_scorecards({run("p", "1",
                                            {outcome("a.x.y", "critical", "pass"), outcome("b.x.y", "high", "fail"),
                                             outcome("c.x.y", "low", "skipped"), outcome("d.x.y", "low", "pass")})});
  const auto after = merge_scorecards({run("p", "2",
                                           {outcome("a.x.y", "critical", "fail"), outcome("b.x.y", "high", "warn"),
                                            outcome("c.x.y", "low", "errored"), outcome("e.x.y", "low", "pass")})});
  const auto changes = diff_scorecards(before, after);
  std::map<std::string, std::string> kind;
  for (const auto& c : changes) kind[c.check_id] = c.kind;
  EXPECT_EQ(kind["a.x.y"], "regression");
  EXPECT_EQ(kind["b.x.y"], "improvement");
  EXPECT_EQ(kind["c.x.y"], "changed");
  EXPECT_EQ(kind["d.x.y"], "removed");
  EXPECT_EQ(kind["e.x.y"], "added");
  EXPECT_EQ(kind[""], "regression");  // the critical failure caps the tier
  for (const auto& c : changes) {
    if (c.check_id == "a.x.y") {
      EXPECT_EQ(c.reason, "fail because");
    }
  }
}

TEST(Diff, ANewFailureIsARegressionWhateverCameBefore) {
  const auto before = merge_scorecards({run("p", "1", {outcome("a.x.y", "low", "skipped"), outcome("z.x.y", "low", "pass")})});
  const auto after = merge_scorecards(
      {run("p", "2", {outcome("a.x.y", "low", "fail"), outcome("b.x.y", "low", "fail"), outcome("z.x.y", "low", "pass")})});
  for (const auto& c : diff_scorecards(before, after)) {
    if (!c.check_id.empty()) {
      EXPECT_EQ(c.kind, "regression") << c.check_id;
    }
  }
}

TEST(Diff, IdenticalReportsDoNotDiffer) {
  const auto cards = merge_scorecards({run("p", "1", {outcome("a.x.y", "high", "fail")})});
  EXPECT_TRUE(diff_scorecards(cards, cards).empty());
}

TEST(Diff, ProvidersAddedAndRemoved) {
  const auto a = merge_scorecards({run("p", "1", {outcome("a.x.y", "high", "pass")})});
  const auto b = merge_scorecards({run("q", "1", {outcome("a.x.y", "high", "pass")})});
  const auto changes = diff_scorecards(a, b);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].provider, "p");
  EXPECT_EQ(changes[0].kind, "removed");
  EXPECT_EQ(changes[1].kind, "added");
}
