#include <gtest/gtest.h>

#include "drivelog/self_test_pacing.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

int reads_in(SelfTestPacing& pacing, int polls) {
  int reads = 0;
  for (int i = 0; i < polls; ++i) reads += pacing.due() ? 1 : 0;
  return reads;
}

TEST(SelfTestPacing, AnIdleDriveIsReadAtMostOncePerTenMinutes) {
  EXPECT_EQ(SelfTestPacing(10s).idle_polls(), 60u);
  EXPECT_EQ(SelfTestPacing(7s).idle_polls(), 86u) << "rounded up: never more often than once per 10 minutes";
  EXPECT_EQ(SelfTestPacing(1h).idle_polls(), 1u) << "a slow poll reads every time";
  SelfTestPacing pacing(10s);
  EXPECT_TRUE(pacing.due()) << "the first poll reads";
  pacing.read(SelfTestLog{});
  EXPECT_EQ(reads_in(pacing, 59), 0);
  EXPECT_TRUE(pacing.due());
}

TEST(SelfTestPacing, ARunningTestIsReadEveryPoll) {
  SelfTestPacing pacing(10s);
  ASSERT_TRUE(pacing.due());
  pacing.read(SelfTestLog{.current_operation = 2, .completion_pct = 5, .results = {}});
  EXPECT_EQ(reads_in(pacing, 5), 5);
  pacing.read(SelfTestLog{});
  EXPECT_EQ(reads_in(pacing, 5), 0);
}

TEST(SelfTestPacing, AStartIsReadAtTheNextPoll) {
  SelfTestPacing pacing(10s);
  ASSERT_TRUE(pacing.due());
  pacing.read(SelfTestLog{});
  EXPECT_FALSE(pacing.due());
  pacing.started();
  EXPECT_TRUE(pacing.due());
  pacing.read(SelfTestLog{});
  EXPECT_FALSE(pacing.due());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
