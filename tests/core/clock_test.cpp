// The virtual clock tests share between a run and its emulator (issue 19): it moves only by
// sleeps, by exactly what was slept, from any thread.

#include <neograde/core/clock.hpp>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace neograde;
using namespace std::chrono_literals;

TEST(VirtualClock, MovesOnlyWhenSomeoneSleepsAndByExactlyThat) {
  virtual_clock c;
  const auto start = c.now();
  std::this_thread::sleep_for(5ms);  // real time passing is not virtual time passing
  EXPECT_EQ(c.now(), start);
  c.sleep(1500ms);
  EXPECT_EQ(c.now() - start, 1500ms);
  c.sleep(-3ms);  // a negative wait is no wait
  c.sleep(0ms);
  EXPECT_EQ(c.now() - start, 1500ms);
}

TEST(VirtualClock, SleepsFromSeveralThreadsAllCount) {
  virtual_clock c;
  const auto start = c.now();
  std::vector<std::thread> sleepers;
  for (int t = 0; t < 4; ++t)
    sleepers.emplace_back([&c] {
      for (int i = 0; i < 1000; ++i) c.sleep(1ms);
    });
  for (auto& t : sleepers) t.join();
  EXPECT_EQ(c.now() - start, 4000ms);
}

// One conversion of provider seconds to run-clock time: cut to whole milliseconds (or rounded up),
// never under its floor.
TEST(ProviderTime, ScalesCutsAndFloors) {
  using std::chrono::milliseconds;
  EXPECT_EQ(provider_time(900, 0.01), milliseconds(9000));
  EXPECT_EQ(provider_time(0.0015, 1.0), milliseconds(1));
  EXPECT_EQ(provider_time(0.0015, 1.0, milliseconds(0), true), milliseconds(2));
  EXPECT_EQ(provider_time(5, 0.0001, milliseconds(5)), milliseconds(5));
  EXPECT_EQ(provider_time(5, 0.01, milliseconds(5)), milliseconds(50));
  EXPECT_EQ(provider_time(0, 1.0, milliseconds(1000)), milliseconds(1000));
}
