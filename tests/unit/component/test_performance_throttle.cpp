// The performance-inferred throttle detector against the simulated drives'
// own throttle timeline: a sustained sequential write, throughput per 1 s
// interval, as the daemon sees a fixed workload.
#include <gtest/gtest.h>

#include <cmath>

#include "analytics/performance_throttle.hpp"
#include "tests/unit/sim/sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

struct Episode {
  double start_s, end_s;
};

struct Timeline {
  std::vector<Episode> model;  // from the model's throttle level
  std::vector<PerformanceThrottleEvent> detected;
  WallTime t0;
};

Timeline run(const std::string& profile, Duration span) {
  ManualClock clock;
  auto spec = test::named(profile);
  DriveModel m(spec, clock.wall());
  PerformanceThrottleDetector det;
  Timeline tl;
  tl.t0 = clock.wall();
  double interval_bytes = 0, next_edge = 1;
  bool model_hot = false;
  test::run_workload(m, clock, span, 1 << 20, IoOp::write, true, [&](const test::Sample& s) {
    interval_bytes += static_cast<double>(s.bytes);
    if (s.level > 0 && !model_hot) tl.model.push_back({s.elapsed_s, -1});
    if (s.level == 0 && model_hot) tl.model.back().end_s = s.elapsed_s;
    model_hot = s.level > 0;
    if (s.elapsed_s >= next_edge) {
      det.observe({clock.wall(), interval_bytes / (s.elapsed_s - (next_edge - 1)), s.celsius, spec.warning_temp_c});
      interval_bytes = 0;
      next_edge = std::floor(s.elapsed_s) + 1;
    }
  });
  tl.detected = det.closed();
  return tl;
}

double since(const Timeline& tl, WallTime t) { return seconds(t - tl.t0); }

TEST(PerformanceThrottle, FindsTheConsumerDrivesThrottlingWithinOneInterval) {
  Timeline tl = run("consumer", std::chrono::minutes(10));
  ASSERT_FALSE(tl.model.empty()) << "the model never throttled: the test proves nothing";
  std::vector<Episode> closed_model;
  for (const auto& e : tl.model) {
    if (e.end_s >= 0) closed_model.push_back(e);
  }
  ASSERT_EQ(tl.detected.size(), closed_model.size());
  for (std::size_t i = 0; i < closed_model.size(); ++i) {
    EXPECT_NEAR(since(tl, tl.detected[i].start), closed_model[i].start_s, 1.0) << "event " << i;
    EXPECT_NEAR(since(tl, *tl.detected[i].end), closed_model[i].end_s, 1.0) << "event " << i;
    EXPECT_GE(tl.detected[i].peak_celsius, 80);
  }
}

TEST(PerformanceThrottle, TheHeatsinkDriveNeverThrottles) {
  Timeline tl = run("consumer-heatsink", std::chrono::minutes(10));
  EXPECT_TRUE(tl.model.empty());
  EXPECT_TRUE(tl.detected.empty());
}

TEST(PerformanceThrottle, ACoolThroughputDropMovesTheBaselineInsteadOfOpeningAnEvent) {
  PerformanceThrottleDetector det;
  WallTime t{};
  for (int i = 0; i < 20; ++i) det.observe({t += std::chrono::seconds(1), 1.7e9, 60, 83});
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(det.observe({t += std::chrono::seconds(1), 0.63e9, 70, 83}));
  EXPECT_NEAR(*det.baseline(), 0.63e9, 1);
  EXPECT_TRUE(det.observe({t += std::chrono::seconds(1), 0.45e9, 83, 83}));
  EXPECT_TRUE(det.throttling());
}

TEST(PerformanceThrottle, ACoolDropRestartsTheBaselineSoTheNewLevelIsNoDropOnceTheDriveWarms) {
  // Coarse intervals (a soak's rounds, an accelerated clock): one interval
  // after the SLC cache runs out, the drive already nears WCTEMP.
  PerformanceThrottleDetector det({0.2, 5, 3});
  WallTime t{};
  for (int i = 0; i < 2; ++i) det.observe({t += std::chrono::seconds(10), 1.7e9, 60, 83});
  det.observe({t += std::chrono::seconds(10), 0.63e9, 72, 83});
  EXPECT_NEAR(*det.baseline(), 0.63e9, 1);
  EXPECT_FALSE(det.observe({t += std::chrono::seconds(10), 0.63e9, 79, 83}));
  EXPECT_FALSE(det.throttling());
  EXPECT_TRUE(det.observe({t += std::chrono::seconds(10), 0.45e9, 83, 83}));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
