#pragma once
// A round's latency distribution as the store and run.json keep it, so that
// the quantiles of a measurement window come from the sum of its rounds'
// distributions (a window's p99.9 is not the mean of its rounds' p99.9s).
//
// The buckets are LatencyHistogram's (workloads/latency_histogram.hpp) merged
// kMergedBuckets to one: 64 buckets per power of two of nanoseconds, so a
// quantile read here is within 1/128 (< 0.8 %) of the sample it stands for
// above 2 µs (below, where the recorder is exact to the nanosecond, within
// 8 ns), where a round's own quantiles are within 1/2048. Latencies above 60 s are
// counted in the 60 s bucket, as the histogram clamps them.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "workloads/latency_histogram.hpp"

namespace nvmond {

struct LatencyDistribution {
  static constexpr std::size_t kMergedBuckets = 16;
  std::size_t first_bucket = 0;       // merged bucket of counts[0]
  std::vector<std::uint64_t> counts;  // from the first non-empty bucket to the last

  bool empty() const { return counts.empty(); }
  std::uint64_t count() const;
  void add(const LatencyDistribution& other);
  // Nanoseconds: the midpoint of the bucket holding quantile q's sample
  // (nearest rank, as LatencyHistogram::quantile), clamped to [min_ns, max_ns]
  // (the window's exact extremes); 0 when empty.
  double quantile(double q, double min_ns, double max_ns) const;
  // Counts per bucket of `upper_bounds_ns` (ascending; one more bucket for
  // what lies above the last), each merged bucket counted where its midpoint
  // falls: how a report draws it on a coarser, fixed scale.
  std::vector<std::uint64_t> counts_within(const std::vector<double>& upper_bounds_ns) const;
};

LatencyDistribution distribution_of(const LatencyHistogram& h);

}  // namespace nvmond
