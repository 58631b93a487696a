// Wear analytics: window rates with gaps, resets, 128-bit counters, slot moves,
// projection, write amplification, rating resolution.
#include <gtest/gtest.h>

#include "analytics_test_util.hpp"
#include "analytics/drive_analytics.hpp"
#include "analytics/wear.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using testing::TempDir;

constexpr std::uint64_t kCapacity = 1'000'000'000'000;  // 1 TB
constexpr double kDataUnit = static_cast<double>(kDataUnitBytes);

// Host writes of `dwpd` drive writes per day, in data units per second.
double units_per_second(double dwpd) { return dwpd * static_cast<double>(kCapacity) / 86400.0 / kDataUnit; }

struct Fixture {
  TempDir dir;
  std::unique_ptr<SqliteStore> store;
  ManualClock clock;
  AnalyticsConfig config;
  Fixture() { reopen(); }
  void reopen() {
    store.reset();
    auto s = SqliteStore::open(dir.path());
    if (!s) throw std::runtime_error(s.error().message);
    store = std::move(*s);
  }
};

HealthSnapshot wear_snapshot(WallTime t, u128 units, u128 hours) {
  HealthSnapshot s = testing::snapshot(t);
  s.smart.data_units_written = units;
  s.smart.power_on_hours = hours;
  return s;
}

TEST(Wear, RatesUseTheCoveredSpanSoGapsDoNotDistortThem) {
  Fixture f;
  DriveAnalytics a(*f.store);
  const DriveInfo info = testing::drive("SN-GAP", "/dev/nvme0", kCapacity);
  const double rate = units_per_second(0.5);
  double units = 1e6;
  // Day 0: hourly polls at 0.5 DWPD; then the daemon is down for 3 days while
  // the drive writes at the same rate; then 12 h of polls.
  for (int h = 0; h <= 24; ++h) {
    ASSERT_TRUE(a.update(info, wear_snapshot(f.clock.wall(), static_cast<u128>(units), 5000 + h), f.config));
    f.clock.advance(1h);
    units += rate * 3600;
  }
  f.clock.advance(72h);
  units += rate * 72 * 3600;
  for (int h = 0; h <= 12; ++h) {
    auto v = a.update(info, wear_snapshot(f.clock.wall(), static_cast<u128>(units), 5100 + h), f.config);
    ASSERT_TRUE(v) << v.error().message;
    if (h < 12) {
      f.clock.advance(1h);
      units += rate * 3600;
    }
  }
  const WearView& w = a.view().wear;
  // 1 d window covers only the 12 h after the gap; 7 d spans the gap.
  EXPECT_EQ(w.windows[0].covered, 12h);
  EXPECT_EQ(w.windows[1].covered, 24h + 1h + 72h + 12h);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(w.windows[i].dwpd) << i;
    EXPECT_NEAR(*w.windows[i].dwpd, 0.5, 0.5 * 1e-6) << kWearWindows[i].label;
  }
}

TEST(Wear, ACounterResetStartsANewSegmentAndNeverANegativeRate) {
  Fixture f;
  DriveAnalytics a(*f.store);
  const DriveInfo info = testing::drive("SN-RESET", "/dev/nvme0", kCapacity);
  // 10 h at a high rate, then the counter drops to near zero (firmware reset)
  // and grows slowly: the windows must only see the slow segment.
  u128 units = 50'000'000;
  for (int h = 0; h < 10; ++h) {
    ASSERT_TRUE(a.update(info, wear_snapshot(f.clock.wall(), units, 100 + h), f.config));
    units += 1'000'000;
    f.clock.advance(1h);
  }
  units = 10;
  for (int h = 0; h < 5; ++h) {
    ASSERT_TRUE(a.update(info, wear_snapshot(f.clock.wall(), units, 200 + h), f.config));
    units += 100;
    f.clock.advance(1h);
  }
  const WearView& w = a.view().wear;
  ASSERT_TRUE(w.windows[0].bytes_per_second);
  EXPECT_EQ(w.windows[0].covered, 4h);
  EXPECT_NEAR(*w.windows[0].bytes_per_second, 100 * kDataUnit / 3600.0, 1e-6);
  auto last = f.store->last_sample({info.serial, info.model});
  ASSERT_TRUE(last && *last);
  EXPECT_EQ((*last)->segment, 1);
}

TEST(Wear, ADriveMovedToAnotherSlotContinuesItsHistory) {
  Fixture f;
  const double rate = units_per_second(1.0);
  double units = 0;
  {
    DriveAnalytics a(*f.store);
    const DriveInfo slot0 = testing::drive("SN-MOVE", "/dev/nvme0", kCapacity);
    for (int h = 0; h < 6; ++h) {
      ASSERT_TRUE(a.update(slot0, wear_snapshot(f.clock.wall(), static_cast<u128>(units), 10 + h), f.config));
      f.clock.advance(1h);
      units += rate * 3600;
    }
  }
  f.reopen();  // daemon restart; the drive comes back as nvme3
  DriveAnalytics b(*f.store);
  const DriveInfo slot3 = testing::drive("SN-MOVE", "/dev/nvme3", kCapacity);
  auto v = b.update(slot3, wear_snapshot(f.clock.wall(), static_cast<u128>(units), 16), f.config);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->wear.windows[0].covered, 6h);
  ASSERT_TRUE(v->wear.windows[0].dwpd);
  EXPECT_NEAR(*v->wear.windows[0].dwpd, 1.0, 1e-6);
}

