// FailureState: what about a repeating failure is news (a log line) and
// what is not.
#include <gtest/gtest.h>

#include "core/failure_state.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(FailureState, StartedChangedAndRecoveredAreNewsAndTheSameFailureAgainIsNot) {
  FailureState s;
  EXPECT_FALSE(s.succeeded());
  EXPECT_EQ(s.failed(ErrorReason::full), FailureState::Change::started);
  EXPECT_EQ(s.failed(ErrorReason::full), FailureState::Change::none);
  EXPECT_EQ(s.failed(ErrorReason::io), FailureState::Change::changed);
  EXPECT_EQ(s.failing(), ErrorReason::io);
  EXPECT_TRUE(s.succeeded());
  EXPECT_FALSE(s.succeeded());
  EXPECT_EQ(s.failed(ErrorReason::io), FailureState::Change::started);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
