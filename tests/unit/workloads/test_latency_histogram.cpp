#include "workloads/latency_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

const double kQuantiles[] = {0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1.0};

double exact_quantile(const std::vector<std::uint64_t>& sorted, double q) {
  return static_cast<double>(sorted[quantile_rank(q, sorted.size()) - 1]);
}

void expect_matches_exact(std::vector<std::uint64_t> samples, const char* what) {
  LatencyHistogram h;
  for (auto s : samples) h.record(s);
  std::sort(samples.begin(), samples.end());
  ASSERT_EQ(h.count(), samples.size());
  EXPECT_EQ(h.min(), samples.front()) << what;
  EXPECT_EQ(h.max(), samples.back()) << what;
  long double sum = 0;
  for (auto s : samples) sum += static_cast<long double>(s);
  EXPECT_NEAR(h.mean(), static_cast<double>(sum / samples.size()), 1e-9 * h.mean()) << what;
  for (double q : kQuantiles) {
    const double exact = exact_quantile(samples, q);
    EXPECT_LE(std::abs(h.quantile(q) - exact), exact * 0.001) << what << " q=" << q << " exact=" << exact;
  }
}

TEST(LatencyHistogram, LogUniformSamplesWithinOneThousandth) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> exp10(2.0, std::log10(60e9));  // 100 ns .. 60 s
  std::vector<std::uint64_t> s(200000);
  for (auto& v : s) v = static_cast<std::uint64_t>(std::pow(10.0, exp10(rng)));
  expect_matches_exact(s, "log-uniform");
}

TEST(LatencyHistogram, BimodalSamplesWithinOneThousandth) {
  // A cache hit mode near 80 us and a GC stall mode near 12 ms.
  std::mt19937_64 rng(2);
  std::normal_distribution<double> fast(80e3, 5e3), slow(12e6, 2e6);
  std::bernoulli_distribution pick_slow(0.02);
  std::vector<std::uint64_t> s(300000);
  for (auto& v : s) v = static_cast<std::uint64_t>(std::max(100.0, pick_slow(rng) ? slow(rng) : fast(rng)));
  expect_matches_exact(s, "bimodal");
}

TEST(LatencyHistogram, HeavyTailedSamplesWithinOneThousandth) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::uint64_t> s(300000);
  // Pareto, alpha 1.1, scale 20 us: p99.999 lands seconds out.
  for (auto& v : s) v = static_cast<std::uint64_t>(std::min(59e9, 20e3 / std::pow(1.0 - u(rng), 1 / 1.1)));
  expect_matches_exact(s, "pareto");
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (std::uint64_t v = 100; v < 2048; ++v) h.record(v);
  EXPECT_EQ(h.quantile(0.5), static_cast<double>(100 + quantile_rank(0.5, 1948) - 1));
}

TEST(LatencyHistogram, ValuesBeyondSixtySecondsAreClampedAndCounted) {
  LatencyHistogram h;
  h.record(120'000'000'000ULL);
  h.record(1000);
  EXPECT_EQ(h.clamped(), 1u);
  EXPECT_LE(h.quantile(1.0), 60e9 * 1.001);
}

TEST(LatencyHistogram, MergeEqualsOneHistogramOfAllSamples) {
  std::mt19937_64 rng(4);
  std::lognormal_distribution<double> d(std::log(100e3), 1.5);
  LatencyHistogram all, merged;
  std::vector<LatencyHistogram> parts(4);
  for (int i = 0; i < 100000; ++i) {
    auto v = static_cast<std::uint64_t>(d(rng)) + 100;
    all.record(v);
    parts[static_cast<std::size_t>(i % 4)].record(v);
  }
  for (const auto& p : parts) merged.merge(p);
  EXPECT_EQ(merged.counts(), all.counts());
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  EXPECT_DOUBLE_EQ(merged.mean(), all.mean());
  for (double q : kQuantiles) EXPECT_DOUBLE_EQ(merged.quantile(q), all.quantile(q));
}

// Records from, from + step, ... below `to` into `r`, and returns a plain
// histogram of the same values to hold the recorder's snapshots against.
LatencyHistogram record_both(LatencyRecorder& r, std::uint64_t from, std::uint64_t to, std::uint64_t step) {
  LatencyHistogram plain;
  for (std::uint64_t v = from; v < to; v += step) {
    r.record(v);
    plain.record(v);
  }
  return plain;
}

TEST(LatencyHistogram, RecorderSnapshotAndIntervalSubtraction) {
  LatencyRecorder r;
  LatencyHistogram first, second;
  const LatencyHistogram plain = record_both(r, 1000, 50000, 7);
  r.snapshot(first);
  EXPECT_EQ(first.counts(), plain.counts());
  EXPECT_EQ(first.min(), plain.min());
  EXPECT_EQ(first.max(), plain.max());
  EXPECT_DOUBLE_EQ(first.mean(), plain.mean());

  const LatencyHistogram later_only = record_both(r, 5'000'000, 6'000'000, 1001);
  r.snapshot(second);
  second.subtract(first);
  EXPECT_EQ(second.counts(), later_only.counts());
  EXPECT_EQ(second.count(), later_only.count());
  EXPECT_DOUBLE_EQ(second.mean(), later_only.mean());
  EXPECT_LE(std::abs(second.quantile(0.99) - later_only.quantile(0.99)), later_only.quantile(0.99) * 0.001);
}

TEST(LatencyHistogram, CountAtOrBelowIsCumulative) {
  LatencyHistogram h;
  h.record(5'000);      // 5 us
  h.record(50'000);     // 50 us
  h.record(5'000'000);  // 5 ms
  EXPECT_EQ(h.count_at_or_below(10'000), 1u);
  EXPECT_EQ(h.count_at_or_below(100'000), 2u);
  EXPECT_EQ(h.count_at_or_below(10'000'000'000), 3u);
}

TEST(QuantileRank, CountsLikeAPerson) {
  EXPECT_EQ(quantile_rank(0.999, 1000), 999u);
  EXPECT_EQ(quantile_rank(0.5, 3), 2u);
  EXPECT_EQ(quantile_rank(0.0, 10), 1u);
  EXPECT_EQ(quantile_rank(1.0, 10), 10u);
  EXPECT_EQ(quantile_rank(0.99999, 100000), 99999u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
