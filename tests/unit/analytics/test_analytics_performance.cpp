// The `performance` throttle source: inferred episodes merged with the
// drive's own signals (one event, each second counted once), its persisted
// 8th source, and a state saved before it existed.
#include <gtest/gtest.h>

#include "analytics_test_util.hpp"
#include "analytics/drive_analytics.hpp"
#include "analytics/thermal.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using testing::TempDir;

constexpr std::size_t kPerf = static_cast<std::size_t>(ThrottleSource::performance);
constexpr std::size_t kSensor = static_cast<std::size_t>(ThrottleSource::sensor_threshold);
const WallTime kT0 = WallTime{} + std::chrono::hours(24 * 365 * 54);
const ControllerIdentity kId = testing::drive("SN-P", "sim:p").controller;  // WCTEMP 343 K

HealthSnapshot at(Duration since_t0, std::uint16_t composite_k = 313) {
  HealthSnapshot s = testing::snapshot(kT0 + since_t0);
  s.smart.composite_temperature_k = composite_k;
  return s;
}

double level_seconds(const ThermalState& s) {
  double sum = 0;
  for (double v : s.level_seconds) sum += v;
  return sum;
}

TEST(PerformanceSource, AnEventOnlyItSawSpansTheEpisodeNotThePolls) {
  ThermalDetector d;
  const ThermalConfig config;
  d.update(at(0s), kId, config);
  auto changed = d.update(at(10s), kId, config, {true, 6, kT0 + 4s, std::nullopt, std::nullopt});
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].start, kT0 + 4s);
  EXPECT_FALSE(changed[0].end);
  EXPECT_EQ(throttle_source_labels(changed[0].sources), std::vector<std::string>{"performance"});
  EXPECT_TRUE(thermal_view(d.state()).throttling);

  changed = d.update(at(20s), kId, config, {true, 3, std::nullopt, kT0 + 13s, std::nullopt});
  ASSERT_EQ(changed.size(), 1u);
  ASSERT_TRUE(changed[0].end);
  EXPECT_EQ(*changed[0].end, kT0 + 13s);  // not the poll at 20 s
  const ThermalState& s = d.state();
  EXPECT_FALSE(s.open);
  EXPECT_FALSE(thermal_view(s).throttling);
  EXPECT_EQ(s.events, 1u);
  EXPECT_EQ(s.source_events[kPerf], 1u);
  EXPECT_DOUBLE_EQ(s.source_seconds[kPerf], 9);
  EXPECT_DOUBLE_EQ(level_seconds(s), 9);

  // Quiet polls after it change nothing.
  EXPECT_TRUE(d.update(at(30s), kId, config).empty());
  EXPECT_EQ(d.state().events, 1u);
}

TEST(PerformanceSource, OverlapWithTheDrivesOwnSignalIsOneEventAndEachSecondCountsOnce) {
  ThermalDetector d;
  const ThermalConfig config;
  d.update(at(0s), kId, config);
  // The composite reaches WCTEMP at the poll at 10 s; the workload slowed at 8 s.
  d.update(at(10s, 345), kId, config, {true, 2, kT0 + 8s, std::nullopt, std::nullopt});
  d.update(at(20s, 345), kId, config, {true, 10, std::nullopt, std::nullopt, std::nullopt});
  // Cool again at 30 s; the workload recovered at 25 s.
  auto changed = d.update(at(30s), kId, config, {true, 5, std::nullopt, kT0 + 25s, std::nullopt});
  ASSERT_EQ(changed.size(), 1u);
  const ThrottleEvent& e = changed[0];
  EXPECT_EQ(e.start, kT0 + 8s);
  ASSERT_TRUE(e.end);
  EXPECT_EQ(*e.end, kT0 + 25s);
  EXPECT_EQ(throttle_source_labels(e.sources), (std::vector<std::string>{"sensor_threshold", "performance"}));

  const ThermalState& s = d.state();
  EXPECT_EQ(s.events, 1u);  // merged: one event, not one per source
  EXPECT_EQ(s.source_events[kPerf], 1u);
  EXPECT_EQ(s.source_events[kSensor], 1u);
  // The merged time is the event's span; the per-source seconds overlap.
  EXPECT_DOUBLE_EQ(level_seconds(s), seconds(*e.end - e.start));
  EXPECT_DOUBLE_EQ(s.source_seconds[kPerf], 17);
  EXPECT_DOUBLE_EQ(s.source_seconds[kSensor], 10);
  EXPECT_GT(s.source_seconds[kPerf] + s.source_seconds[kSensor], level_seconds(s));
}

