// A round's stored latency distribution: summed over rounds, its quantiles
// are those of all their samples together, within the 0.8 % docs/pts.md
// promises, checked against the exact sorted samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "pts/latency_distribution.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(LatencyDistribution, SummedRoundsGiveTheQuantilesOfAllTheirSamples) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> body(std::log(80'000.0), 0.4);  // ~80 µs
  std::vector<std::uint64_t> all;
  LatencyDistribution sum;
  for (int round = 0; round < 5; ++round) {
    LatencyHistogram h;
    // One round in five has a slow tail of 10-50 ms.
    const double tail = round == 2 ? 0.01 : 0;
    std::uniform_real_distribution<double> slow(10e6, 50e6), pick(0, 1);
    for (int i = 0; i < 200'000; ++i) {
      const auto ns = static_cast<std::uint64_t>(pick(rng) < tail ? slow(rng) : body(rng));
      h.record(ns);
      all.push_back(ns);
    }
    add_to(sum, distribution_of(h));
  }
  std::sort(all.begin(), all.end());
  ASSERT_EQ(sum.count(), all.size());
  const auto lo = static_cast<double>(all.front()), hi = static_cast<double>(all.back());
  for (double q : {0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999}) {
    const double exact = static_cast<double>(all[quantile_rank(q, all.size()) - 1]);
    EXPECT_NEAR(quantile_of(sum, q, lo, hi), exact, exact / 128) << "q " << q;
  }
}

TEST(LatencyDistribution, ARoundWithoutSamplesAddsNothing) {
  LatencyHistogram h;
  h.record(1'000'000, 10);
  LatencyDistribution d = distribution_of(h);
  add_to(d, distribution_of(LatencyHistogram{}));
  EXPECT_EQ(d.count(), 10u);
  EXPECT_TRUE(distribution_of(LatencyHistogram{}).empty());
}

TEST(LatencyDistribution, CountsOnACoarseScaleKeepEverySampleInItsBucket) {
  LatencyHistogram h;
  h.record(1'500, 3);           // 1.5 µs: above 1 µs, at or below 2 µs
  h.record(80'000, 5);          // 80 µs: the 100 µs bucket
  h.record(3'000'000, 2);       // 3 ms: the 5 ms bucket
  h.record(20'000'000'000, 1);  // 20 s: above the last bound
  const std::vector<double> bounds = {1e3, 2e3, 5e3, 1e5, 1e6, 5e6, 1e10};
  const auto counts = counts_within(distribution_of(h), bounds);
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{0, 3, 0, 5, 0, 2, 0, 1}));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
