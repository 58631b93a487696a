// The spin before sleeping is bounded: by its cap, by a multiple of the
// recent time to a completion, and by a back-off that makes a device slower
// than the budget, or a CPU the completion work needs, cost almost nothing.
#include "workloads/completion_spin.hpp"

#include <gtest/gtest.h>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using std::chrono::microseconds;

TEST(CompletionSpin, ZeroCapNeverSpins) {
  CompletionSpin s(Duration(0));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.budget(), Duration(0));
}

TEST(CompletionSpin, TheBudgetFollowsTheTimeToACompletionAndNeverPassesTheCap) {
  CompletionSpin s(microseconds(100));
  EXPECT_EQ(s.budget(), microseconds(100));  // nothing caught yet
  for (int i = 0; i < 200; ++i) s.caught(microseconds(10));
  const Duration b = s.budget();
  EXPECT_GE(b, microseconds(CompletionSpin::kBudgetFactor * 10));
  EXPECT_LE(b, microseconds(CompletionSpin::kBudgetFactor * 10 + 1));
  for (int i = 0; i < 200; ++i) s.caught(microseconds(90));
  EXPECT_EQ(s.budget(), microseconds(100));
}

// How many waits in a row sleep at once before the next spin.
int sleeps_before_next_spin(CompletionSpin& s) {
  int n = 0;
  while (s.budget() == Duration(0)) ++n;
  return n;
}

// A device that became slower: each spin that runs out doubles the budget
// (up to the cap), so the spin finds the new latency again.
TEST(CompletionSpin, ASpinThatRanOutDoublesTheNextBudget) {
  CompletionSpin s(microseconds(100));
  for (int i = 0; i < 200; ++i) s.caught(microseconds(10));
  const Duration before = s.budget();
  s.ran_out();
  sleeps_before_next_spin(s);
  s.ran_out();
  sleeps_before_next_spin(s);
  s.caught(microseconds(60));  // also unwinds one step of the back-off
  EXPECT_GT(s.budget(), 3 * before);
}

TEST(CompletionSpin, EachFailureInARowDoublesTheWaitsThatSleepAtOnceUpToTheLimit) {
  CompletionSpin s(microseconds(50));
  ASSERT_EQ(s.budget(), microseconds(50));
  for (unsigned k = 1; k <= CompletionSpin::kMaxBackoffShift + 2; ++k) {
    if (k % 2 == 0) s.ran_out();
    else s.lost_cpu();
    const unsigned shift = std::min(k, CompletionSpin::kMaxBackoffShift);
    EXPECT_EQ(sleeps_before_next_spin(s), (1 << shift) - 1) << "after " << k << " failures";
  }
}

// Where spins mostly catch their completion the back-off unwinds, one step
// per catch; where they mostly fail it stays long.
TEST(CompletionSpin, EachCatchShortensTheBackOffByOneStep) {
  CompletionSpin s(microseconds(50));
  for (int i = 0; i < 4; ++i) {
    s.lost_cpu();
    sleeps_before_next_spin(s);
  }
  s.caught(microseconds(5));  // k: 4 -> 3
  s.caught(microseconds(5));  // 3 -> 2
  s.lost_cpu();               // 2 -> 3
  EXPECT_EQ(sleeps_before_next_spin(s), 7);
  for (int i = 0; i < 3; ++i) s.caught(microseconds(5));
  EXPECT_GT(s.budget(), Duration(0));
  s.lost_cpu();
  EXPECT_EQ(sleeps_before_next_spin(s), 1);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
