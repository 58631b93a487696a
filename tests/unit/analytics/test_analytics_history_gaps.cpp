// Analytics when history cannot be trusted or read: a clock stepped back
// behind the stored history, a store that fails every call. The view always
// names its drive and no exported counter goes backwards.
#include <gtest/gtest.h>

#include <map>

#include "analytics_test_util.hpp"
#include "analytics/drive_analytics.hpp"
#include "analytics/metrics.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using testing::TempDir;

HealthSnapshot hot_writer(WallTime t, int hour) {
  HealthSnapshot s = testing::snapshot(t);
  s.smart.data_units_written = static_cast<u128>(1000 * hour);
  s.smart.power_on_hours = static_cast<u128>(100 + hour);
  // Above WCTEMP for a while: a throttle event with counters to watch.
  s.smart.composite_temperature_k = hour >= 2 && hour < 4 ? 350 : 313;
  return s;
}

std::map<std::string, double> counters_of(const AnalyticsView& v) {
  std::map<std::string, double> out;
  for (const auto& f : analytics_metric_families(std::span(&v, 1))) {
    if (f.type != prometheus::MetricType::Counter) continue;
    for (const auto& m : f.metric) {
      std::string key = f.name;
      for (const auto& l : m.label) key += "," + l.name + "=" + l.value;
      out[key] = m.counter.value;
    }
  }
  return out;
}

void expect_every_series_named(const AnalyticsView& v, const std::string& serial) {
  auto fams = analytics_metric_families(std::span(&v, 1));
  ASSERT_FALSE(fams.empty());
  for (const auto& f : fams) {
    for (const auto& m : f.metric) {
      ASSERT_FALSE(m.label.empty()) << f.name;
      EXPECT_EQ(m.label[0].name, "serial") << f.name;
      EXPECT_EQ(m.label[0].value, serial) << f.name;
    }
  }
}

TEST(AnalyticsHistoryGaps, AClockSteppedBackStoresNothingAndKeepsTheNewestStoredView) {
  TempDir dir;
  auto opened = SqliteStore::open(dir.path());
  ASSERT_TRUE(opened) << opened.error().message;
  auto& store = **opened;
  const DriveInfo d = testing::drive("SN-BACK", "/dev/nvme0");
  ManualClock clock;
  AnalyticsConfig config;
  std::map<std::string, double> before;
  {
    DriveAnalytics a(store);
    for (int h = 0; h <= 6; ++h) {
      ASSERT_TRUE(a.update(d, hot_writer(clock.wall(), h), config));
      clock.advance(1h);
    }
    before = counters_of(a.view());
  }
  const WallTime newest = clock.wall() - 1h;
  const auto samples_before = store.stats()->samples;

  DriveAnalytics restarted(store);  // a daemon started on a clock a year behind
  const WallTime behind = newest - std::chrono::hours(24 * 365);
  for (int i = 0; i < 3; ++i) {
    auto v = restarted.update(d, hot_writer(behind + std::chrono::hours(i), 7 + i), config);
    ASSERT_TRUE(v) << v.error().message;
  }
  const AnalyticsView& v = restarted.view();
  EXPECT_EQ(v.serial, "SN-BACK");
  EXPECT_TRUE(v.history);
  EXPECT_EQ(v.updated, newest);
  EXPECT_EQ(v.skipped_clock_behind, 3u);
  EXPECT_EQ(v.wear.windows[0].covered, 6h);
  EXPECT_EQ(store.stats()->samples, samples_before);
  expect_every_series_named(v, "SN-BACK");
  for (const auto& [key, value] : counters_of(v)) {
    if (key.rfind("nvmond_history_skipped", 0) == 0) continue;
    ASSERT_TRUE(before.count(key)) << key;
    EXPECT_GE(value, before.at(key)) << key;
  }
  EXPECT_GT(before.at("nvme_thermal_throttle_merged_events_total,serial=SN-BACK"), 0);

  // Once the clock passes the newest sample, history is recorded again.
  auto caught_up = restarted.update(d, hot_writer(newest + 1h, 10), config);
  ASSERT_TRUE(caught_up) << caught_up.error().message;
  EXPECT_EQ(store.stats()->samples, samples_before + 1);
  EXPECT_EQ(caught_up->updated, newest + 1h);
}

// Fails every call, as a store whose file is corrupt or unreachable does.
class UnreadableStore final : public Store {
 public:
  StoreStatus commit(const PollRecord&) override { return fail(); }
  Result<std::optional<SampleRecord>> last_sample(const DriveKey&) override { return fail(); }
  Result<std::optional<WallTime>> latest_sample_time() override { return fail(); }
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey&, std::int64_t,
                                                                       std::span<const WallTime>) override {
    return fail();
  }
  Result<std::vector<SampleRecord>> samples(const DriveKey&, WallTime, WallTime) override { return fail(); }
  Result<std::vector<ThermalEventRecord>> events(const DriveKey&, WallTime) override { return fail(); }
  Result<std::optional<std::string>> state(const DriveKey&, std::string_view) override { return fail(); }
  Result<CompactionStats> compact(WallTime, const RetentionPolicy&) override { return fail(); }
  Result<StoreStats> stats() override { return fail(); }

 private:
  static Error fail() { return Error{ErrorReason::corrupt, "database disk image is malformed"}; }
};

TEST(AnalyticsHistoryGaps, WithoutHistoryTheViewStillNamesTheDriveAndLeavesOutThermalCounters) {
  UnreadableStore store;
  DriveAnalytics a(store);
  const DriveInfo d = testing::drive("SN-NOHIST", "/dev/nvme1");
  ManualClock clock;
  auto r = a.update(d, hot_writer(clock.wall(), 3), AnalyticsConfig{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, ErrorReason::corrupt);
  const AnalyticsView& v = a.view();
  EXPECT_EQ(v.serial, "SN-NOHIST");
  EXPECT_FALSE(v.history);
  EXPECT_TRUE(v.wear.lifetime_dwpd.has_value()) << "power-on hours need no history";
  expect_every_series_named(v, "SN-NOHIST");
  for (const auto& f : analytics_metric_families(std::span(&v, 1))) {
    EXPECT_NE(f.name.rfind("nvme_thermal_", 0), 0u) << f.name << ": needs the stored detector state";
  }
}

TEST(AnalyticsHistoryGaps, AViewWithoutASerialIsNeverExported) {
  AnalyticsView unnamed;
  unnamed.model = "Test Drive 1TB";
  EXPECT_TRUE(analytics_metric_families(std::span(&unnamed, 1)).empty());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
