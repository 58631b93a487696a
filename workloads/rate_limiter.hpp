#pragma once
// Fixed-rate pacing for IOPS or bytes/s limits ("write at N DWPD", QoS runs at
// a fixed IOPS), the way fio's rate process does it: every unit of work has a
// due time on an even schedule (cost / rate apart, starting at the first
// request); a request before its due time is told how long to wait, one at or
// after it is admitted at once. Pure on timestamps so it runs on any Clock
// (ManualClock in tests, engine time in the runner). Not thread-safe: the
// runner keeps one per worker thread with its share of the rate.
//
// A caller that wakes late catches up, but never by more than `burst` units:
// lateness beyond that is forgiven (the schedule restarts from now), so a
// stopped worker does not fire its whole backlog when it resumes.
#include "core/clock.hpp"

namespace nvmond {

class RateLimiter {
 public:
  // `rate`: units (I/Os or bytes) per second, > 0. `burst`: how many units may
  // be taken back to back when the caller is behind schedule (at least one
  // request always passes when it is due, whatever its cost).
  RateLimiter(double rate, double burst);

  // Admits `cost` units at time `now` if they are due and returns zero;
  // otherwise returns how long until they are (never zero: the caller should
  // sleep that long and ask again). A cost larger than the burst is allowed:
  // the next due time moves cost / rate later, so the long-run rate holds.
  Duration acquire(Duration now, double cost);

  double rate() const { return rate_; }

 private:
  double rate_;
  double burst_;
  std::int64_t next_ns_ = 0;  // due time of the next request, on `now`'s clock
  double residue_ns_ = 0;     // fraction of a nanosecond carried between steps
  bool started_ = false;
};

}  // namespace nvmond
