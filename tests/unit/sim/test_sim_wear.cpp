// Wear and performance state of the drive model: exact data-unit counting,
// background DWPD load over 30 days, SLC cache, the FOB-to-steady GC cliff.
#include <gtest/gtest.h>

#include <chrono>

#include "sim/drive_model.hpp"
#include "sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

TEST(SimWear, DataUnitsAreBytesOver512000RoundedUp) {
  ManualClock clock;
  DriveModel m(test::named("generic"), clock.wall());
  ASSERT_EQ(m.smart().data_units_written, 0u);
  m.io(IoOp::write, 1, true);
  EXPECT_EQ(m.smart().data_units_written, 1u);
  m.io(IoOp::write, 511'999, true);  // exactly one unit
  EXPECT_EQ(m.smart().data_units_written, 1u);
  m.io(IoOp::write, 1, false);
  EXPECT_EQ(m.smart().data_units_written, 2u);
  m.io(IoOp::read, 1'024'000, true);
  m.io(IoOp::read, 4096, false);
  SmartLog s = m.smart();
  EXPECT_EQ(s.data_units_read, 3u);  // 1 028 096 bytes
  EXPECT_EQ(s.host_write_commands, 3u);
  EXPECT_EQ(s.host_read_commands, 2u);
}

TEST(SimWear, ThirtyDaysAtTwiceRatedDwpd) {
  ManualClock clock;
  SimDriveSpec spec = test::named("datacenter");  // 3.84 TB, 1.3 DWPD × 5 years
  spec.background_write_bytes_per_s = 2 * 1.3 * 3.84e12 / 86'400;
  DriveModel m(spec, clock.wall());
  for (int i = 0; i < 30 * 8640; ++i) {  // a poller at 10 s
    clock.advance(10s);
    m.advance_to(clock.wall());
  }
  SmartLog s = m.smart();
  // 2.6 × 3.84 TB × 30 days = 299.52 TB = 585 000 000 data units.
  EXPECT_NEAR(to_double(s.data_units_written), 585'000'000.0, 1.0);
  EXPECT_EQ(s.power_on_hours, 720u);
  // 299.52 TB of 1.3 × 3.84 TB × 365 × 5 = 9110.4 TB rated: 3.29 %.
  EXPECT_EQ(s.percentage_used, 3);
  EXPECT_EQ(s.available_spare_pct, 100);
  // Issued as 128 KiB commands.
  EXPECT_NEAR(to_double(s.host_write_commands), 299.52e12 / 131072, 1.0);
  EXPECT_GT(s.controller_busy_minutes, 0u);
  // The extra heat of the load is visible but small (0.3 GB/s × 8 W/(GB/s) × 5 °C/W).
  EXPECT_NEAR(m.composite_celsius(), 50 + 0.11556 * 8 * 5, 0.1);
}

TEST(SimWear, OneBigJumpEqualsManySmallSteps) {
  ManualClock clock;
  SimDriveSpec spec = test::named("consumer");
  spec.background_write_bytes_per_s = 12'345'678.9;
  spec.background_read_bytes_per_s = 3'000'000;
  DriveModel stepped(spec, clock.wall());
  DriveModel jumped(spec, clock.wall());
  const WallTime start = clock.wall();
  for (int i = 0; i < 7 * 24 * 360; ++i) {
    clock.advance(10s);
    stepped.advance_to(clock.wall());
  }
  jumped.advance_to(clock.wall());
  jumped.advance_to(start);  // going back is a no-op
  SmartLog a = stepped.smart();
  SmartLog b = jumped.smart();
  EXPECT_EQ(a.data_units_written, b.data_units_written);
  EXPECT_EQ(a.data_units_read, b.data_units_read);
  EXPECT_EQ(a.power_on_hours, 168u);
  EXPECT_EQ(b.power_on_hours, 168u);
  EXPECT_NEAR(stepped.composite_celsius(), jumped.composite_celsius(), 1e-6);
}

TEST(SimWear, PercentageUsedFollowsRatedTbw) {
  ManualClock clock;
  SimDriveSpec spec = test::named("consumer");  // 480 TBW
  spec.capacity_bytes = 1'000'000'000;
  spec.slc_cache_bytes = 0;
  DriveModel m(spec, clock.wall());
  // 4.8 TB is 1 % of 480 TBW.
  for (int i = 0; i < 4800 - 1; ++i) m.io(IoOp::write, 1'000'000'000, true);
  EXPECT_EQ(m.smart().percentage_used, 0);
  m.io(IoOp::write, 1'000'000'000, true);
  EXPECT_EQ(m.smart().percentage_used, 1);
}

TEST(SimWear, SpareFallsOnlyPastRatedEndurance) {
  ManualClock clock;
  SimDriveSpec spec = test::named("generic");
  spec.capacity_bytes = 1'000'000;  // rated 0.5 × 1 MB × 365 × 5 = 912.5 MB
  DriveModel m(spec, clock.wall());
  m.io(IoOp::write, 912'500'000, true);
  SmartLog s = m.smart();
  EXPECT_EQ(s.percentage_used, 100);
  EXPECT_EQ(s.available_spare_pct, 100);
  m.io(IoOp::write, 912'500'000, true);  // 200 %
  s = m.smart();
  EXPECT_EQ(s.percentage_used, 200);
  EXPECT_EQ(s.available_spare_pct, 0);
  EXPECT_NE(s.critical_warning & kWarnSpare, 0);
  m.io(IoOp::write, 912'500'000ULL * 2, true);
  EXPECT_EQ(m.smart().percentage_used, 255);  // saturates
}

TEST(SimWear, SlcCacheFillsAtFullSpeedThenDropsAndRecoversWhenIdle) {
  ManualClock clock;
  // The heatsink variant does not throttle, so only the cache shapes speed.
  DriveModel m(test::named("consumer-heatsink"), clock.wall());
  constexpr std::uint64_t kChunk = 1'000'000;
  double fast_bytes = 0, fast_s = 0, slow_bytes = 0, slow_s = 0;
  double cached = -1;
  double written = 0;
  test::run_workload(m, clock, 60s, kChunk, IoOp::write, true, [&](const test::Sample& s) {
    const bool in_cache = cached < 0;  // this command started with room in the cache
    written += static_cast<double>(s.bytes);
    if (in_cache && s.limit < 1700e6) cached = written;
    (in_cache ? fast_bytes : slow_bytes) += static_cast<double>(s.bytes);
    (in_cache ? fast_s : slow_s) += seconds(s.service);
  });
  EXPECT_DOUBLE_EQ(cached, 28e9);
  // Service times are whole nanoseconds: 1e-5 relative.
  EXPECT_NEAR(fast_bytes / fast_s, 1700e6, 17e3);
  EXPECT_NEAR(slow_bytes / slow_s, 630e6, 6.3e3);

  // Short gaps between commands do not fold the cache...
  clock.advance(500ms);
  m.advance_to(clock.wall());
  EXPECT_DOUBLE_EQ(m.write_limit_bytes_per_s(), 630e6);
  // ...a quiet minute folds 28 GB at 630 MB/s (44 s) and restores full speed.
  clock.advance(60s);
  m.advance_to(clock.wall());
  EXPECT_DOUBLE_EQ(m.write_limit_bytes_per_s(), 1700e6);
}

TEST(SimWear, CommandStraddlingTheCacheEndIsTimedAtBothSpeeds) {
  ManualClock clock;
  SimDriveSpec spec = test::named("consumer-heatsink");
  spec.slc_cache_bytes = 1'700'000;
  DriveModel m(spec, clock.wall());
  // 1.7 MB in cache (1 ms) + 0.63 MB past it (1 ms).
  Duration d = m.io(IoOp::write, 2'330'000, true);
  EXPECT_NEAR(seconds(d), 2e-3, 1e-9);
}

TEST(SimWear, RandomWritesFallOffTheCliffAfterOneCapacity) {
  ManualClock clock;
  SimDriveSpec spec = test::named("datacenter");  // 180k IOPS FOB, 40k steady, WAF 2.5
  spec.capacity_bytes = 64'000'000;
  DriveModel m(spec, clock.wall());
  constexpr std::uint64_t kBs = 4096;
  auto window = [&](double capacities) {
    const auto n = static_cast<int>(capacities * 64e6 / kBs);
    const auto before = m.ocp()->physical_media_units_written;
    double s = 0;
    for (int i = 0; i < n; ++i) {
      Duration d = m.io(IoOp::write, kBs, false);
      clock.advance(d);
      m.advance_to(clock.wall());
      s += seconds(d);
    }
    double media = to_double(m.ocp()->physical_media_units_written - before);
    return std::pair{n / s, media / (static_cast<double>(n) * kBs)};
  };
  auto [fob_iops, fob_waf] = window(0.5);
  EXPECT_NEAR(fob_iops, 180'000, 100);
  EXPECT_NEAR(fob_waf, 1.0, 1e-3);
  auto [mid_iops, mid_waf] = window(1.0);  // 0.5× .. 1.5×: falling
  EXPECT_LT(mid_iops, 170'000);
  EXPECT_GT(mid_iops, 45'000);
  window(0.5);
  auto [steady_iops, steady_waf] = window(0.5);  // past 2×
  EXPECT_NEAR(steady_iops, 40'000, 100);
  EXPECT_NEAR(steady_waf, 2.5, 1e-3);
  // Large sequential writes still run at full speed.
  EXPECT_NEAR(seconds(m.io(IoOp::write, 2'000'000, true)), 1e-3, 1e-9);

  // A purge returns the drive to fresh-out-of-box; lifetime counters stay.
  const u128 written = m.smart().data_units_written;
  m.purge();
  EXPECT_NEAR(1.0 / seconds(m.io(IoOp::write, kBs, false)), 180'000, 100);
  EXPECT_GE(m.smart().data_units_written, written);
}

TEST(SimWear, ReadsAreCappedByTheirOwnLimitsAndHeatLess) {
  ManualClock clock;
  DriveModel r(test::named("datacenter"), clock.wall());
  DriveModel w(test::named("datacenter"), clock.wall());
  EXPECT_NEAR(seconds(r.io(IoOp::read, 3'200'000, true)), 1e-3, 1e-9);
  EXPECT_NEAR(1.0 / seconds(r.io(IoOp::read, 4096, false)), 550'000, 550);  // whole nanoseconds: 1e-3 relative
  const double r0 = r.composite_celsius();
  const double w0 = w.composite_celsius();
  r.io(IoOp::read, 10'000'000'000, true);
  w.io(IoOp::write, 10'000'000'000, true);
  EXPECT_NEAR(r.composite_celsius() - r0, (w.composite_celsius() - w0) / 2, 1e-9);
  // 10 GB × 8 J/GB over C = 300 s / 5 °C/W = 60 J/K.
  EXPECT_NEAR(w.composite_celsius() - w0, 80.0 / 60, 1e-9);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
