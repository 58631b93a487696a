#include "pts/latency_distribution.hpp"

#include <algorithm>
#include <numeric>

namespace nvmond {

namespace {

constexpr std::size_t kMerge = LatencyDistribution::kMergedBuckets;

// The nanoseconds a merged bucket covers, both ends inclusive.
std::pair<double, double> bucket_range(std::size_t merged) {
  const std::size_t first = merged * kMerge, last = first + kMerge - 1;
  const auto lo = static_cast<double>(histogram_layout::lowest_of(first));
  const auto hi = static_cast<double>(histogram_layout::lowest_of(last) + histogram_layout::width_of(last) - 1);
  return {lo, hi};
}

}  // namespace

void add_to(LatencyDistribution& into, const LatencyDistribution& other) {
  if (other.empty()) return;
  if (into.empty()) {
    into = other;
    return;
  }
  const std::size_t first = std::min(into.first_bucket, other.first_bucket);
  const std::size_t end = std::max(into.first_bucket + into.counts.size(), other.first_bucket + other.counts.size());
  std::vector<std::uint64_t> sum(end - first, 0);
  for (std::size_t i = 0; i < into.counts.size(); ++i) sum[into.first_bucket - first + i] += into.counts[i];
  for (std::size_t i = 0; i < other.counts.size(); ++i) sum[other.first_bucket - first + i] += other.counts[i];
  into.first_bucket = first;
  into.counts = std::move(sum);
}

double quantile_of(const LatencyDistribution& d, double q, double min_ns, double max_ns) {
  const auto& counts = d.counts;
  const std::size_t first_bucket = d.first_bucket;
  const std::uint64_t n = d.count();
  if (n == 0) return 0;
  const std::uint64_t rank = quantile_rank(q, n);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= rank) {
      const auto [lo, hi] = bucket_range(first_bucket + i);
      return std::clamp((lo + hi) / 2, min_ns, max_ns);
    }
  }
  return max_ns;
}

std::vector<std::uint64_t> counts_within(const LatencyDistribution& d, const std::vector<double>& upper_bounds_ns) {
  const auto& counts = d.counts;
  const std::size_t first_bucket = d.first_bucket;
  std::vector<std::uint64_t> out(upper_bounds_ns.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const auto [lo, hi] = bucket_range(first_bucket + i);
    const auto at = std::lower_bound(upper_bounds_ns.begin(), upper_bounds_ns.end(), (lo + hi) / 2);
    out[static_cast<std::size_t>(at - upper_bounds_ns.begin())] += counts[i];
  }
  return out;
}

LatencyDistribution distribution_of(const LatencyHistogram& h) {
  LatencyDistribution d;
  const auto& fine = h.counts();
  std::size_t first = fine.size(), last = 0;
  for (std::size_t i = 0; i < fine.size(); ++i) {
    if (fine[i] == 0) continue;
    first = std::min(first, i / kMerge);
    last = i / kMerge;
  }
  if (first > last) return d;
  d.first_bucket = first;
  d.counts.assign(last - first + 1, 0);
  for (std::size_t i = first * kMerge; i < (last + 1) * kMerge && i < fine.size(); ++i) {
    d.counts[i / kMerge - first] += fine[i];
  }
  return d;
}

}  // namespace nvmond
