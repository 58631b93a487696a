// Rendering views as Prometheus families, and reading the analytics config.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <set>
#include <sstream>

#include "analytics_test_util.hpp"
#include "analytics/metrics.hpp"
#include "tests/support/samples.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

AnalyticsView throttling_view() {
  AnalyticsView v;
  v.serial = "SN-A";
  v.model = "M";
  v.wear.windows[0] = {24h, 1e6, 0.5};
  v.wear.lifetime_dwpd = 0.25;
  v.wear.rated = RatedEndurance{1e15, 1.0, 5, "config"};
  v.wear.endurance_used_ratio = 0.1;
  v.wear.projected_wearout = WallTime{} + std::chrono::seconds(2'000'000'000);
  v.thermal.throttling = true;
  v.thermal.level = 2;
  v.thermal.events = 3;
  v.thermal.source_events[static_cast<std::size_t>(ThrottleSource::tmt2)] = 2;
  v.thermal.level_seconds[2] = 40;
  return v;
}

TEST(AnalyticsMetrics, RendersValuesInBaseUnitsWithSerialOnEverySeries) {
  AnalyticsView unrated;
  unrated.serial = "SN-B";
  std::vector<AnalyticsView> views{throttling_view(), unrated};
  auto fams = analytics_metric_families(views);

  std::set<std::string> names;
  for (const auto& f : fams) {
    EXPECT_TRUE(names.insert(f.name).second) << "duplicate family " << f.name;
    EXPECT_FALSE(f.metric.empty()) << f.name;
    const bool counter = f.type == prometheus::MetricType::Counter;
    EXPECT_EQ(counter, f.name.ends_with("_total")) << f.name;
    for (const auto& m : f.metric) {
      ASSERT_FALSE(m.label.empty()) << f.name;
      EXPECT_EQ(m.label[0].name, "serial") << f.name;
    }
  }
  const auto* dwpd = test::series(fams, "nvme_dwpd", {{"window", "1d"}});
  ASSERT_NE(dwpd, nullptr);
  EXPECT_DOUBLE_EQ(dwpd->gauge.value, 0.5);
  EXPECT_EQ(test::series(fams, "nvme_dwpd", {{"window", "7d"}}), nullptr);  // no rate: no series
  const auto* wearout = test::series(fams, "nvme_projected_wearout_timestamp_seconds");
  ASSERT_NE(wearout, nullptr);
  EXPECT_DOUBLE_EQ(wearout->gauge.value, 2e9);
  const auto* tmt2 = test::series(fams, "nvme_thermal_throttle_events_total", {{"source", "tmt2"}});
  ASSERT_NE(tmt2, nullptr);
  EXPECT_DOUBLE_EQ(tmt2->counter.value, 2);
  const auto* lvl = test::series(fams, "nvme_thermal_throttle_level_seconds_total", {{"level", "2"}});
  ASSERT_NE(lvl, nullptr);
  EXPECT_DOUBLE_EQ(lvl->counter.value, 40);
  const auto* info = test::series(fams, "nvme_rated_endurance_info", {{"source", "config"}});
  ASSERT_NE(info, nullptr);
  // The unrated drive has thermal series but no rating series.
  EXPECT_NE(test::series(fams, "nvme_thermal_throttling", {{"serial", "SN-B"}}), nullptr);
  EXPECT_EQ(test::series(fams, "nvme_rated_dwpd", {{"serial", "SN-B"}}), nullptr);

  std::ostringstream text;
  prometheus::TextSerializer().Serialize(text, fams);
  EXPECT_NE(text.str().find("nvme_thermal_throttling{serial=\"SN-A\"} 1"), std::string::npos) << text.str();
}

TEST(AnalyticsMetrics, NoViewsNoFamilies) { EXPECT_TRUE(analytics_metric_families({}).empty()); }

TableReader reader(const toml::table& t) { return TableReader(t, "test.toml", ""); }

TEST(AnalyticsConfig, ReadsItsTablesAndLeavesTheRootToOthers) {
  auto t = toml::parse(R"(
other = 1
[wear]
warn_factor = 1.5
[thermal]
threshold_c = 70
max_gap = "5m"
[store]
raw_retention = "3d"
hourly_retention = "365d"
)");
  auto root = reader(t);
  AnalyticsConfig c = read_analytics_config(root);
  EXPECT_DOUBLE_EQ(c.wear.warn_factor, 1.5);
  EXPECT_EQ(c.thermal.threshold_c, 70.0);
  EXPECT_EQ(c.thermal.max_gap, 5min);
  EXPECT_EQ(c.retention.raw, std::chrono::hours(72));
  EXPECT_EQ(c.retention.hourly, std::chrono::hours(24 * 365));
  EXPECT_THROW(root.finish(), ConfigError);  // "other" is not ours to accept

  auto empty = toml::table{};
  auto r2 = reader(empty);
  AnalyticsConfig d = read_analytics_config(r2);
  EXPECT_EQ(d.retention.raw, std::chrono::hours(24 * 7));
  EXPECT_FALSE(d.thermal.threshold_c);
}

TEST(AnalyticsConfig, RejectsTyposAndNonsense) {
  const char* bad[] = {
      "[wear]\nwarn_facter = 2",
      "[thermal]\nthreshold_c = \"hot\"",
      "[store]\nraw_retention = \"10d\"\nhourly_retention = \"1d\"",
      "[store]\nraw_retention = \"1m\"",
  };
  for (const char* text : bad) {
    auto t = toml::parse(text);
    auto root = reader(t);
    EXPECT_THROW(read_analytics_config(root), ConfigError) << text;
  }
}

TEST(AnalyticsConfig, ReadsADriveRating) {
  auto t = toml::parse("rated_tbw = \"600TB\"\nwarranty_years = 5");
  auto dev = reader(t);
  DriveRating r = read_drive_rating(dev);
  dev.finish();
  EXPECT_EQ(r.rated_tbw_bytes, 600'000'000'000'000u);
  auto both = toml::parse("rated_tbw = \"600TB\"\nrated_dwpd = 1");
  auto dev2 = reader(both);
  EXPECT_THROW(read_drive_rating(dev2), ConfigError);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
