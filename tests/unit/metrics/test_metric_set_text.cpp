// A MetricSet renders its series straight to text, without prometheus-cpp's
// types: the oracle is TextSerializer on the same series built as
// ClientMetrics, byte for byte (random labels with every escaped character,
// values from every corner of a double, labels given as Labels or as a
// LabelPrefix with extra labels). Reading the text back (take(),
// PublishedMetrics::Collect()) gives the series it was made of.
#include <gtest/gtest.h>

#include <prometheus/text_serializer.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "metrics/exposition_parse.hpp"
#include "metrics/metric_set.hpp"
#include "tests/support/random_values.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

using test::any_double;
using test::any_text;

// Names must outlive the set (a Family holds pointers).
const std::vector<std::string>& names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (int i = 0; i < 12; ++i) v.push_back("nvme_family_" + std::to_string(i));
    return v;
  }();
  return kNames;
}

TEST(MetricSetText, RendersWhatTheSerializerWritesForTheSameSeries) {
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 200; ++round) {
    MetricSet set;
    std::map<std::string, MetricFamily> expected;  // by name: the set's order
    std::vector<Family> families;
    for (std::size_t i = 0; i < names().size(); ++i) {
      const auto type = static_cast<MetricType>(rng() % 5);
      families.push_back(Family{names()[i].c_str(), type, rng() % 4 ? "Help with \\ and \" in it." : ""});
    }
    const auto series = rng() % 40;
    for (std::size_t s = 0; s < series; ++s) {
      const Family& f = families[rng() % families.size()];
      MetricFamily& e = expected.try_emplace(f.name, MetricFamily{f.name, f.help, f.type, {}}).first->second;
      ClientMetric m;
      if (f.type == MetricType::Histogram || f.type == MetricType::Summary) {
        // add_series() renders through exposition_text, tested on its own.
        m.label.push_back({"serial", any_text(rng)});
        m.histogram.sample_count = m.summary.sample_count = rng() % 1000;
        m.histogram.sample_sum = m.summary.sample_sum = any_double(rng);
        m.histogram.bucket.push_back({rng() % 100, any_double(rng)});
        m.summary.quantile.push_back({0.5, any_double(rng)});
        set.add_series(f, m);
      } else {
        const double v = any_double(rng);
        (f.type == MetricType::Counter ? m.counter.value
         : f.type == MetricType::Gauge ? m.gauge.value
                                       : m.untyped.value) = v;
        const Labels id{{"serial", any_text(rng)}, {"model", any_text(rng)}};
        switch (rng() % 4) {
          case 0: set.add(f, Labels{}, v); break;
          case 1:
            m.label = id;
            set.add(f, id, v);
            break;
          case 2:
            m.label = id;
            set.add(f, LabelPrefix::of(id), v);
            break;
          default: {
            const std::string a = any_text(rng), b = any_text(rng);
            m.label = with(with(id, "sensor", a), "type", b);
            set.add(f, LabelPrefix::of(id), {{"sensor", a}, {"type", b}}, v);
          }
        }
      }
      e.metric.push_back(m);
    }
    std::vector<MetricFamily> oracle;
    for (auto& [name, fam] : expected) oracle.push_back(fam);
    RenderedFamilies rendered;
    set.render_to(rendered);
    ASSERT_EQ(rendered.text(), prometheus::TextSerializer().Serialize(oracle)) << "round " << round;
    ASSERT_EQ(rendered.families().size(), oracle.size());
    for (std::size_t i = 0; i < oracle.size(); ++i) EXPECT_EQ(rendered.name(rendered.families()[i]), oracle[i].name);
  }
}

TEST(MetricSetText, AKeptSetRendersEachRoundAfreshWithItsFamiliesInTheirPlaces) {
  constexpr Family kA{"a_total", Family::counter, "A."};
  constexpr Family kB{"b", Family::gauge, "B."};
  MetricSet set;
  const auto id = LabelPrefix::of({{"serial", "S1"}});
  set.add(kB, id, 1);
  set.add(kA, id, {{"level", "1"}}, 2);
  RenderedFamilies first;
  set.render_to(first);
  set.add(kB, id, 3);
  RenderedFamilies second;
  set.render_to(second);
  EXPECT_EQ(first.text(),
            "# HELP a_total A.\n# TYPE a_total counter\na_total{serial=\"S1\",level=\"1\"} 2\n"
            "# HELP b B.\n# TYPE b gauge\nb{serial=\"S1\"} 1\n");
  EXPECT_EQ(second.text(), "# HELP b B.\n# TYPE b gauge\nb{serial=\"S1\"} 3\n")
      << "a family without series this round is left out, the last round's samples are gone";
}

TEST(MetricSetText, ReadingTheTextBackGivesTheSeriesItWasMadeOf) {
  MetricFamily h{"lat_seconds", "L.", MetricType::Histogram, {}};
  ClientMetric hm;
  hm.label = {{"op", "re\"ad\\\n"}};
  hm.histogram.sample_count = 7;
  hm.histogram.sample_sum = 0.125;
  hm.histogram.bucket = {{3, 0.001}, {7, std::numeric_limits<double>::infinity()}};
  h.metric.push_back(hm);
  MetricFamily s{"q_seconds", "", MetricType::Summary, {}};
  ClientMetric sm;
  sm.summary.sample_count = 2;
  sm.summary.sample_sum = 3.5;
  sm.summary.quantile = {{0.5, 1.25}, {0.99, std::numeric_limits<double>::quiet_NaN()}};
  s.metric.push_back(sm);
  MetricFamily g{"g", "G.", MetricType::Gauge, {}};
  ClientMetric gm;
  gm.label = {{"a", ""}, {"b", "x"}};
  gm.gauge.value = -2.5e-300;
  gm.timestamp_ms = 1700000000000;
  g.metric.push_back(gm);

  RenderedFamilies rendered;
  for (const auto& f : {h, s, g}) rendered.append(f);
  const auto back = parse_families(rendered);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(prometheus::TextSerializer().Serialize(back), rendered.text());
  EXPECT_EQ(back[0].metric.at(0).label.at(0).value, "re\"ad\\\n");
  EXPECT_EQ(back[0].metric[0].histogram.bucket.size(), 2u);
  EXPECT_EQ(back[0].metric[0].histogram.bucket[0].upper_bound, 0.001);
  EXPECT_EQ(back[1].help, "");
  EXPECT_TRUE(std::isnan(back[1].metric.at(0).summary.quantile.at(1).value));
  EXPECT_EQ(back[2].metric.at(0).gauge.value, -2.5e-300);
  EXPECT_EQ(back[2].metric[0].timestamp_ms, 1700000000000);
  EXPECT_EQ(back[2].metric[0].label.size(), 2u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
