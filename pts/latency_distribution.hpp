#pragma once
// A round's latency distribution (runmodel/latency_distribution.hpp) read
// against the recorder's bucket layout.
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

#include "runmodel/latency_distribution.hpp"
#include "workloads/latency_histogram.hpp"

namespace nvmond {

// Adds `other`'s counts to `into`'s.
void add_to(LatencyDistribution& into, const LatencyDistribution& other);
// Nanoseconds: the midpoint of the bucket holding quantile q's sample
// (nearest rank, as LatencyHistogram::quantile), clamped to [min_ns, max_ns]
// (the window's exact extremes); 0 when empty.
double quantile_of(const LatencyDistribution& d, double q, double min_ns, double max_ns);
// Counts per bucket of `upper_bounds_ns` (ascending; one more bucket for
// what lies above the last), each merged bucket counted where its midpoint
// falls: how a report draws it on a coarser, fixed scale.
std::vector<std::uint64_t> counts_within(const LatencyDistribution& d, const std::vector<double>& upper_bounds_ns);

LatencyDistribution distribution_of(const LatencyHistogram& h);

}  // namespace nvmond