TEST(PerformanceSource, AnEpisodeReportedAfterTheDrivesEventClosedReopensItInsteadOfCountingTwice) {
  ThermalDetector d;
  const ThermalConfig config;
  d.update(at(0s), kId, config);
  d.update(at(10s, 345), kId, config);  // the drive's own signal: opens at 10 s
  d.update(at(20s), kId, config);       // gone at 20 s: closed, last seen at 10 s
  ASSERT_FALSE(d.state().open);
  // A restart in between keeps what was closed and when.
  auto restored = decode_thermal_state(encode_thermal_state(d.state()));
  ASSERT_TRUE(restored && restored->last_closed);
  EXPECT_EQ(restored->last_closed_at, kT0 + 20s);
  ThermalDetector r(*restored);

  // The workload's slow interval began at 18 s, but its sample came after the
  // poll at 20 s: the same excursion, reopened.
  auto changed = r.update(at(30s), kId, config, {true, 12, kT0 + 18s, std::nullopt, std::nullopt});
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].start, kT0 + 10s);
  EXPECT_FALSE(changed[0].end);
  changed = r.update(at(40s), kId, config, {true, 4, std::nullopt, kT0 + 34s, std::nullopt});
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].start, kT0 + 10s);
  EXPECT_EQ(changed[0].end, kT0 + 34s);
  EXPECT_EQ(throttle_source_labels(changed[0].sources), (std::vector<std::string>{"sensor_threshold", "performance"}));
  EXPECT_EQ(r.state().events, 1u);
  EXPECT_DOUBLE_EQ(level_seconds(r.state()), 24);  // 10 s .. 34 s, once
}

// The interval before an episode's first slow one may hold its onset: an
// episode whose first slow interval began after the drive's event closed,
// but whose interval before began before that, is the same excursion; one
// whose onset cannot reach back that far is a new event.
TEST(PerformanceSource, AnEpisodeWhoseOnsetMayPrecedeTheClosingPollReopensTheEventAndALaterOneDoesNot) {
  const ThermalConfig config;
  auto closed_at_13s = [&] {
    ThermalDetector d;
    d.update(at(0s), kId, config);
    d.update(at(12s, 345), kId, config);  // the drive's own signal at 12 s
    d.update(at(13s), kId, config);       // gone at 13 s: closed
    return d;
  };
  ThermalDetector same = closed_at_13s();
  same.update(at(20s), kId, config, {true, 3, kT0 + 14s, kT0 + 17s, kT0 + 13s});
  EXPECT_EQ(same.state().events, 1u);
  EXPECT_EQ(same.state().source_events[kPerf], 1u);

  ThermalDetector later = closed_at_13s();
  later.update(at(20s), kId, config, {true, 3, kT0 + 14s, kT0 + 17s, kT0 + 13s + 1ms});
  EXPECT_EQ(later.state().events, 2u);
}

// What nvmond wrote before the `performance` source: version 1, 7 sources.
constexpr const char* kVersionOneState = R"({"version":1,
  "last":{"time_ns":1702000000000000000,"tmt1_transitions":4,"tmt2_transitions":0,"tmt1_seconds":70,
          "tmt2_seconds":0,"warning_minutes":1,"critical_minutes":0},
  "active":0,"level":0,"last_peak_celsius":79.0,"events":3,
  "source_events":[3,0,1,0,0,0,2],"source_seconds":[70,0,60,0,0,0,40],
  "level_events":[0,3,0,0],"level_seconds":[0,95,0,0]})";

TEST(PerformanceSource, AVersionOneStateLoadsWithPerformanceAtZeroAndSavesAsVersionTwo) {
  auto s = decode_thermal_state(kVersionOneState);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->events, 3u);
  EXPECT_EQ(s->source_events[0], 3u);
  EXPECT_EQ(s->source_events[kSensor], 2u);
  EXPECT_EQ(s->source_events[kPerf], 0u);
  EXPECT_DOUBLE_EQ(s->source_seconds[kSensor], 40);
  EXPECT_DOUBLE_EQ(s->source_seconds[kPerf], 0);

  s->source_events[kPerf] = 5;
  s->source_seconds[kPerf] = 12.5;
  const std::string saved = encode_thermal_state(*s);
  EXPECT_NE(saved.find("\"version\":2"), std::string::npos) << saved;
  auto again = decode_thermal_state(saved);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->source_events, s->source_events);
  EXPECT_EQ(again->source_seconds, s->source_seconds);
}

TEST(PerformanceSource, AStateWithMoreSourcesThanThisBuildKnowsOrANewerVersionIsRefused) {
  std::string nine = kVersionOneState;
  nine.replace(nine.find("[3,0,1,0,0,0,2]"), 15, "[3,0,1,0,0,0,2,0,9]");
  EXPECT_FALSE(decode_thermal_state(nine));
  std::string v3 = kVersionOneState;
  v3.replace(v3.find("\"version\":1"), 11, "\"version\":3");
  EXPECT_FALSE(decode_thermal_state(v3));
}

WorkloadThroughput second(Duration end, double bytes_per_second) {
  WorkloadThroughput x;
  x.serial = "SN-P";
  x.workload = "job:seq";
  x.interval_end = kT0 + end;
  x.interval = 1s;
  x.bytes_per_second = bytes_per_second;
  x.fixed = true;
  return x;
}

// One-second samples ending at `first` .. `last` seconds, all at one rate.
void report_seconds(ThroughputFeed& feed, int first, int last, double bytes_per_second) {
  for (int i = first; i <= last; ++i) feed.report(second(std::chrono::seconds(i), bytes_per_second));
}

