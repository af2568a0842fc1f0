#include <neograde/clients/delivered.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;

TEST(PriceTolerance, HalfTheLastDecimalWrittenInTheProvidersUnit) {
  EXPECT_DOUBLE_EQ(price_tolerance_usd(1.66, 1), 0.005);
  EXPECT_DOUBLE_EQ(price_tolerance_usd(1.6568, 1), 0.00005);
  EXPECT_DOUBLE_EQ(price_tolerance_usd(3, 1), 0.005);        // whole dollars: still half a cent at most
  EXPECT_DOUBLE_EQ(price_tolerance_usd(1.29, 0.01), 0.005);  // Lambda's whole cents
  EXPECT_NEAR(price_tolerance_usd(1.2925, 0.01), 0.00005, 1e-12);
}

// Prime Intellect shows the GPU count its launch sends: twice the count ordered is a parameter
// shown otherwise; the same number written otherwise is not; one the instance does not show is
// not judged.
TEST(ParamsShownOtherwise, ALaunchParameterShownOtherwiseThanOrdered) {
  const auto& spec = test::spec("primeintellect");
  ASSERT_TRUE(spec.instance_fields.contains("gpu_count"));
  offer order;
  order.params = {{"gpu_count", "1"}, {"not_on_the_instance", "x"}};
  instance got;
  EXPECT_TRUE(params_shown_otherwise(got, order, spec).empty());
  got.params["gpu_count"] = "1.0";
  EXPECT_TRUE(params_shown_otherwise(got, order, spec).empty());
  got.params["gpu_count"] = "2";
  const auto wrong = params_shown_otherwise(got, order, spec);
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_EQ(wrong.front(), "gpu_count 2 (ordered 1)");
}

TEST(ComparePrice, WithinTheProvidersRoundingOrBeyond) {
  const auto& spec = test::spec("primeintellect");
  offer order;
  instance got;
  EXPECT_FALSE(compare_price(got, order, spec));
  order.price_per_hour_usd = 1.29;
  got.price_per_hour_usd = 1.29;
  ASSERT_TRUE(compare_price(got, order, spec));
  EXPECT_TRUE(compare_price(got, order, spec)->as_listed());
  got.price_per_hour_usd = 1.6125;  // 25 % above
  const auto above = compare_price(got, order, spec);
  EXPECT_FALSE(above->as_listed());
  EXPECT_NE(above->describe().find("+25.0 %"), std::string::npos) << above->describe();
}
