#include <neograde/clients/effect.hpp>

#include <gtest/gtest.h>

using namespace neograde;

// One decision for the conformance lifecycle's stop and start and the fuzzer's: a read of the goal
// state is the effect; failed or terminated ends the wait; an undocumented word cannot be told;
// anything else is not there yet (a stopped read after a start, a running one after a stop).
TEST(ReadToward, TheGoalEndedUndocumentedOrNotYet) {
  EXPECT_EQ(read_toward(instance_state::stopped, instance_state::stopped), toward::reached);
  EXPECT_EQ(read_toward(instance_state::stopped, instance_state::running), toward::not_yet);
  EXPECT_EQ(read_toward(instance_state::stopped, instance_state::stopping), toward::not_yet);
  EXPECT_EQ(read_toward(instance_state::running, instance_state::running), toward::reached);
  EXPECT_EQ(read_toward(instance_state::running, instance_state::stopped), toward::not_yet);
  EXPECT_EQ(read_toward(instance_state::running, instance_state::pending), toward::not_yet);
  for (const auto goal : {instance_state::stopped, instance_state::running}) {
    EXPECT_EQ(read_toward(goal, instance_state::failed), toward::ended);
    EXPECT_EQ(read_toward(goal, instance_state::terminated), toward::ended);
    EXPECT_EQ(read_toward(goal, instance_state::unknown), toward::undocumented);
  }
}

TEST(InstanceGone, NotFoundTerminatedOrOnItsWay) {
  EXPECT_TRUE(instance_gone(std::nullopt));
  instance i;
  for (const auto [state, gone] :
       {std::pair{instance_state::terminated, true}, std::pair{instance_state::stopping, true}, std::pair{instance_state::running, false},
        std::pair{instance_state::stopped, false}, std::pair{instance_state::pending, false}}) {
    i.state = state;
    EXPECT_EQ(instance_gone(i), gone) << nlohmann::json(state).dump();
  }
}
