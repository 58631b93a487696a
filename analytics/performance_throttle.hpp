#pragma once
// Throttling seen in the data: many consumer drives never count thermal-
// management transitions, but a fixed workload's throughput falls when they
// throttle. An event (source `performance`) opens when the throughput of an
// interval falls by `drop_share` or more below the baseline while the
// composite temperature is within `margin_c` of the drive's warning
// threshold (WCTEMP), and closes at the first interval whose throughput is
// back above that line.
//
// The baseline is the mean throughput of the last `baseline_intervals`
// intervals measured while the drive was cooler than WCTEMP - margin: a
// drop while cool (an SLC cache running out) is not throttling, and the
// baseline restarts from that interval.
//
// Pure and single-threaded: the caller feeds one sample per interval of the
// same fixed workload (a changed workload needs a fresh detector).
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "core/clock.hpp"

namespace nvmond {

struct PerformanceThrottleSettings {
  double drop_share = 0.25;  // 630 → 450 MB/s is 29 %
  double margin_c = 5;
  int baseline_intervals = 10;
  bool operator==(const PerformanceThrottleSettings&) const = default;
};

struct PerformanceSample {
  WallTime time{};  // end of the interval
  double bytes_per_second = 0;
  double composite_c = 0;
  double warning_c = 0;
};

struct PerformanceThrottleEvent {
  // The event covers exactly the slow intervals: from the start of the
  // first to the start of the first recovered one.
  WallTime start{};
  std::optional<WallTime> end;
  double baseline_bytes_per_second = 0;
  double lowest_bytes_per_second = 0;
  double peak_celsius = 0;
};

class PerformanceThrottleDetector {
 public:
  explicit PerformanceThrottleDetector(PerformanceThrottleSettings s = {}) : s_(s) {}
  // Returns true when this sample opened or closed an event.
  bool observe(const PerformanceSample& x);
  bool throttling() const { return open_.has_value(); }
  const std::optional<PerformanceThrottleEvent>& open() const { return open_; }
  const std::vector<PerformanceThrottleEvent>& closed() const { return closed_; }
  // Hands over the closed events (a long-running caller keeps no history here).
  std::vector<PerformanceThrottleEvent> take_closed() { return std::exchange(closed_, {}); }
  std::optional<double> baseline() const;

 private:
  PerformanceThrottleSettings s_;
  std::deque<double> cool_;
  std::optional<WallTime> last_time_;  // end of the previous interval
  std::optional<PerformanceThrottleEvent> open_;
  std::vector<PerformanceThrottleEvent> closed_;
};

}  // namespace nvmond
