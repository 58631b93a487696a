#include <gtest/gtest.h>

#include "soak/soak_metrics.hpp"
#include "metrics/samples.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(SoakMetrics, EverySeriesJoinsTheDriveOnSerial) {
  RunView r;
  r.id = 7;
  r.name = "nightly";
  r.test = "wsat";
  r.serial = "SIM-DC";
  r.status = RunStatus::paused;
  r.round = 12;
  r.rounds_total = 600;
  r.phase = "steady";
  r.iops = 41000;
  r.eta = std::chrono::hours(2);
  r.steady = true;
  r.window_average = 40000;
  r.window_range = 0.1;
  r.round_latency = {{0.5, 1e-4}, {0.9999, 2e-3}};
  auto fs = render_soak_metrics({r}, {});
  std::map<std::string, const prometheus::MetricFamily*> by;
  for (const auto& f : fs) {
    by[f.name] = &f;
    for (const auto& m : f.metric) {
      EXPECT_EQ(label_of(m, "serial"), "SIM-DC") << f.name;
      EXPECT_EQ(label_of(m, "run"), "7") << f.name;
    }
  }
  EXPECT_EQ(by.at("nvmond_soak_running")->metric[0].gauge.value, 0);  // paused
  EXPECT_EQ(label_of(by.at("nvmond_soak_phase")->metric[0], "phase"), "steady");
  EXPECT_EQ(by.at("nvmond_soak_round")->metric[0].gauge.value, 12);
  EXPECT_EQ(by.at("nvmond_soak_eta_seconds")->metric[0].gauge.value, 7200);
  EXPECT_EQ(by.at("nvmond_soak_steady_window")->metric.size(), 2U);  // no excursion yet
  EXPECT_EQ(label_of(by.at("nvmond_soak_round_latency_seconds")->metric[1], "percentile"), "99.99");
}

TEST(SoakMetrics, ARunHeldForTheRunStoreCarriesTheReasonAndOnlyWhileHeld) {
  RunView r;
  r.id = 3;
  r.serial = "SIM-DC";
  r.status = RunStatus::paused;
  r.paused_reason = "locked";
  auto find = [](const std::vector<prometheus::MetricFamily>& fs) -> const prometheus::MetricFamily* {
    for (const auto& f : fs) {
      if (f.name == "nvmond_soak_paused") return &f;
    }
    return nullptr;
  };
  auto held = render_soak_metrics({r}, {});
  const auto* f = find(held);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->metric.size(), 1U);
  EXPECT_EQ(label_of(f->metric[0], "reason"), "locked");
  EXPECT_EQ(label_of(f->metric[0], "serial"), "SIM-DC");
  EXPECT_EQ(f->metric[0].gauge.value, 1);
  r.paused_reason.clear();
  r.status = RunStatus::running;
  EXPECT_EQ(find(render_soak_metrics({r}, {})), nullptr);
}

TEST(SoakMetrics, NoRunsNoFamilies) { EXPECT_TRUE(render_soak_metrics({}, {}).empty()); }

TEST(SoakMetrics, EverySchedulesFailedStartsAreACounterZeroIncluded) {
  ScheduleView failing;
  failing.name = "nightly";
  failing.state = ScheduleState::failed;
  failing.failed_starts = 3;
  ScheduleView fine;
  fine.name = "weekly";
  fine.state = ScheduleState::scheduled;
  auto fs = render_soak_metrics({}, {failing, fine});
  ASSERT_EQ(fs.size(), 1U);
  EXPECT_EQ(fs[0].name, "nvmond_soak_start_failures_total");
  EXPECT_EQ(fs[0].type, prometheus::MetricType::Counter);
  ASSERT_EQ(fs[0].metric.size(), 2U);
  EXPECT_EQ(label_of(fs[0].metric[0], "name"), "nightly");
  EXPECT_EQ(fs[0].metric[0].counter.value, 3);
  EXPECT_EQ(label_of(fs[0].metric[1], "name"), "weekly");
  EXPECT_EQ(fs[0].metric[1].counter.value, 0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
