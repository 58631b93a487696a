#include "workloads/rate_limiter.hpp"

#include <algorithm>

namespace nvmond {

RateLimiter::RateLimiter(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}

Duration RateLimiter::acquire(Duration now, double cost) {
  if (!started_) {
    started_ = true;
    last_ = now;
  }
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + rate_ * seconds(now - last_));
    last_ = now;
  }
  if (tokens_ > 0) {
    tokens_ -= cost;
    return Duration::zero();
  }
  // Round up so the caller never wakes a nanosecond early and spins.
  return from_seconds(-tokens_ / rate_) + Duration(1);
}

}  // namespace nvmond
