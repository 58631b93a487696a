#include "workloads/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace nvmond {

RateLimiter::RateLimiter(double rate, double burst) : rate_(rate), burst_(burst) {}

Duration RateLimiter::acquire(Duration now, double cost) {
  const std::int64_t t = now.count();
  if (!started_) {
    started_ = true;
    next_ns_ = t;
  }
  if (t < next_ns_) return Duration(next_ns_ - t);
  // Behind schedule: catch up by at most `burst` units including this one.
  const double slack_ns = std::max(0.0, burst_ - cost) / rate_ * 1e9;
  next_ns_ = std::max(next_ns_, t - static_cast<std::int64_t>(slack_ns));
  const double step = cost / rate_ * 1e9 + residue_ns_;
  const double whole = std::floor(step);
  residue_ns_ = step - whole;
  next_ns_ += static_cast<std::int64_t>(whole);
  return Duration::zero();
}

}  // namespace nvmond
