// Thermal behaviour of the profiles under sustained sequential writes, against
// what the published reviews measured (DESIGN.md, "What the seeds measured").
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "sim/drive_model.hpp"
#include "sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
constexpr std::uint64_t kChunk = 4 * 1024 * 1024;

struct Trace {
  double max_celsius = -1e9;
  double min_limit = 1e30;
  double first_level1_celsius = 0, first_level1_limit = 0, first_level1_s = -1;
  double first_level2_celsius = 0, first_level2_limit = 0, first_level2_s = -1;
  // Throughput over the last `tail_s` seconds of the run.
  double tail_bytes = 0, tail_seconds = 0;
};

Trace sustained_write(DriveModel& m, ManualClock& clock, Duration span, double tail_s) {
  Trace t;
  const double span_s = seconds(span);
  test::run_workload(m, clock, span, kChunk, IoOp::write, true, [&](const test::Sample& s) {
    t.max_celsius = std::max(t.max_celsius, s.celsius);
    t.min_limit = std::min(t.min_limit, s.limit);
    if (s.level >= 1 && t.first_level1_s < 0) {
      t.first_level1_s = s.elapsed_s;
      t.first_level1_celsius = s.celsius;
      t.first_level1_limit = s.limit;
    }
    if (s.level >= 2 && t.first_level2_s < 0) {
      t.first_level2_s = s.elapsed_s;
      t.first_level2_celsius = s.celsius;
      t.first_level2_limit = s.limit;
    }
    if (s.elapsed_s > span_s - tail_s) {
      t.tail_bytes += static_cast<double>(s.bytes);
      t.tail_seconds += seconds(s.service);
    }
  });
  return t;
}

TEST(SimThermal, DatacenterThrottlesAt70To800ThenTo650) {
  ManualClock clock;
  DriveModel m(test::named("datacenter"), clock.wall());
  ASSERT_LT(m.composite_celsius(), 60);
  ASSERT_EQ(m.throttle_level(), 0);
  ASSERT_DOUBLE_EQ(m.write_limit_bytes_per_s(), 2000e6);

  Trace t = sustained_write(m, clock, 15min, 60);

  ASSERT_GT(t.first_level1_s, 0) << "never throttled";
  EXPECT_GE(t.first_level1_celsius, 70.0);
  EXPECT_LT(t.first_level1_celsius, 70.5);
  EXPECT_DOUBLE_EQ(t.first_level1_limit, 800e6);
  ASSERT_GT(t.first_level2_s, t.first_level1_s) << "never reached the second level";
  EXPECT_GE(t.first_level2_celsius, 75.0);
  EXPECT_LT(t.first_level2_celsius, 75.5);
  EXPECT_DOUBLE_EQ(t.first_level2_limit, 650e6);
  // Settles at level 2: the drive's throughput is the level's cap.
  EXPECT_EQ(m.throttle_level(), 2);
  EXPECT_NEAR(t.tail_bytes / t.tail_seconds, 650e6, 1e6);

  SmartLog s = m.smart();
  EXPECT_EQ(s.thermal.tmt1_transitions, 1u);
  EXPECT_EQ(s.thermal.tmt2_transitions, 1u);
  // Seconds at each level follow the trace (±1 s for truncation).
  EXPECT_NEAR(s.thermal.tmt1_seconds, t.first_level2_s - t.first_level1_s, 1.5);
  EXPECT_NEAR(s.thermal.tmt2_seconds, 15 * 60 - t.first_level2_s, 1.5);
  EXPECT_GE(s.composite_temperature_k, 348);  // ≥ 75 °C
  auto ocp = m.ocp();
  ASSERT_TRUE(ocp.has_value());
  EXPECT_EQ(ocp->thermal_throttling_status, 2);
  EXPECT_EQ(ocp->thermal_throttling_count, 1);
}

// The demo's datacenter drive: 300 MB/s of background writes under a
// sequential job. Its throttle caps the drive's writes, the background's
// and the job's together, so it settles at level 2 (650 MB/s in all, 350 of
// them the job's) near 76 °C, below its critical temperature; a background
// outside the cap would hold it at 88 °C.
TEST(SimThermal, DatacenterThrottleCapsItsBackgroundLoadTooAndStaysBelowCctemp) {
  ManualClock clock;
  SimDriveSpec spec = test::named("datacenter");
  spec.background_write_bytes_per_s = 300e6;
  DriveModel m(spec, clock.wall());
  Trace t = sustained_write(m, clock, 30min, 120);
  ASSERT_GT(t.first_level2_s, 0) << "never reached the second level";
  EXPECT_LT(t.max_celsius, spec.critical_temp_c);
  EXPECT_EQ(m.throttle_level(), 2);
  EXPECT_NEAR(m.composite_celsius(), 76, 1);
  EXPECT_NEAR(t.tail_bytes / t.tail_seconds, 650e6 - 300e6, 1e6);
  EXPECT_EQ(m.smart().thermal.critical_minutes, 0u);
}

TEST(SimThermal, DatacenterCoolsDownAndLeavesThrottling) {
  ManualClock clock;
  DriveModel m(test::named("datacenter"), clock.wall());
  sustained_write(m, clock, 10min, 1);
  ASSERT_GE(m.throttle_level(), 1);
  clock.advance(30min);
  m.advance_to(clock.wall());
  EXPECT_EQ(m.throttle_level(), 0);
  EXPECT_LT(m.composite_celsius(), 55);
  EXPECT_DOUBLE_EQ(m.write_limit_bytes_per_s(), 2000e6);
  EXPECT_EQ(m.ocp()->thermal_throttling_status, 0);
}

