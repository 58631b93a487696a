// The spin before sleeping is bounded: by its cap on each wait, and by a
// back-off that makes a device slower than the cap cost almost nothing.
#include "workloads/completion_spin.hpp"

#include <gtest/gtest.h>

namespace nvmond {
namespace {

using std::chrono::microseconds;

TEST(CompletionSpin, ZeroCapNeverSpins) {
  CompletionSpin s(Duration(0));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.budget(), Duration(0));
}

TEST(CompletionSpin, SpinsItsCapWhileCompletionsComeWithinIt) {
  CompletionSpin s(microseconds(50));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(s.budget(), microseconds(50));
    s.caught();
  }
}

// How many waits in a row sleep at once before the next spin.
int sleeps_before_next_spin(CompletionSpin& s) {
  int n = 0;
  while (s.budget() == Duration(0)) ++n;
  return n;
}

TEST(CompletionSpin, EachMissInARowDoublesTheWaitsThatSleepAtOnceUpToTheLimit) {
  CompletionSpin s(microseconds(50));
  ASSERT_EQ(s.budget(), microseconds(50));
  for (unsigned k = 1; k <= CompletionSpin::kMaxBackoffShift + 2; ++k) {
    s.missed();
    const unsigned shift = std::min(k, CompletionSpin::kMaxBackoffShift);
    EXPECT_EQ(sleeps_before_next_spin(s), 1 << shift) << "after " << k << " misses";
  }
}

TEST(CompletionSpin, ACatchEndsTheBackOff) {
  CompletionSpin s(microseconds(50));
  for (int i = 0; i < 4; ++i) {
    s.missed();
    sleeps_before_next_spin(s);
  }
  s.caught();
  EXPECT_EQ(s.budget(), microseconds(50));
  s.missed();
  EXPECT_EQ(sleeps_before_next_spin(s), 2);
}

}  // namespace
}  // namespace nvmond
