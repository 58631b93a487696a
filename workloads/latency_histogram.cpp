#include "workloads/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace nvmond {

namespace histogram_layout {
namespace {
void split(std::size_t index, int& bucket, std::uint64_t& sub) {
  bucket = static_cast<int>(index >> kSubBucketHalfBits) - 1;
  sub = (index & (kSubBucketHalf - 1)) + kSubBucketHalf;
  if (bucket < 0) {
    sub -= kSubBucketHalf;
    bucket = 0;
  }
}
}  // namespace

std::uint64_t lowest_of(std::size_t index) {
  int bucket = 0;
  std::uint64_t sub = 0;
  split(index, bucket, sub);
  return sub << bucket;
}

std::uint64_t width_of(std::size_t index) {
  int bucket = 0;
  std::uint64_t sub = 0;
  split(index, bucket, sub);
  return 1ULL << bucket;
}
}  // namespace histogram_layout

std::uint64_t quantile_rank(double q, std::uint64_t n) {
  if (n == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The relative nudge keeps 0.999 * 1000 (= 999.0000000000001 in binary)
  // at rank 999, as a person would count it.
  const double x = q * static_cast<double>(n) * (1.0 - 1e-12);
  auto r = static_cast<std::uint64_t>(std::ceil(x));
  return std::clamp<std::uint64_t>(r, 1, n);
}

LatencyHistogram::LatencyHistogram() : counts_(histogram_layout::kCounts, 0) {}

void LatencyHistogram::record(std::uint64_t ns, std::uint64_t count) {
  if (count == 0) return;
  if (ns > histogram_layout::kMaxNs) clamped_ += count;
  counts_[histogram_layout::index_of(ns)] += count;
  min_ = count_ == 0 ? ns : std::min(min_, ns);
  max_ = std::max(max_, ns);
  count_ += count;
  sum_ns_ += ns * count;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  clamped_ += other.clamped_;
}

void LatencyHistogram::subtract(const LatencyHistogram& earlier) {
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] -= std::min(counts_[i], earlier.counts_[i]);
  }
  sum_ns_ -= std::min(sum_ns_, earlier.sum_ns_);
  clamped_ -= std::min(clamped_, earlier.clamped_);
  recompute_bounds();
}

void LatencyHistogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = sum_ns_ = min_ = max_ = clamped_ = 0;
}

void LatencyHistogram::recompute_bounds() {
  count_ = 0;
  min_ = max_ = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    if (count_ == 0) min_ = histogram_layout::lowest_of(i);
    max_ = histogram_layout::lowest_of(i) + histogram_layout::width_of(i) - 1;
    count_ += counts_[i];
  }
}

double LatencyHistogram::mean() const {
  return count_ ? static_cast<double>(sum_ns_) / static_cast<double>(count_) : 0.0;
}

double LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const std::uint64_t rank = quantile_rank(q, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const double lo = static_cast<double>(histogram_layout::lowest_of(i));
      const double mid = lo + static_cast<double>(histogram_layout::width_of(i) - 1) / 2.0;
      return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

std::uint64_t LatencyHistogram::count_at_or_below(std::uint64_t ns) const {
  std::uint64_t n = 0;
  const std::size_t last = histogram_layout::index_of(ns);
  for (std::size_t i = 0; i <= last; ++i) n += counts_[i];
  return n;
}

void LatencyHistogram::counts_at_or_below(std::span<const std::uint64_t> sorted_ns,
                                          std::span<std::uint64_t> out) const {
  std::uint64_t n = 0;
  std::size_t i = 0;
  for (std::size_t b = 0; b < sorted_ns.size(); ++b) {
    const std::size_t last = histogram_layout::index_of(sorted_ns[b]);
    for (; i <= last; ++i) n += counts_[i];
    out[b] = n;
  }
}

LatencyRecorder::LatencyRecorder()
    : counts_(std::make_unique<std::atomic<std::uint64_t>[]>(histogram_layout::kCounts)) {
  for (std::size_t i = 0; i < histogram_layout::kCounts; ++i) {
    counts_[i].store(0, std::memory_order_relaxed);
  }
}

void LatencyRecorder::snapshot(LatencyHistogram& out) const {
  for (std::size_t i = 0; i < histogram_layout::kCounts; ++i) {
    out.counts_[i] = counts_[i].load(std::memory_order_relaxed);
  }
  out.recompute_bounds();
  if (out.count_ > 0) {
    // Exact extremes (they may run one sample ahead of the counts: harmless).
    out.min_ = min_.load(std::memory_order_relaxed);
    out.max_ = max_.load(std::memory_order_relaxed);
  }
  out.sum_ns_ = sum_ns_.load(std::memory_order_relaxed);
  out.clamped_ = clamped_.load(std::memory_order_relaxed);
}

}  // namespace nvmond
