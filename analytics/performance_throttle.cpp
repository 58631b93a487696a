#include "analytics/performance_throttle.hpp"

#include <algorithm>
#include <numeric>

namespace nvmond {

std::optional<double> PerformanceThrottleDetector::baseline() const {
  if (cool_.empty()) return std::nullopt;
  return std::accumulate(cool_.begin(), cool_.end(), 0.0) / static_cast<double>(cool_.size());
}

bool PerformanceThrottleDetector::observe(const PerformanceSample& x) {
  const WallTime interval_start = last_time_.value_or(x.time);
  last_time_ = x.time;
  const bool near_warning = x.warning_c > 0 && x.composite_c >= x.warning_c - s_.margin_c;
  const auto base = baseline();
  const bool slow = base && x.bytes_per_second < (1 - s_.drop_share) * *base;
  if (open_) {
    open_->lowest_bytes_per_second = std::min(open_->lowest_bytes_per_second, x.bytes_per_second);
    open_->peak_celsius = std::max(open_->peak_celsius, x.composite_c);
    if (slow) return false;
    open_->end = interval_start;
    closed_.push_back(*open_);
    open_.reset();
    return true;
  }
  if (slow && near_warning) {
    open_ = PerformanceThrottleEvent{interval_start, std::nullopt, *base, x.bytes_per_second, x.composite_c};
    return true;
  }
  if (!near_warning) {
    // A drop while cool is the workload's new level (an SLC cache ran out):
    // the baseline starts again from it rather than averaging it in, or the
    // new level itself would read as a drop once the drive warms up.
    if (slow) cool_.clear();
    cool_.push_back(x.bytes_per_second);
    while (static_cast<int>(cool_.size()) > s_.baseline_intervals) cool_.pop_front();
  }
  return false;
}

}  // namespace nvmond