TEST(Wear, CountersAbove64BitsAreExact) {
  // 2^70 data units already written; the delta is small and must not vanish
  // in a double's 53-bit mantissa.
  SampleRecord first;
  first.time = WallTime{} + 1000h;
  first.data_units_written = (u128{1} << 70) + 5;
  first.power_on_hours = 1000;
  SampleRecord last = first;
  last.time += 1h;
  last.data_units_written += 3600;  // 1 data unit/s
  WearInputs in;
  in.latest = last;
  in.window_start = window_starts(std::vector<SampleRecord>{first, last}, last);
  in.capacity_bytes = kCapacity;
  WearView v = compute_wear(in);
  ASSERT_TRUE(v.windows[0].bytes_per_second);
  EXPECT_DOUBLE_EQ(*v.windows[0].bytes_per_second, kDataUnit);
  EXPECT_GT(v.host_bytes_written, 6e26);  // 2^70 × 512000
}

TEST(Wear, ProjectedWearoutOnAConstantRateIsTheClosedForm) {
  const double rated_bytes = 600e12;  // 600 TBW
  const double bytes_per_s = 50e6;    // 50 MB/s
  SampleRecord start;
  start.time = WallTime{} + std::chrono::hours(24 * 365 * 55);
  start.data_units_written = 200'000'000;  // 102.4 TB
  start.power_on_hours = 20'000;
  SampleRecord now = start;
  now.time += std::chrono::hours(24 * 7);
  now.data_units_written += static_cast<u128>(bytes_per_s * 7 * 86400 / kDataUnit);
  now.power_on_hours += 7 * 24;
  WearInputs in;
  in.latest = now;
  in.window_start = {start, start, start};
  in.capacity_bytes = kCapacity;
  in.rated =
      resolve_endurance(DriveRating{std::nullopt, std::nullopt, 600'000'000'000'000}, "X", kCapacity, std::nullopt);
  ASSERT_TRUE(in.rated);
  WearView v = compute_wear(in);
  const double written = to_double(now.data_units_written) * kDataUnit;
  ASSERT_TRUE(v.projected_wearout);
  const double expected_s = seconds(now.time.time_since_epoch()) + (rated_bytes - written) / bytes_per_s;
  EXPECT_NEAR(seconds(v.projected_wearout->time_since_epoch()), expected_s, 1.0);
  ASSERT_TRUE(v.endurance_used_ratio);
  EXPECT_DOUBLE_EQ(*v.endurance_used_ratio, written / rated_bytes);
  // 600 TBW over 5 years of a 1 TB drive.
  EXPECT_NEAR(v.rated->dwpd, 600.0 / (365 * 5), 1e-12);
  // 50 MB/s is 4.32 DWPD: far above 0.33.
  EXPECT_TRUE(v.over_rating);
}

TEST(Wear, WriteAmplificationFromOcpMediaWrites) {
  SampleRecord start;
  start.time = WallTime{} + 1000h;
  start.data_units_written = 1000;
  start.media_bytes_written = u128{1'000'000'000};
  SampleRecord now = start;
  now.time += 24h;
  now.data_units_written += 2000;  // 1.024 GB host
  now.media_bytes_written = *start.media_bytes_written + static_cast<u128>(2.5 * 2000 * kDataUnit);
  WearInputs in;
  in.latest = now;
  in.window_start = {start, start, start};
  WearView v = compute_wear(in);
  ASSERT_TRUE(v.write_amplification);
  EXPECT_DOUBLE_EQ(*v.write_amplification, 2.5);
  // No OCP data: no ratio, rather than a made-up 1.
  in.latest.media_bytes_written.reset();
  EXPECT_FALSE(compute_wear(in).write_amplification);
}

TEST(Wear, LifetimeDwpdFromPowerOnHours) {
  SampleRecord now;
  now.time = WallTime{} + 1000h;
  now.power_on_hours = 24 * 100;
  now.data_units_written = static_cast<u128>(100 * 0.3 * kCapacity / kDataUnit);  // 0.3 DWPD for 100 days
  WearInputs in;
  in.latest = now;
  in.capacity_bytes = kCapacity;
  WearView v = compute_wear(in);
  ASSERT_TRUE(v.lifetime_dwpd);
  EXPECT_NEAR(*v.lifetime_dwpd, 0.3, 1e-9);
  EXPECT_FALSE(v.windows[0].dwpd);  // one sample: no window rate yet
}

TEST(Endurance, ConfigBeatsTheDriveWhichBeatsTheBuiltinTable) {
  OcpSmartLog ocp;
  ocp.endurance_estimate = u128{7'000'000'000'000'000};
  const std::string model = "Samsung SSD 970 EVO Plus 1TB";
  auto builtin = resolve_endurance({}, model, kCapacity, std::nullopt);
  ASSERT_TRUE(builtin);
  EXPECT_EQ(builtin->source, "builtin");
  EXPECT_DOUBLE_EQ(builtin->bytes, 600e12);
  auto drive = resolve_endurance({}, model, kCapacity, ocp);
  ASSERT_TRUE(drive);
  EXPECT_EQ(drive->source, "drive");
  auto config = resolve_endurance(DriveRating{1.3, 5.0, std::nullopt}, model, kCapacity, ocp);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->source, "config");
  EXPECT_DOUBLE_EQ(config->bytes, 1.3 * 1e12 * 365 * 5);
  EXPECT_FALSE(resolve_endurance({}, "Unknown Model", kCapacity, std::nullopt));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
