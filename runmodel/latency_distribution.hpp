#pragma once
// A round's latency distribution as the store and run.json keep it, so that
// the quantiles of a measurement window come from the sum of its rounds'
// distributions (a window's p99.9 is not the mean of its rounds' p99.9s).
//
// The buckets are the workload recorder's (workloads/latency_histogram.hpp)
// merged kMergedBuckets to one: 64 buckets per power of two of nanoseconds.
// What they mean in nanoseconds, and the sums and quantiles over them, are
// pts/latency_distribution.hpp's; here they are only data.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace nvmond {

struct LatencyDistribution {
  static constexpr std::size_t kMergedBuckets = 16;
  std::size_t first_bucket = 0;       // merged bucket of counts[0]
  std::vector<std::uint64_t> counts;  // from the first non-empty bucket to the last

  bool empty() const { return counts.empty(); }
  std::uint64_t count() const { return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}); }
  bool operator==(const LatencyDistribution&) const = default;
};

}  // namespace nvmond
