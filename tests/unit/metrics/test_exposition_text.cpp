// The exposition text is prometheus-cpp's TextSerializer's, byte for byte:
// random families of every type, values from every corner of a double
// (tiny, huge, integral, negative zero, NaN, infinities), label values with
// every character the format escapes, with and without timestamps.
#include <gtest/gtest.h>

#include <prometheus/text_serializer.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "metrics/exposition_text.hpp"
#include "tests/support/random_values.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

using test::any_double;
using test::any_text;

MetricFamily any_family(std::mt19937_64& rng, int i) {
  MetricFamily f;
  f.name = "nvme_family_" + std::to_string(i);
  if (rng() % 4 != 0) f.help = "Help with \\ and \" in it " + std::to_string(i);
  f.type = static_cast<MetricType>(rng() % 5);
  const auto series = rng() % 4;
  for (std::size_t s = 0; s < series; ++s) {
    ClientMetric m;
    const auto labels = rng() % 3;
    for (std::size_t l = 0; l < labels; ++l) m.label.push_back({"label" + std::to_string(l), any_text(rng)});
    if (rng() % 5 == 0) m.timestamp_ms = static_cast<std::int64_t>(rng() % 2000000000000);
    m.counter.value = any_double(rng);
    m.gauge.value = any_double(rng);
    m.untyped.value = any_double(rng);
    m.summary.sample_count = rng();
    m.summary.sample_sum = any_double(rng);
    for (std::size_t q = 0, n = rng() % 3; q < n; ++q) m.summary.quantile.push_back({any_double(rng), any_double(rng)});
    m.histogram.sample_count = rng() % 1000;
    m.histogram.sample_sum = any_double(rng);
    for (std::size_t b = 0, n = rng() % 4; b < n; ++b) m.histogram.bucket.push_back({rng() % 1000, any_double(rng)});
    if (rng() % 3 == 0)
      m.histogram.bucket.push_back({m.histogram.sample_count, std::numeric_limits<double>::infinity()});
    f.metric.push_back(std::move(m));
  }
  return f;
}

TEST(ExpositionText, IsTheSerializersTextForRandomFamiliesOfEveryType) {
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 2000; ++round) {
    const MetricFamily family = any_family(rng, round);
    std::string ours;
    append_family_header(ours, family);
    const auto header_size = ours.size();
    append_family_samples(ours, family);
    const std::string theirs = prometheus::TextSerializer().Serialize({family});
    ASSERT_EQ(ours, theirs) << "round " << round;
    EXPECT_EQ(theirs.compare(0, header_size, ours, 0, header_size), 0);
  }
}

TEST(ExpositionText, IntegersAroundTheDigitLimitsAreTheSerializers) {
  MetricFamily f;
  f.name = "nvme_count";
  f.type = MetricType::Counter;
  for (const double v : {999999999999999.0, 1e15, 1e15 + 1, 9999999999999998.0, 1e16, 1e16 + 2, -1e15,
                         -999999999999999.0, 4503599627370496.0, 9007199254740993.0, 0.0, -0.0, 1.0, -1.0}) {
    ClientMetric m;
    m.counter.value = v;
    f.metric.push_back(m);
  }
  std::string ours;
  append_family_header(ours, f);
  append_family_samples(ours, f);
  EXPECT_EQ(ours, prometheus::TextSerializer().Serialize({f}));
}

TEST(ExpositionText, SplitsTheCommentLinesFromTheSamples) {
  MetricFamily f;
  f.name = "nvme_up";
  f.help = "1 if the last poll succeeded.";
  f.type = MetricType::Gauge;
  ClientMetric m;
  m.label = {{"serial", "S\"1"}};
  m.gauge.value = 1;
  f.metric.push_back(m);
  std::string header, samples;
  append_family_header(header, f);
  append_family_samples(samples, f);
  EXPECT_EQ(header, "# HELP nvme_up 1 if the last poll succeeded.\n# TYPE nvme_up gauge\n");
  EXPECT_EQ(samples, "nvme_up{serial=\"S\\\"1\"} 1\n");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
