#pragma once
// Token bucket for IOPS or bytes/s limits ("write at N DWPD"). Pure on
// timestamps so it runs on any Clock (ManualClock in tests, engine time in the
// runner). Not thread-safe: the runner keeps one per worker thread with its
// share of the rate.
#include "core/clock.hpp"

namespace nvmond {

class RateLimiter {
 public:
  // `rate`: units (I/Os or bytes) per second, > 0. `burst`: how many units may
  // be taken at once after an idle period (bucket size).
  RateLimiter(double rate, double burst);

  // Takes `cost` units at time `now` if the bucket is not in debt and returns
  // zero; otherwise returns how long to wait before asking again. A cost larger
  // than the bucket is allowed (the bucket goes into debt), so any I/O size
  // makes progress and the long-run rate still holds.
  Duration acquire(Duration now, double cost);

  double rate() const { return rate_; }

 private:
  double rate_;
  double burst_;
  double tokens_;
  Duration last_{};
  bool started_ = false;
};

}  // namespace nvmond
