// open_test_target: a simulated soak target lives on the daemon's clock, so a
// daemon whose clock is not the host's (a simulated start, a restart with a
// history from another clock) stamps its runs and health samples with its own
// time, not the host's.
#include <gtest/gtest.h>

#include "services/targets.hpp"

#include "core/clock.hpp"
#include "runmodel/round_record.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

TEST(OpenTestTarget, AFreshSimulatedDriveStartsAtThePacingClocksTime) {
  const WallTime start = from_unix_ns(1'577'836'800'000'000'000);  // 2020-01-01, years before the host's now
  ManualClock clock(start);
  SafetyGuard guard(SafetyConfig{});
  SimSettings named;
  named.spec = sim_profile("generic");
  named.spec.name = "bench";
  named.spec.serial = "SN-BENCH";
  for (const std::string target : {"sim:bench", "sim:generic"}) {  // a [[sim]] drive, a built-in profile
    auto opened = open_test_target(target, {named}, guard, nullptr, &clock);
    ASSERT_TRUE(opened) << target << ": " << opened.error().message;
    EXPECT_EQ((*opened)->now(), start) << target;
    auto health = (*opened)->health();
    ASSERT_TRUE(health) << target;
    EXPECT_EQ(health->time, rfc3339(start)) << target;
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
