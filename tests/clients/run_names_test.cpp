// The run-name convention and the billed-time estimate, each kept in one place (issue 20).

#include <neograde/clients/run_names.hpp>
#include <neograde/clients/spend.hpp>

#include <gtest/gtest.h>

using namespace neograde;

TEST(RunNames, ARunsNamesCarryItsIdAndAreRecognisedBySweeps) {
  const auto id = new_run_id();
  ASSERT_EQ(id.size(), 8u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_NE(new_run_id(), id);  // 2^-32 to collide
  EXPECT_EQ(run_name_prefix("0a1b2c3d"), "neograde-0a1b2c3d-");
  EXPECT_EQ(run_tag("0a1b2c3d"), "neograde-0a1b2c3d");
  EXPECT_EQ(run_tag_of(run_name_prefix("0a1b2c3d") + "lc"), "neograde-0a1b2c3d");
  EXPECT_EQ(run_tag_of("my-own-instance"), "neograde");
  EXPECT_EQ(run_tag_of("neograde-unterminated"), "neograde");

  EXPECT_TRUE(is_run_name(run_name_prefix(id) + "lc"));
  EXPECT_TRUE(is_run_name("neograde-0a1b2c3d-key"));
  EXPECT_FALSE(is_run_name("neograde-0a1b2c3d-"));     // no role
  EXPECT_FALSE(is_run_name("neograde-0A1B2C3D-lc"));   // not lower-case hex
  EXPECT_FALSE(is_run_name("neograde-0a1b2c3-lc"));    // seven digits
  EXPECT_FALSE(is_run_name("neograde-0a1b2c3dd-lc"));  // nine
  EXPECT_FALSE(is_run_name("production-0a1b2c3d-lc"));
  EXPECT_FALSE(is_run_name("xneograde-0a1b2c3d-lc"));
}

TEST(BilledSeconds, BootAQuarterHourOfWorkAndTermination) {
  EXPECT_DOUBLE_EQ(billed_seconds_estimate(600, 300), 600 + 900 + 300);
  EXPECT_DOUBLE_EQ(billed_seconds_estimate(600, 300, 120), 600 + 900 + 120 + 300);
}
