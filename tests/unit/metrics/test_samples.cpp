// Reading rendered families back: what nvmonctl's drive summary and the
// tests see of a series.
#include "metrics/samples.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "metrics/metric_set.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(Samples, ALabelsValueOrEmptyWhenTheSeriesHasNoSuchLabel) {
  prometheus::ClientMetric m;
  m.label = {{"serial", "S"}, {"sensor", "composite"}};
  EXPECT_EQ(label_of(m, "sensor"), "composite");
  EXPECT_EQ(label_of(m, "bit"), "");
}

TEST(Samples, AValueIsReadFromTheSlotOfTheFamilysType) {
  MetricSet set;
  set.add({"c_total", Family::counter, "C."}, {}, 3);
  set.add({"g", Family::gauge, "G."}, {}, 4);
  prometheus::ClientMetric h;
  h.histogram.sample_count = 9;
  set.add_series({"h_seconds", Family::histogram, "H."}, h);
  const auto fams = set.take();  // by name: c_total, g, h_seconds
  ASSERT_EQ(fams.size(), 3u);
  EXPECT_EQ(value_of(fams[0], fams[0].metric[0]), 3);
  EXPECT_EQ(value_of(fams[1], fams[1].metric[0]), 4);
  EXPECT_TRUE(std::isnan(value_of(fams[2], fams[2].metric[0]))) << "a histogram has no single value";
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
