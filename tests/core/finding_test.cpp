// The outcome, severity and tier vocabularies and their classifiers: every reader of a results
// file grades through these, so each value is pinned here.
#include <neograde/core/finding.hpp>

#include <gtest/gtest.h>

#include <set>

using namespace neograde;

TEST(Vocabulary, EveryOutcomeReadsBackFromItsWord) {
  for (const auto o : reported_outcomes) {
    EXPECT_EQ(outcome_from_string(to_string(o)), o) << to_string(o);
    EXPECT_EQ(nlohmann::json(o).get<std::string>(), to_string(o));
  }
  EXPECT_EQ(to_string(outcome::insufficient_funds), "insufficient_funds");
  EXPECT_EQ(outcome_from_string("passed"), outcome::unknown);
  EXPECT_EQ(outcome_from_string(""), outcome::unknown);
  EXPECT_EQ(outcome_from_string("PASS"), outcome::unknown);
}

TEST(Vocabulary, ReportedOutcomesAreEveryKnownOutcomeOnce) {
  std::set<outcome> seen(reported_outcomes.begin(), reported_outcomes.end());
  EXPECT_EQ(seen.size(), reported_outcomes.size());
  EXPECT_FALSE(seen.contains(outcome::unknown));
  EXPECT_EQ(reported_outcomes.size(), static_cast<std::size_t>(outcome::insufficient_funds));  // every value but unknown
}

TEST(Vocabulary, OnlyPassWarnAndFailAreGraded) {
  for (const auto o : reported_outcomes) {
    const bool graded = o == outcome::pass || o == outcome::warn || o == outcome::fail;
    EXPECT_EQ(is_graded(o), graded) << to_string(o);
    EXPECT_EQ(credit(o).has_value(), graded) << to_string(o);
    EXPECT_EQ(rank(o).has_value(), graded) << to_string(o);
    EXPECT_EQ(is_finding(o), o == outcome::warn || o == outcome::fail) << to_string(o);
  }
  EXPECT_FALSE(is_graded(outcome::unknown));
  EXPECT_EQ(credit(outcome::pass), 1.0);
  EXPECT_EQ(credit(outcome::warn), 0.5);
  EXPECT_EQ(credit(outcome::fail), 0.0);
  EXPECT_EQ(rank(outcome::pass), 2);
  EXPECT_EQ(rank(outcome::warn), 1);
  EXPECT_EQ(rank(outcome::fail), 0);
}

TEST(Vocabulary, SeverityWeightsAndOrder) {
  EXPECT_EQ(weight(severity::critical), 8);
  EXPECT_EQ(weight(severity::high), 4);
  EXPECT_EQ(weight(severity::medium), 2);
  EXPECT_EQ(weight(severity::low), 1);
  EXPECT_EQ(weight(severity::unknown), 1);
  EXPECT_EQ(severity_rank(severity::critical), 0);
  EXPECT_EQ(severity_rank(severity::high), 1);
  EXPECT_EQ(severity_rank(severity::medium), 2);
  EXPECT_EQ(severity_rank(severity::low), 3);
  EXPECT_EQ(severity_rank(severity::unknown), 4);
  for (const auto s : {severity::critical, severity::high, severity::medium, severity::low})
    EXPECT_EQ(severity_from_string(to_string(s)), s);
  EXPECT_EQ(severity_from_string("severe"), severity::unknown);
}

TEST(Vocabulary, TiersFromScoreWithTheCriticalCap) {
  EXPECT_EQ(tier_for(std::nullopt), tier::not_graded);
  EXPECT_EQ(tier_for(std::nullopt, true), tier::not_graded);
  EXPECT_EQ(tier_for(100), tier::platinum);
  EXPECT_EQ(tier_for(95), tier::platinum);
  EXPECT_EQ(tier_for(94.9), tier::gold);
  EXPECT_EQ(tier_for(85), tier::gold);
  EXPECT_EQ(tier_for(84.9), tier::silver);
  EXPECT_EQ(tier_for(70), tier::silver);
  EXPECT_EQ(tier_for(69.9), tier::bronze);
  EXPECT_EQ(tier_for(50), tier::bronze);
  EXPECT_EQ(tier_for(49.9), tier::underperform);
  EXPECT_EQ(tier_for(0), tier::underperform);
  EXPECT_EQ(tier_for(99, true), tier::bronze);
  EXPECT_EQ(tier_for(60, true), tier::bronze);
  EXPECT_EQ(tier_for(10, true), tier::underperform);
  EXPECT_EQ(to_string(tier::not_graded), "Not graded");
  EXPECT_EQ(to_string(tier::platinum), "Platinum");
  for (const auto t : {tier::not_graded, tier::underperform, tier::bronze, tier::silver, tier::gold, tier::platinum})
    EXPECT_EQ(tier_from_string(to_string(t)), t);
  EXPECT_EQ(tier_from_string("Diamond"), std::nullopt);
  EXPECT_EQ(tier_from_string(""), std::nullopt);
}
