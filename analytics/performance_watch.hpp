#pragma once
// One drive's performance-inferred throttling: on each poll, takes the
// drive's workload throughput samples from the feed (core/throughput_feed.hpp),
// runs them through a PerformanceThrottleDetector and says what the span since
// the previous poll showed, for the ThermalDetector to merge as source
// `performance`.
//
// The temperature of a sample is the composite interpolated between the two
// polls around its interval end (samples come once per interval, polls when
// they come). A sample of another workload, or one that is not fixed, ends
// the episode in progress at the previous sample and starts a fresh baseline;
// so do settings changed by a reload. An episode whose workload stopped
// reporting for three of its intervals ends at its last sample.
//
// Not thread-safe: owned by the drive's DriveAnalytics, driven by its poller.
#include <deque>
#include <optional>
#include <string>

#include "analytics/performance_throttle.hpp"
#include "analytics/thermal.hpp"
#include "core/throughput_feed.hpp"

namespace nvmond {

class PerformanceWatch {
 public:
  // `feed` may be null (no workloads report): every poll then says nothing.
  explicit PerformanceWatch(ThroughputFeed* feed) : feed_(feed) {}

  // `composite_c`/`warning_c` at `now` (0: unknown, nothing is inferred).
  InferredThrottle poll(const std::string& serial, WallTime now, double composite_c, double warning_c,
                        const PerformanceThrottleSettings& settings);

  // The newest episodes (at most kKeptEpisodes), closed ones first, then the
  // open one: for status displays and tests.
  std::deque<PerformanceThrottleEvent> episodes() const;
  static constexpr std::size_t kKeptEpisodes = 64;

 private:
  struct Span;  // what one poll collects
  double celsius_at(WallTime t, WallTime now, double composite_c) const;
  void observe(const WorkloadThroughput& x, double celsius, double warning_c, Span& span);
  void end_episode(Span& span);  // at the last sample; fresh baseline
  void keep(PerformanceThrottleEvent e);

  ThroughputFeed* feed_;
  PerformanceThrottleSettings settings_;
  std::optional<PerformanceThrottleDetector> detector_;
  std::string workload_;
  std::optional<WallTime> last_end_;  // end of the newest sample observed
  Duration last_interval_{};
  std::optional<WallTime> last_poll_;
  double last_celsius_ = 0;
  std::deque<PerformanceThrottleEvent> episodes_;
};

}  // namespace nvmond
