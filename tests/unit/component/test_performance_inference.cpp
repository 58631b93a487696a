// Throttling seen in the data, end to end on simulated time: a fixed
// sequential write on the simulated consumer drive that counts no thermal-
// management transitions reports its throughput per second to the feed, as
// a [[job]] does; the drive's analytics poll it every 5 s and record
// `performance` events. The model knows when it throttled: the events must
// start and end within one interval of that, and the heatsink drive has none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "analytics/drive_analytics.hpp"
#include "store/sqlite_store.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sim/sim_test_util.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

constexpr std::size_t kPerf = static_cast<std::size_t>(ThrottleSource::performance);
constexpr Duration kInterval = 1s;
constexpr Duration kPoll = 5s;

struct Episode {
  WallTime start;
  std::optional<WallTime> end;
};

struct Outcome {
  std::vector<Episode> model;  // from the model's own throttle level
  std::deque<PerformanceThrottleEvent> inferred;
  WallTime last_poll;
  ThermalView view;
  std::vector<ThermalEventRecord> stored;
  SmartLog smart;
};

Outcome run(const std::string& profile, Duration span) {
  test::TempDir dir("nvmond-perf");
  auto store = SqliteStore::open(dir.path());
  if (!store) throw std::runtime_error(store.error().message);
  ThroughputFeed feed;
  DriveAnalytics analytics(**store, &feed);
  AnalyticsConfig config;

  ManualClock clock;
  SimDriveSpec spec = test::named(profile, "c0", "SN-C0");
  spec.tmt_counters = false;
  DriveModel m(spec, clock.wall());
  const DriveInfo info = m.identity();

  Outcome out;
  auto poll = [&] {
    HealthSnapshot snap;
    snap.taken = m.now();
    snap.smart = m.smart();
    snap.thresholds = m.thresholds();
    if (!analytics.update(info, snap, config)) throw std::runtime_error("store failed");
    out.last_poll = snap.taken;
  };
  poll();
  WallTime interval_start = clock.wall(), next_poll = clock.wall() + kPoll;
  double interval_bytes = 0;
  bool hot = false;
  test::run_workload(m, clock, span, 1 << 20, IoOp::write, true, [&](const test::Sample& s) {
    interval_bytes += static_cast<double>(s.bytes);
    if (s.level > 0 && !hot) out.model.push_back({clock.wall() - s.service, std::nullopt});
    if (s.level == 0 && hot) out.model.back().end = clock.wall() - s.service;
    hot = s.level > 0;
    if (clock.wall() - interval_start >= kInterval) {
      WorkloadThroughput x;
      x.serial = info.serial;
      x.workload = "job:seq";
      x.interval_end = clock.wall();
      x.interval = clock.wall() - interval_start;
      x.bytes_per_second = interval_bytes / seconds(x.interval);
      x.fixed = true;
      feed.report(x);
      interval_bytes = 0;
      interval_start = clock.wall();
    }
    if (clock.wall() >= next_poll) {
      poll();
      next_poll += kPoll;
    }
  });
  poll();
  out.inferred = analytics.performance().episodes();
  out.view = analytics.view().thermal;
  auto events = (*store)->events({info.serial, info.model}, WallTime{});
  if (events) out.stored = *events;
  out.smart = m.smart();
  return out;
}

// Within one interval; an end the run did not reach counts as "still on".
bool near(std::optional<WallTime> a, std::optional<WallTime> b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return std::abs(seconds(*a - *b)) <= seconds(kInterval);
}

TEST(PerformanceInference, FindsTheConsumerDrivesThrottlingWithinOneIntervalWithoutTmtCounters) {
  const Outcome o = run("consumer", 10min);
  ASSERT_FALSE(o.model.empty()) << "the model never throttled: the test proves nothing";
  EXPECT_EQ(o.smart.thermal.tmt1_transitions, 0u);
  EXPECT_EQ(o.smart.thermal.tmt1_seconds, 0u);

  // Every episode the model finished well before the last poll was found...
  std::size_t checked = 0;
  double worst = 0;
  for (const auto& e : o.model) {
    if (!e.end || *e.end > o.last_poll - 2 * kInterval) continue;
    const auto found = std::find_if(o.inferred.begin(), o.inferred.end(),
                                    [&](const auto& i) { return near(i.start, e.start) && near(i.end, e.end); });
    EXPECT_NE(found, o.inferred.end()) << "model episode " << seconds(e.start - o.model.front().start)
                                       << " s after the first";
    if (found != o.inferred.end()) {
      worst = std::max({worst, std::abs(seconds(found->start - e.start)), std::abs(seconds(*found->end - *e.end))});
    }
    ++checked;
  }
  EXPECT_GE(checked, 3u);
  std::cout << checked << " throttle episodes of the model found, worst start/end offset " << worst << " s\n";
  // ...and nothing else was.
  for (const auto& i : o.inferred) {
    if (!i.end) continue;
    const bool matches = std::any_of(o.model.begin(), o.model.end(), [&](const Episode& e) {
      return near(i.start, e.start) && (!e.end || near(i.end, e.end));
    });
    EXPECT_TRUE(matches) << "inferred episode " << seconds(i.start - o.model.front().start) << " s after the first";
  }

  // Recorded as the `performance` source, merged with the drive's own signals.
  EXPECT_GE(o.view.source_events[kPerf], checked);
  EXPECT_GT(o.view.source_seconds[kPerf], 0);
  const bool stored = std::any_of(o.stored.begin(), o.stored.end(), [](const ThermalEventRecord& r) {
    return std::find(r.sources.begin(), r.sources.end(), "performance") != r.sources.end();
  });
  EXPECT_TRUE(stored);
  EXPECT_EQ(o.view.events, o.stored.size());  // one merged event per stored row, none twice
}

TEST(PerformanceInference, TheHeatsinkDriveShowsNone) {
  const Outcome o = run("consumer-heatsink", 10min);
  EXPECT_TRUE(o.model.empty());
  EXPECT_TRUE(o.inferred.empty());
  EXPECT_EQ(o.view.source_events[kPerf], 0u);
  EXPECT_EQ(o.view.events, 0u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
