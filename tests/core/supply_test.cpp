// Supply composition measured from offer rows, and graded against a declared supply claim: each
// verdict, and that a claim can be contradicted.
#include <neograde/core/supply.hpp>

#include <gtest/gtest.h>

using namespace neograde;
using nlohmann::json;

namespace {

offer row(const std::string& type, const std::string& supplier, std::optional<int> gpus = std::nullopt, std::optional<bool> gpu = true) {
  offer o{.instance_type = type, .region = "r", .gpu = gpu, .underlying_provider = supplier};
  if (gpus) o.params["gpu_count"] = std::to_string(*gpus);
  return o;
}

// Three rows from one centralised supplier and one from another: a "community" of two.
std::vector<offer> concentrated() {
  return {row("a", "hyperlease-dc"), row("b", "rackmonger-cloud"), row("c", "hyperlease-dc"), row("d", "hyperlease-dc")};
}

// Ten suppliers with one row each.
std::vector<offer> spread() {
  std::vector<offer> rows;
  for (int i = 0; i < 10; ++i) rows.push_back(row("t" + std::to_string(i), "node-" + std::to_string(i)));
  return rows;
}

const json decentralised = {{"claim", "decentralised"}, {"statement", "a community-powered data center"}, {"source", "s"}};

}  // namespace

TEST(SupplyComposition, SharesByOfferRowsWhenGpuCountsAreNotStated) {
  const auto m = measure_supply(concentrated());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->offers, 4u);
  EXPECT_EQ(m->unattributed, 0u);
  EXPECT_EQ(m->basis, "offers");
  ASSERT_EQ(m->suppliers.size(), 2u);
  EXPECT_EQ(m->suppliers[0].name, "hyperlease-dc");
  EXPECT_EQ(m->suppliers[0].offers, 3u);
  EXPECT_FALSE(m->suppliers[0].gpus);
  EXPECT_DOUBLE_EQ(m->largest_share, 0.75);
  EXPECT_DOUBLE_EQ(m->largest_two_share, 1.0);
  EXPECT_DOUBLE_EQ(m->hhi, 75 * 75 + 25 * 25);
  EXPECT_EQ(describe_supply(*m),
            "2 suppliers over 4 GPU offer rows (shares by offer rows): largest 75% (hyperlease-dc), largest two 100%, HHI 6,250");
}

TEST(SupplyComposition, SharesByGpusWhenEveryRowStatesItsCount) {
  // One 8-GPU row outweighs three single-GPU rows of another supplier.
  const auto m = measure_supply({row("a", "voltage-park", 8), row("b", "massed-compute", 1), row("c", "massed-compute", 1),
                                 row("d", "Massed Compute", 1), row("cpu", "sesterce", 0, false), row("e", "", 1)});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->basis, "gpus");
  EXPECT_EQ(m->offers, 5u) << "the CPU row is no GPU supply";
  EXPECT_EQ(m->unattributed, 1u);
  ASSERT_EQ(m->suppliers.size(), 2u) << "names are compared without case and punctuation";
  EXPECT_EQ(m->suppliers[0].name, "voltage-park");
  EXPECT_EQ(m->suppliers[0].gpus, 8u);
  EXPECT_EQ(m->suppliers[1].offers, 3u);
  EXPECT_EQ(m->suppliers[1].gpus, 3u);
  EXPECT_NEAR(m->largest_share, 8.0 / 11, 1e-12);
  EXPECT_DOUBLE_EQ(m->largest_two_share, 1.0);
  EXPECT_NE(describe_supply(*m).find("1 row naming no supplier"), std::string::npos) << describe_supply(*m);
}

TEST(SupplyComposition, NoneWhereNoRowNamesASupplier) {
  EXPECT_FALSE(measure_supply({}));
  EXPECT_FALSE(measure_supply({row("a", ""), row("b", "")}));
}

