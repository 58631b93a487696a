#include "workloads/rate_limiter.hpp"

#include <gtest/gtest.h>

namespace nvmond {
namespace {

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

TEST(RateLimiter, IopsLimitHoldsOverTenSimulatedSeconds) {
  ManualClock clock;
  RateLimiter limiter(5000.0, 50.0);
  const std::uint64_t ops = granted_over(limiter, clock, std::chrono::seconds(10), 1.0);
  // rate * time + one burst, give or take one op.
  EXPECT_NEAR(static_cast<double>(ops), 50'000.0 + 50.0, 2.0);
}

TEST(RateLimiter, BytesLimitWithCostsLargerThanTheBucket) {
  ManualClock clock;
  // 1 MB/s with a 64 KiB bucket and 128 KiB I/Os: each I/O puts it in debt.
  RateLimiter limiter(1e6, 65536.0);
  const std::uint64_t bytes = granted_over(limiter, clock, std::chrono::seconds(20), 131072.0);
  EXPECT_GE(static_cast<double>(bytes), 20e6 - 131072.0);
  EXPECT_LE(static_cast<double>(bytes), 20e6 + 65536.0 + 131072.0);
}

TEST(RateLimiter, IdleTimeRefillsOnlyUpToTheBurst) {
  ManualClock clock;
  RateLimiter limiter(100.0, 10.0);
  clock.advance(std::chrono::hours(1));
  int immediate = 0;
  while (limiter.acquire(since_epoch(clock), 1.0).count() == 0) ++immediate;
  EXPECT_EQ(immediate, 10);
}

TEST(RateLimiter, WaitIsTheTimeUntilTheDebtIsPaid) {
  ManualClock clock;
  RateLimiter limiter(1000.0, 1.0);
  EXPECT_EQ(limiter.acquire(since_epoch(clock), 2.0).count(), 0);  // one unit into debt
  Duration wait = limiter.acquire(since_epoch(clock), 1.0);
  EXPECT_NEAR(seconds(wait), 0.001, 1e-6);
}

}  // namespace
}  // namespace nvmond
