// The one way families are declared and built: where a value lands for each
// type, which order the families come in, and that empty ones are left out.
#include "metrics/metric_set.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/support/samples.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr Family kZeta{"zeta_total", Family::counter, "Z."};
constexpr Family kAlpha{"alpha", Family::gauge, "A."};
constexpr Family kLatency{"latency_seconds", Family::histogram, "L."};

std::vector<std::string> names(const std::vector<prometheus::MetricFamily>& fams) {
  std::vector<std::string> out;
  for (const auto& f : fams) out.push_back(f.name);
  return out;
}

TEST(MetricSet, AValueLandsWhereTheFamilysTypeSaysWithItsHelpAndType) {
  MetricSet set;
  set.add(kZeta, {{"serial", "S"}}, 3);
  set.add(kAlpha, {{"serial", "S"}}, 0.5);
  const auto fams = set.take();
  const auto* zeta = test::family(fams, "zeta_total");
  ASSERT_NE(zeta, nullptr);
  EXPECT_EQ(zeta->type, prometheus::MetricType::Counter);
  EXPECT_EQ(zeta->help, "Z.");
  EXPECT_EQ(zeta->metric.at(0).counter.value, 3);
  EXPECT_EQ(test::family(fams, "alpha")->metric.at(0).gauge.value, 0.5);
}

TEST(MetricSet, SeriesOfOneFamilyFromSeveralPlacesShareIt) {
  MetricSet set;
  set.add(kAlpha, {{"serial", "A"}}, 1);
  set.add(kZeta, {{"serial", "A"}}, 1);
  set.add(kAlpha, {{"serial", "B"}}, 2);
  const auto fams = set.take();
  ASSERT_EQ(fams.size(), 2u);
  EXPECT_EQ(test::family(fams, "alpha")->metric.size(), 2u);
  EXPECT_EQ(test::sample(fams, "alpha", {{"serial", "B"}}), 2);
}

TEST(MetricSet, ByNameSortsFamiliesAsDeclaredKeepsTheTablesOrder) {
  MetricSet by_name;
  by_name.add(kZeta, {}, 1);
  by_name.add(kAlpha, {}, 1);
  EXPECT_EQ(names(by_name.take()), (std::vector<std::string>{"alpha", "zeta_total"}));

  MetricSet declared(MetricSet::Order::as_declared);
  declared.declare(kZeta);
  declared.add(kAlpha, {}, 1);
  declared.add(kZeta, {}, 1);
  EXPECT_EQ(names(declared.take()), (std::vector<std::string>{"zeta_total", "alpha"}));
}

TEST(MetricSet, DeclaredFamiliesWithoutSeriesAreLeftOut) {
  MetricSet set(MetricSet::Order::as_declared);
  set.declare(kLatency);
  set.add(kAlpha, {}, 1);
  EXPECT_EQ(names(set.take()), (std::vector<std::string>{"alpha"}));
  EXPECT_TRUE(set.take().empty()) << "take() empties the set";
}

TEST(MetricSet, HistogramsTakeWholeSeriesNotASingleValue) {
  MetricSet set;
  EXPECT_THROW(set.add(kLatency, {}, 1), std::logic_error);
  prometheus::ClientMetric h;
  h.histogram.sample_count = 4;
  set.add_series(kLatency, h);
  EXPECT_EQ(set.take().at(0).metric.at(0).histogram.sample_count, 4u);
}

TEST(Labels, WithAppendsOneLabelAfterTheBase) {
  const Labels l = with({{"serial", "S"}}, "op", "read");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1].name, "op");
  EXPECT_EQ(l[1].value, "read");
}

TEST(MergeFamilies, FamiliesOfOneNameFromSeveralSourcesBecomeOne) {
  MetricSet a, b;
  a.add(kAlpha, {{"serial", "A"}}, 1);
  b.add(kAlpha, {{"serial", "B"}}, 2);
  b.add(kZeta, {{"serial", "B"}}, 3);
  const auto fa = a.take(), fb = b.take();
  const auto merged = merge_families({&fa, &fb});
  EXPECT_EQ(names(merged), (std::vector<std::string>{"alpha", "zeta_total"}));
  EXPECT_EQ(merged[0].metric.size(), 2u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
