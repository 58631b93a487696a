#include "workloads/rate_limiter.hpp"

#include <gtest/gtest.h>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

Duration since_epoch(const ManualClock& c) { return c.wall().time_since_epoch(); }

// A greedy client that asks whenever the limiter lets it, on simulated time.
std::uint64_t granted_over(RateLimiter& limiter, ManualClock& clock, Duration span, double cost) {
  const auto end = clock.wall() + span;
  std::uint64_t units = 0;
  while (clock.wall() < end) {
    Duration wait = limiter.acquire(since_epoch(clock), cost);
    if (wait.count() == 0) {
      units += static_cast<std::uint64_t>(cost);
    } else {
      clock.advance(wait);
    }
  }
  return units;
}

TEST(RateLimiter, IopsLimitHoldsOverTenSimulatedSecondsWithoutAStartingBurst) {
  ManualClock clock;
  RateLimiter limiter(5000.0, 50.0);
  const std::uint64_t ops = granted_over(limiter, clock, std::chrono::seconds(10), 1.0);
  // rate * time, give or take the one due at the very end: nothing extra at the start.
  EXPECT_NEAR(static_cast<double>(ops), 50'000.0, 1.0);
}

TEST(RateLimiter, OnTimeRequestsAreSpacedEvenly) {
  ManualClock clock;
  RateLimiter limiter(20'000.0, 200.0);
  ASSERT_EQ(limiter.acquire(since_epoch(clock), 1.0).count(), 0);
  for (int i = 0; i < 100; ++i) {
    const Duration wait = limiter.acquire(since_epoch(clock), 1.0);
    EXPECT_EQ(wait.count(), 50'000) << i;  // 1 / 20k s, to the nanosecond
    clock.advance(wait);
    ASSERT_EQ(limiter.acquire(since_epoch(clock), 1.0).count(), 0) << i;
  }
}

TEST(RateLimiter, BytesLimitWithCostsLargerThanTheBucket) {
  ManualClock clock;
  // 1 MB/s with a 64 KiB burst and 128 KiB I/Os: each I/O pushes the next one out.
  RateLimiter limiter(1e6, 65536.0);
  const std::uint64_t bytes = granted_over(limiter, clock, std::chrono::seconds(20), 131072.0);
  EXPECT_GE(static_cast<double>(bytes), 20e6 - 131072.0);
  EXPECT_LE(static_cast<double>(bytes), 20e6 + 131072.0);
}

TEST(RateLimiter, ALateCallerCatchesUpByAtMostTheBurst) {
  ManualClock clock;
  RateLimiter limiter(100.0, 10.0);
  ASSERT_EQ(limiter.acquire(since_epoch(clock), 1.0).count(), 0);
  clock.advance(std::chrono::hours(1));
  int immediate = 0;
  while (limiter.acquire(since_epoch(clock), 1.0).count() == 0) ++immediate;
  EXPECT_EQ(immediate, 10);
}

TEST(RateLimiter, WaitIsTheTimeUntilTheNextDueTime) {
  ManualClock clock;
  RateLimiter limiter(1000.0, 1.0);
  EXPECT_EQ(limiter.acquire(since_epoch(clock), 2.0).count(), 0);  // takes 2 ms of the schedule
  Duration wait = limiter.acquire(since_epoch(clock), 1.0);
  EXPECT_NEAR(seconds(wait), 0.002, 1e-9);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