TEST(PerformanceSource, TheStoreKeepsTheEighthSourceAcrossReopenAndLoadsAnOldRow) {
  TempDir dir;
  const DriveInfo info = testing::drive("SN-P", "sim:p");
  const DriveKey key{info.serial, info.model};
  {
    // A database written before the `performance` source: its state row has 7 sources.
    auto store = SqliteStore::open(dir.path());
    ASSERT_TRUE(store) << store.error().message;
    PollRecord old;
    old.drive = key;
    SampleRecord sample;
    sample.time = kT0 - 1h;
    old.samples.push_back(sample);
    old.state.emplace_back("thermal", kVersionOneState);
    ASSERT_TRUE((*store)->commit(old));
  }
  {
    auto store = SqliteStore::open(dir.path());
    ASSERT_TRUE(store) << store.error().message;
    ThroughputFeed feed;
    DriveAnalytics analytics(**store, &feed);
    const AnalyticsConfig config;
    ASSERT_TRUE(analytics.update(info, at(0s), config));
    EXPECT_EQ(analytics.view().thermal.events, 3u) << "the old state was not loaded";
    EXPECT_EQ(analytics.view().thermal.source_events[0], 3u);

    // Ten fast seconds, warming up to 66 °C (near WCTEMP 70 °C, below it: no
    // drive signal), then five slow ones and five fast ones.
    report_seconds(feed, 1, 10, 1e9);
    ASSERT_TRUE(analytics.update(info, at(10s, 339), config));
    report_seconds(feed, 11, 15, 0.5e9);
    report_seconds(feed, 16, 20, 1e9);
    ASSERT_TRUE(analytics.update(info, at(20s, 339), config));

    const ThermalView& v = analytics.view().thermal;
    EXPECT_EQ(v.events, 4u);
    EXPECT_EQ(v.source_events[kPerf], 1u);
    EXPECT_DOUBLE_EQ(v.source_seconds[kPerf], 5);
    EXPECT_FALSE(v.throttling);
    auto events = (*store)->events(key, kT0);
    ASSERT_TRUE(events);
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ(events->front().start, kT0 + 10s);
    ASSERT_TRUE(events->front().end);
    EXPECT_EQ(*events->front().end, kT0 + 15s);
    EXPECT_EQ(events->front().sources, std::vector<std::string>{"performance"});
  }
  auto store = SqliteStore::open(dir.path());
  ASSERT_TRUE(store) << store.error().message;
  DriveAnalytics analytics(**store);
  ASSERT_TRUE(analytics.update(info, at(30s), AnalyticsConfig{}));
  const ThermalView& v = analytics.view().thermal;
  EXPECT_EQ(v.events, 4u);
  EXPECT_EQ(v.source_events[0], 3u);
  EXPECT_EQ(v.source_events[kPerf], 1u);
  EXPECT_DOUBLE_EQ(v.source_seconds[kPerf], 5);
}

// The race the integration test met: the drive cools below WCTEMP at the
// poll that closes its event, while the slowdown began late in an interval
// that stayed above the line; the first slow interval starts after the
// close. Through the feed, the episode still joins the drive's event.
TEST(PerformanceSource, ASlowdownThatBeganInTheIntervalBeforeItsFirstSlowOneJoinsTheDrivesEvent) {
  TempDir dir;
  auto store = SqliteStore::open(dir.path());
  ASSERT_TRUE(store) << store.error().message;
  const DriveInfo info = testing::drive("SN-P", "sim:p");
  ThroughputFeed feed;
  DriveAnalytics analytics(**store, &feed);
  const AnalyticsConfig config;
  ASSERT_TRUE(analytics.update(info, at(0s), config));
  report_seconds(feed, 1, 10, 1e9);
  ASSERT_TRUE(analytics.update(info, at(10s, 339), config));  // 66 °C: near WCTEMP 70 °C
  report_seconds(feed, 11, 12, 1e9);
  ASSERT_TRUE(analytics.update(info, at(12s, 345), config));  // 72 °C: the drive's signal
  feed.report(second(13s, 1e9));
  ASSERT_TRUE(analytics.update(info, at(13s, 341), config));  // 68 °C: closed at 13 s
  ASSERT_FALSE(analytics.view().thermal.throttling);
  feed.report(second(14s, 0.9e9));  // 13..14 s: slowed late, above the line
  report_seconds(feed, 15, 17, 0.5e9);
  report_seconds(feed, 18, 20, 1e9);
  ASSERT_TRUE(analytics.update(info, at(20s, 341), config));

  const ThermalView& v = analytics.view().thermal;
  EXPECT_EQ(v.events, 1u);
  EXPECT_EQ(v.source_events[kPerf], 1u);
  EXPECT_EQ(v.source_events[kSensor], 1u);
  auto events = (*store)->events(DriveKey{info.serial, info.model}, kT0);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ(events->front().start, kT0 + 12s);
  ASSERT_TRUE(events->front().end);
  EXPECT_EQ(*events->front().end, kT0 + 17s);
  EXPECT_EQ(events->front().sources, (std::vector<std::string>{"sensor_threshold", "performance"}));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