TEST(SimThermal, ConsumerReaches83AndFallsTo450) {
  ManualClock clock;
  DriveModel m(test::named("consumer"), clock.wall());
  Trace t = sustained_write(m, clock, 10min, 1);
  ASSERT_GT(t.first_level1_s, 0) << "never throttled";
  EXPECT_NEAR(t.max_celsius, 83, 1.0);
  EXPECT_DOUBLE_EQ(t.min_limit, 450e6);
  EXPECT_DOUBLE_EQ(t.first_level1_limit, 450e6);
  SmartLog s = m.smart();
  EXPECT_GE(s.thermal.tmt1_transitions, 1u);
  EXPECT_EQ(s.thermal.tmt2_transitions, 0u);
  EXPECT_GT(s.thermal.tmt1_seconds, 0u);
  EXPECT_FALSE(m.ocp().has_value());
}

TEST(SimThermal, HeatsinkRemovesConsumerThrottling) {
  ManualClock clock;
  DriveModel m(test::named("consumer-heatsink"), clock.wall());
  Trace t = sustained_write(m, clock, 10min, 60);
  EXPECT_LT(t.max_celsius, 83 - 10);
  EXPECT_LT(t.first_level1_s, 0) << "throttled at " << t.first_level1_celsius;
  EXPECT_EQ(m.smart().thermal.tmt1_transitions, 0u);
  // Past the SLC cache it writes at the drive's post-cache speed, unthrottled.
  EXPECT_NEAR(t.tail_bytes / t.tail_seconds, 630e6, 1e6);
}

TEST(SimThermal, TimeAboveWarningAndCriticalThresholdsIsCounted) {
  ManualClock clock;
  SimDriveSpec spec = test::named("datacenter");
  spec.warning_temp_c = 60;
  spec.critical_temp_c = 74;
  spec.throttle.clear();
  DriveModel m(spec, clock.wall());
  sustained_write(m, clock, 20min, 1);
  SmartLog s = m.smart();
  EXPECT_GT(s.thermal.warning_minutes, 0u);
  EXPECT_GT(s.thermal.critical_minutes, 0u);
  EXPECT_LE(s.thermal.warning_minutes + s.thermal.critical_minutes, 20u);
  EXPECT_EQ(m.ocp()->thermal_throttling_status, 3);
  // Composite ≥ WCTEMP (the default over-temperature threshold).
  EXPECT_NE(s.critical_warning & kWarnTemperature, 0);
}

TEST(SimThermal, SensorsReportKelvinAndZeroWhenAbsent) {
  ManualClock clock;
  DriveModel m(test::named("datacenter"), clock.wall());  // 3 sensors
  SmartLog s = m.smart();
  EXPECT_EQ(s.sensor_temperature_k[0], s.composite_temperature_k);
  EXPECT_GT(s.sensor_temperature_k[1], 273);
  EXPECT_GT(s.sensor_temperature_k[2], 273);
  for (std::size_t i = 3; i < 8; ++i) EXPECT_EQ(s.sensor_temperature_k[i], 0) << i;
  EXPECT_NEAR(s.composite_temperature_k - 273.15, m.composite_celsius(), 0.5);
}

TEST(SimThermal, OverThresholdSetFeatureRaisesTheTemperatureWarning) {
  ManualClock clock;
  DriveModel m(test::named("datacenter"), clock.wall());
  ASSERT_EQ(m.smart().critical_warning & kWarnTemperature, 0);
  const std::uint16_t now_k = m.smart().composite_temperature_k;
  EXPECT_TRUE(m.set_over_threshold(0, static_cast<std::uint16_t>(now_k - 5)));
  EXPECT_NE(m.smart().critical_warning & kWarnTemperature, 0);
  EXPECT_EQ(m.thresholds().over_k[0], now_k - 5);
  EXPECT_TRUE(m.set_over_threshold(0, static_cast<std::uint16_t>(now_k + 5)));
  EXPECT_EQ(m.smart().critical_warning & kWarnTemperature, 0);
  // A sensor's threshold applies to that sensor.
  EXPECT_TRUE(m.set_over_threshold(2, 280));
  EXPECT_NE(m.smart().critical_warning & kWarnTemperature, 0);
  // Absent sensor: rejected, reported as unreadable.
  EXPECT_FALSE(m.set_over_threshold(4, 300));
  EXPECT_FALSE(m.thresholds().over_k[4].has_value());
  EXPECT_EQ(m.thresholds().over_k[1], 0xFFFF);
}

// A stuck composite sensor: the drive heats under writes and throttles as
// it would, but its SMART composite keeps the value it had when the fault
// began; once the fault clears it reads the real temperature again.
TEST(SimThermal, AStuckSensorReportsOneCompositeWhileTheDriveHeats) {
  ManualClock clock;
  SimDriveSpec spec = test::named("datacenter");
  spec.fault = SimFault::stuck_temperature;
  DriveModel m(spec, clock.wall());
  const auto stuck_k = m.smart().composite_temperature_k;
  const double idle_c = m.composite_celsius();

  Trace t = sustained_write(m, clock, 5min, 60);

  EXPECT_GT(t.max_celsius, idle_c + 15) << "the drive itself did not heat";
  EXPECT_GT(t.first_level1_s, 0) << "the throttle follows the real temperature";
  EXPECT_EQ(m.smart().composite_temperature_k, stuck_k);
  m.set_fault(SimFault::none);
  EXPECT_GT(m.smart().composite_temperature_k, stuck_k + 15);
  m.set_fault(SimFault::stuck_temperature);  // sticks at what it reads now
  const auto hot_k = m.smart().composite_temperature_k;
  sustained_write(m, clock, 1min, 30);
  EXPECT_EQ(m.smart().composite_temperature_k, hot_k);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
