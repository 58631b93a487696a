#pragma once
// Latency recording with bounded relative error, HdrHistogram-style
// (log-linear): values are nanoseconds; below 2048 ns every value has its own
// bucket, above that each power-of-two range is split into 1024 linear
// sub-buckets, so a reported value is within 1/2048 (< 0.05 %) of the true one
// (3 significant digits). Range: 0 .. 60 s; larger values are clamped to 60 s
// and counted in `clamped()`.
//
// LatencyHistogram is plain data (not thread-safe) used for merging and
// queries. LatencyRecorder is its single-writer, lock-free twin for the I/O hot
// path: one worker thread records, any thread may snapshot it at any time.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace nvmond {

namespace histogram_layout {
inline constexpr int kSubBucketHalfBits = 10;
inline constexpr std::uint64_t kSubBucketHalf = 1u << kSubBucketHalfBits;   // 1024
inline constexpr std::uint64_t kSubBucketMask = (kSubBucketHalf << 1) - 1;  // 2047
inline constexpr std::uint64_t kMaxNs = 60'000'000'000ULL;                  // 60 s
// Bucket of kMaxNs is 25 (2^35 <= 6e10 < 2^36), so 27 half-ranges of 1024.
inline constexpr std::size_t kCounts = 27 * kSubBucketHalf;

inline std::size_t index_of(std::uint64_t ns) {
  if (ns > kMaxNs) ns = kMaxNs;
  const int bucket = 53 - __builtin_clzll(ns | kSubBucketMask);
  const std::uint64_t sub = ns >> bucket;
  return (static_cast<std::size_t>(bucket + 1) << kSubBucketHalfBits) + (sub - kSubBucketHalf);
}
// Smallest value that maps to `index`, and the number of values that do.
std::uint64_t lowest_of(std::size_t index);
std::uint64_t width_of(std::size_t index);
}  // namespace histogram_layout

// 1-based rank of quantile q (0..1] among n samples: the smallest rank r with
// r >= q*n. Shared with tests so "exact quantile" means one thing.
std::uint64_t quantile_rank(double q, std::uint64_t n);

class LatencyHistogram {
 public:
  LatencyHistogram();
  void record(std::uint64_t ns, std::uint64_t count = 1);
  void merge(const LatencyHistogram& other);
  // this -= earlier, where `earlier` is an older snapshot of the same
  // cumulative series (used for per-interval histograms).
  void subtract(const LatencyHistogram& earlier);
  void clear();

  std::uint64_t count() const { return count_; }
  std::uint64_t clamped() const { return clamped_; }
  // Nanoseconds. min()/max() are exact when recorded here, bucket bounds after
  // subtract(); 0 when empty.
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const;
  double sum_ns() const { return static_cast<double>(sum_ns_); }
  // Nanoseconds; midpoint of the bucket holding the sample of quantile_rank(q),
  // clamped to [min, max]. 0 when empty.
  double quantile(double q) const;
  // Samples <= ns (by bucket: a bucket counts if its lowest value <= ns), for
  // cumulative Prometheus buckets.
  std::uint64_t count_at_or_below(std::uint64_t ns) const;
  // The same for many ascending bounds in one pass: out[i] for sorted_ns[i].
  void counts_at_or_below(std::span<const std::uint64_t> sorted_ns, std::span<std::uint64_t> out) const;
  const std::vector<std::uint64_t>& counts() const { return counts_; }

 private:
  friend class LatencyRecorder;
  void recompute_bounds();
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t sum_ns_ = 0;  // 2^64 ns = 584 years of summed latency
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t clamped_ = 0;
};

class LatencyRecorder {
 public:
  LatencyRecorder();
  // Hot path, owner thread only: plain load+store on relaxed atomics (no
  // locked instruction), safe because there is exactly one writer.
  void record(std::uint64_t ns) {
    bump(counts_[histogram_layout::index_of(ns)], 1);
    bump(sum_ns_, ns);
    if (ns < min_.load(std::memory_order_relaxed)) min_.store(ns, std::memory_order_relaxed);
    if (ns > max_.load(std::memory_order_relaxed)) max_.store(ns, std::memory_order_relaxed);
    if (ns > histogram_layout::kMaxNs) bump(clamped_, 1);
  }
  // Any thread: copies the cumulative state into `out` (overwrites it).
  void snapshot(LatencyHistogram& out) const;

 private:
  static void bump(std::atomic<std::uint64_t>& a, std::uint64_t by) {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;
  std::atomic<std::uint64_t> sum_ns_{0};
  std::atomic<std::uint64_t> min_{~0ULL};
  std::atomic<std::uint64_t> max_{0};
  std::atomic<std::uint64_t> clamped_{0};
};

}  // namespace nvmond
