#include <neograde/emulator/quirks.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace neograde::emulator;

TEST(QuirkRegistry, EveryNameRoundTripsThroughItsEnum) {
  std::set<std::string_view> names;
  for (const auto& q : known_quirks()) {
    EXPECT_TRUE(names.insert(q.name).second) << q.name << " twice";
    EXPECT_FALSE(q.description.empty()) << q.name;
    ASSERT_EQ(quirk_named(q.name), q.id) << q.name;
    EXPECT_EQ(quirk_name(q.id), q.name);
    EXPECT_TRUE(is_known_quirk(q.name));
  }
  EXPECT_EQ(known_quirks().size(), quirk_count);
}

TEST(QuirkRegistry, UnknownNamesAreRejected) {
  for (const auto* name : {"no_such_quirk", "", "Flapping", "flapping ", "terminate_500\n"}) {
    EXPECT_FALSE(quirk_named(name)) << name;
    EXPECT_FALSE(is_known_quirk(name)) << name;
  }
}