TEST(SupplyComposition, RoundTripsThroughTheFooter) {
  const auto m = *measure_supply({row("a", "x", 2), row("b", "y", 1)});
  const json footer = {{measurement::supply_composition::key, m}};
  const auto back = measurement::read<measurement::supply_composition>(footer);
  ASSERT_TRUE(back);
  EXPECT_TRUE(*back == m) << footer.dump();
  // A hand-edited footer reads leniently: wrong types read as defaults, never a throw.
  const auto odd = measurement::read<measurement::supply_composition>(
      json{{"supply_composition", {{"offers", "four"}, {"suppliers", {1, {{"name", 3}, {"gpus", -1}}}}}}});
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->offers, 0u);
  ASSERT_EQ(odd->suppliers.size(), 1u);
  EXPECT_FALSE(odd->suppliers[0].gpus);
}

TEST(SupplyClaim, ADecentralisedClaimOverTwoCentralisedSuppliersIsContradicted) {
  const auto v = judge_supply(decentralised, measure_supply(concentrated()));
  EXPECT_EQ(v.verdict, "contradicted") << v.measured;
  EXPECT_EQ(v.declared, "decentralised supply (\"a community-powered data center\"): HHI at most 1,800");
  EXPECT_EQ(v.source, "s");
  EXPECT_NE(v.measured.find("HHI 6,250, above 1,800 (highly concentrated)"), std::string::npos) << v.measured;
}

TEST(SupplyClaim, ADecentralisedClaimOverSpreadSupplyIsConsistent) {
  const auto m = measure_supply(spread());
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->hhi, 1000);
  EXPECT_EQ(judge_supply(decentralised, m).verdict, "consistent");
  // The spec may hold its network to another limit: then the same supply contradicts it.
  auto strict = decentralised;
  strict["max_hhi"] = 500;
  EXPECT_EQ(judge_supply(strict, m).verdict, "contradicted");
}

TEST(SupplyClaim, NoClaimOrNoMeasurementIsUnverified) {
  const auto none = judge_supply(nullptr, measure_supply(concentrated()));
  EXPECT_EQ(none.verdict, "unverified");
  EXPECT_EQ(none.declared, "");
  EXPECT_NE(none.measured.find("2 suppliers"), std::string::npos) << "the composition is shown even without a claim";
  const auto unmeasured = judge_supply(decentralised, std::nullopt);
  EXPECT_EQ(unmeasured.verdict, "unverified");
  EXPECT_NE(unmeasured.measured.find("names no supplier"), std::string::npos) << unmeasured.measured;
}

TEST(SupplyClaim, NamedSuppliersAreContradictedByAnUnnamedOne) {
  const json named = {{"claim", "named_suppliers"}, {"suppliers", {"Hyperlease DC", "rackmonger-cloud"}}, {"source", "s"}};
  EXPECT_EQ(judge_supply(named, measure_supply(concentrated())).verdict, "consistent");
  auto rows = concentrated();
  rows.push_back(row("e", "shadowcolo"));
  const auto v = judge_supply(named, measure_supply(rows));
  EXPECT_EQ(v.verdict, "contradicted");
  EXPECT_NE(v.measured.find("listed but not named: shadowcolo"), std::string::npos) << v.measured;
}

TEST(SupplyClaim, ACountIsContradictedByFewerSuppliers) {
  const json count = {{"claim", "count"}, {"at_least", 3}, {"source", "s"}};
  EXPECT_EQ(judge_supply(count, measure_supply(concentrated())).verdict, "contradicted");
  EXPECT_EQ(judge_supply(count, measure_supply(spread())).verdict, "consistent");
  EXPECT_EQ(judge_supply(count, measure_supply(spread())).declared, "at least 3 suppliers");
}

// An aggregator's same type in the same region from two suppliers is two rows, not one listed
// twice (issue 41.3); a supplier the launch parameters already carry is not said twice.
TEST(OfferKey, TheSupplierIsPartOfTheRow) {
  neograde::offer a{.instance_type = "H100", .region = "us-east"};
  auto b = a;
  a.underlying_provider = "lambda";
  b.underlying_provider = "nebius";
  EXPECT_NE(a.key(), b.key());
  EXPECT_EQ(a.key(), "H100 @ us-east from lambda");
  a.params = {{"cloud", "lambda"}};
  EXPECT_EQ(a.key(), "H100 @ us-east {cloud=lambda}");
  EXPECT_EQ(neograde::offer{.instance_type = "H100"}.key(), "H100");
}
