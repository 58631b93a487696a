// Thermal throttling: signal detection, merging, counter resets, restarts.
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

std::size_t idx(ThrottleSource s) { return static_cast<std::size_t>(s); }

struct Drive {
  ManualClock clock;
  ControllerIdentity id = testing::drive("SN-T", "/dev/nvme0").controller;
  ThermalConfig config;
  HealthSnapshot snap = testing::snapshot(clock.wall());
  // Moves the clock and re-stamps the snapshot.
  HealthSnapshot& next(Duration d = 10s) {
    clock.advance(d);
    snap.taken = clock.wall();
    return snap;
  }
};

TEST(ThermalSignals, EachSourceIsDetected) {
  Drive d;
  ThermalCounters last;
  last.time = d.clock.wall() - 10s;
  struct Case {
    const char* name;
    void (*poke)(HealthSnapshot&);
    ThrottleSource source;
    int level;
  };
  const Case cases[] = {
      {"tmt1 transitions", [](HealthSnapshot& s) { s.smart.thermal.tmt1_transitions = 1; }, ThrottleSource::tmt1, 1},
      {"tmt1 time", [](HealthSnapshot& s) { s.smart.thermal.tmt1_seconds = 4; }, ThrottleSource::tmt1, 1},
      {"tmt2 time", [](HealthSnapshot& s) { s.smart.thermal.tmt2_seconds = 4; }, ThrottleSource::tmt2, 2},
      {"warning minutes", [](HealthSnapshot& s) { s.smart.thermal.warning_minutes = 1; },
       ThrottleSource::warning_temp_time, 1},
      {"critical minutes", [](HealthSnapshot& s) { s.smart.thermal.critical_minutes = 1; },
       ThrottleSource::critical_temp_time, 3},
      {"critical warning bit", [](HealthSnapshot& s) { s.smart.critical_warning = kWarnTemperature; },
       ThrottleSource::critical_warning, 1},
      {"ocp status",
       [](HealthSnapshot& s) {
         s.ocp = OcpSmartLog{};
         s.ocp->thermal_throttling_status = 2;
       },
       ThrottleSource::ocp, 2},
      {"composite at WCTEMP", [](HealthSnapshot& s) { s.smart.composite_temperature_k = 343; },
       ThrottleSource::sensor_threshold, 1},
      {"composite at CCTEMP", [](HealthSnapshot& s) { s.smart.composite_temperature_k = 358; },
       ThrottleSource::sensor_threshold, 3},
      {"sensor over its feature threshold",
       [](HealthSnapshot& s) {
         s.smart.sensor_temperature_k[2] = 330;
         s.thresholds.over_k[3] = 329;
       },
       ThrottleSource::sensor_threshold, 1},
  };
  for (const auto& c : cases) {
    HealthSnapshot s = testing::snapshot(d.clock.wall());
    ThermalCounters before = last;
    if (c.source == ThrottleSource::ocp) before.ocp_count = 0;
    c.poke(s);
    ThermalSignals sig = read_thermal_signals(before, s, d.id, d.config);
    EXPECT_EQ(sig.active, 1u << idx(c.source)) << c.name;
    EXPECT_EQ(sig.level, c.level) << c.name;
  }
  // A cool drive with every counter flat shows nothing.
  EXPECT_EQ(read_thermal_signals(last, testing::snapshot(d.clock.wall()), d.id, d.config).active, 0);
  // The configured threshold applies to every sensor.
  HealthSnapshot warm = testing::snapshot(d.clock.wall());
  warm.smart.sensor_temperature_k[0] = 333;  // 59.85 °C
  d.config.threshold_c = 55;
  EXPECT_EQ(read_thermal_signals(last, warm, d.id, d.config).active, 1u << idx(ThrottleSource::sensor_threshold));
}

TEST(ThermalDetector, OverlappingSignalsMergeIntoOneEvent) {
  Drive d;
  ThermalDetector det;
  det.update(d.snap, d.id, d.config);  // baseline
  // t=10: TMT1 for 4 s. t=20: TMT1 continues, composite crosses WCTEMP.
  // t=30: TMT2 kicks in. t=40: only the temperature remains. t=50: all clear.
  d.next().smart.thermal.tmt1_seconds = 4;
  d.snap.smart.thermal.tmt1_transitions = 1;
  det.update(d.snap, d.id, d.config);
  d.next().smart.thermal.tmt1_seconds = 14;
  d.snap.smart.composite_temperature_k = 345;
  det.update(d.snap, d.id, d.config);
  d.next().smart.thermal.tmt2_seconds = 6;
  d.snap.smart.thermal.tmt2_transitions = 1;
  d.snap.smart.composite_temperature_k = 350;  // 77 °C peak
  det.update(d.snap, d.id, d.config);
  d.next().smart.composite_temperature_k = 344;
  det.update(d.snap, d.id, d.config);
  const WallTime last_hot = d.clock.wall();
  d.next().smart.composite_temperature_k = 320;
  auto changed = det.update(d.snap, d.id, d.config);

  const ThermalState& s = det.state();
  EXPECT_EQ(s.events, 1u);
  EXPECT_FALSE(s.open);
  ASSERT_EQ(changed.size(), 1u);
  const ThrottleEvent& e = changed[0];
  ASSERT_TRUE(e.end);
  EXPECT_EQ(*e.end, last_hot);
  EXPECT_EQ(e.start, last_hot - 30s - 4s);  // TMT1 time counter reached back 4 s before the first poll
  EXPECT_EQ(e.level, 2);
  EXPECT_NEAR(e.peak_celsius, 77.0, 1e-9);
  EXPECT_EQ(throttle_source_labels(e.sources), (std::vector<std::string>{"tmt1", "tmt2", "sensor_threshold"}));
  EXPECT_EQ(s.source_events[idx(ThrottleSource::tmt1)], 1u);
  EXPECT_EQ(s.source_events[idx(ThrottleSource::tmt2)], 1u);
  EXPECT_EQ(s.source_events[idx(ThrottleSource::sensor_threshold)], 1u);
  EXPECT_DOUBLE_EQ(s.source_seconds[idx(ThrottleSource::tmt1)], 14);
  EXPECT_DOUBLE_EQ(s.source_seconds[idx(ThrottleSource::tmt2)], 6);
  // Temperature over WCTEMP seen at t=20, 30, 40: two whole intervals.
  EXPECT_DOUBLE_EQ(s.source_seconds[idx(ThrottleSource::sensor_threshold)], 20);
  EXPECT_EQ(s.level_events[1], 1u);
  EXPECT_EQ(s.level_events[2], 1u);
  // Time by level sums to the event's length.
  EXPECT_DOUBLE_EQ(s.level_seconds[1] + s.level_seconds[2] + s.level_seconds[3], seconds(*e.end - e.start));
  EXPECT_DOUBLE_EQ(s.level_seconds[2], 10);
}

TEST(ThermalDetector, CounterResetsMakeNoPhantomEventOrNegativeTime) {
  Drive d;
  d.snap.smart.thermal.tmt1_transitions = 50;
  d.snap.smart.thermal.tmt1_seconds = 5000;
  d.snap.smart.thermal.warning_minutes = 90;
  d.snap.ocp = OcpSmartLog{};
  d.snap.ocp->thermal_throttling_count = 200;
  ThermalDetector det;
  det.update(d.snap, d.id, d.config);
  // Firmware reset: every counter back to zero.
  HealthSnapshot& s = d.next();
  s.smart.thermal.tmt1_transitions = 0;
  s.smart.thermal.tmt1_seconds = 0;
  s.smart.thermal.warning_minutes = 0;
  s.ocp->thermal_throttling_count = 0;
  det.update(s, d.id, d.config);
  EXPECT_EQ(det.state().events, 0u);
  for (double v : det.state().source_seconds) EXPECT_GE(v, 0);
  // Counting resumes from the new base.
  d.next().smart.thermal.tmt1_seconds = 3;
  det.update(d.snap, d.id, d.config);
  EXPECT_EQ(det.state().events, 1u);
  EXPECT_DOUBLE_EQ(det.state().source_seconds[idx(ThrottleSource::tmt1)], 3);
}

TEST(ThermalDetector, ALongGapSplitsTheEvent) {
  Drive d;
  ThermalDetector det;
  d.snap.smart.critical_warning = kWarnTemperature;
  det.update(d.snap, d.id, d.config);
  det.update(d.next(), d.id, d.config);
  det.update(d.next(d.config.max_gap + 1s), d.id, d.config);
  EXPECT_EQ(det.state().events, 2u);
  // The interval nobody watched is not credited.
  EXPECT_DOUBLE_EQ(det.state().source_seconds[idx(ThrottleSource::critical_warning)], 10);
}

constexpr std::uint16_t kelvin(double celsius) { return static_cast<std::uint16_t>(celsius + 273); }

// The drive counted 4 s of TMT1 in a 10 s interval in which its composite
// rose from 66 to 71 °C: it began throttling 6 s into the interval, at 69 °C.
TEST(ThrottleOnset, IsTheCompositeWhereTheDrivesOwnThrottlingBegan) {
  Drive d;
  ThermalDetector det;
  d.snap.smart.composite_temperature_k = kelvin(66);
  det.update(d.snap, d.id, d.config);
  EXPECT_FALSE(observed_throttle_onset(det.state()));
  d.next(10s).smart.composite_temperature_k = kelvin(71);
  d.snap.smart.thermal.tmt1_transitions = 1;
  d.snap.smart.thermal.tmt1_seconds = 4;
  det.update(d.snap, d.id, d.config);
  ASSERT_TRUE(observed_throttle_onset(det.state()));
  EXPECT_NEAR(*observed_throttle_onset(det.state()), 69.0, 1e-9);
  // Later polls of the same event add nothing.
  d.next(10s).smart.composite_temperature_k = kelvin(74);
  d.snap.smart.thermal.tmt1_seconds = 14;
  det.update(d.snap, d.id, d.config);
  ASSERT_EQ(det.state().onsets_celsius.size(), 1u);
}

// nvmond's own thresholds (here the composite at WCTEMP, 70 °C) open an
// event but say nothing of where the drive throttles: the onset is where the
// drive's OCP status first reports throttling, at the poll that saw it.
TEST(ThrottleOnset, ThresholdsAloneAreNoOnset) {
  Drive d;
  ThermalDetector det;
  det.update(d.snap, d.id, d.config);
  d.next().smart.composite_temperature_k = 343;
  det.update(d.snap, d.id, d.config);
  ASSERT_TRUE(det.state().open);
  EXPECT_TRUE(det.state().onsets_celsius.empty());
  d.next().smart.composite_temperature_k = kelvin(73);
  d.snap.ocp = OcpSmartLog{};
  d.snap.ocp->thermal_throttling_status = 1;
  det.update(d.snap, d.id, d.config);
  EXPECT_EQ(det.state().onsets_celsius, std::vector<double>{73.0});
  EXPECT_EQ(det.state().events, 1u);
}

// A slowdown nvmond infers from a workload's throughput may have another
// cause than heat: it opens an event but teaches no throttle point.
TEST(ThrottleOnset, AnInferredSlowdownIsNoOnset) {
  Drive d;
  ThermalDetector det;
  det.update(d.snap, d.id, d.config);
  d.next().smart.composite_temperature_k = kelvin(66);
  InferredThrottle slow;
  slow.active = true;
  slow.seconds = 5;
  slow.started = d.clock.wall() - 5s;
  det.update(d.snap, d.id, d.config, slow);
  ASSERT_TRUE(det.state().open);
  EXPECT_FALSE(observed_throttle_onset(det.state()));
}

// Each event adds its onset; the newest kThrottleOnsetsKept are kept and the
// lowest of them is the drive's observed throttle point.
TEST(ThrottleOnset, TheLowestOfTheRecentEventsIsThePoint) {
  Drive d;
  ThermalDetector det;
  det.update(d.snap, d.id, d.config);
  const double onsets[] = {60, 70, 72, 71, 73, 72, 74, 72, 71, 73};  // the 60 and 70 °C ones are forgotten
  std::uint32_t transitions = 0;
  for (const double c : onsets) {
    d.next().smart.composite_temperature_k = kelvin(c);
    d.snap.smart.thermal.tmt1_transitions = ++transitions;
    det.update(d.snap, d.id, d.config);
    d.next().smart.composite_temperature_k = kelvin(c - 10);  // flat counters: the event ends
    det.update(d.snap, d.id, d.config);
  }
  EXPECT_EQ(det.state().events, std::size(onsets));
  ASSERT_EQ(det.state().onsets_celsius.size(), kThrottleOnsetsKept);
  EXPECT_DOUBLE_EQ(det.state().onsets_celsius.back(), 73);
  EXPECT_DOUBLE_EQ(*observed_throttle_onset(det.state()), 71);
  auto back = decode_thermal_state(encode_thermal_state(det.state()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->onsets_celsius, det.state().onsets_celsius);
}

TEST(ThermalState, SurvivesEncoding) {
  Drive d;
  ThermalDetector det;
  d.snap.ocp = OcpSmartLog{};
  d.snap.ocp->thermal_throttling_status = 1;
  det.update(d.snap, d.id, d.config);
  d.next().smart.thermal.tmt2_seconds = 7;
  det.update(d.snap, d.id, d.config);
  auto back = decode_thermal_state(encode_thermal_state(det.state()));
  ASSERT_TRUE(back);
  EXPECT_EQ(encode_thermal_state(*back), encode_thermal_state(det.state()));
  ASSERT_TRUE(back->open);
  EXPECT_EQ(back->open->start, det.state().open->start);
  EXPECT_EQ(back->last->ocp_count, det.state().last->ocp_count);
  EXPECT_FALSE(decode_thermal_state("{not json"));
  EXPECT_FALSE(decode_thermal_state(R"({"version": 1})"));
}

// The daemon restarts while a drive throttles: the event continues, nothing
// is counted twice, and the store holds one event that closes properly.
// One drive polled every 10 s into analytics over a store in a temp dir
// that outlives the daemons (DriveAnalytics) opened on it.
struct StoredDrive {
  explicit StoredDrive(const std::string& serial, const std::string& path) : info(testing::drive(serial, path)) {}
  TempDir dir;
  ManualClock clock;
  DriveInfo info;
  AnalyticsConfig config;
  HealthSnapshot snap = testing::snapshot(clock.wall());
  AnalyticsView poll(DriveAnalytics& a) {
    snap.taken = clock.wall();
    auto v = a.update(info, snap, config);
    EXPECT_TRUE(v) << (v ? "" : v.error().message);
    clock.advance(10s);
    return a.view();
  }
};

TEST(DriveAnalyticsThermal, RestartMidEventDoesNotDoubleCount) {
  StoredDrive d("SN-RESTART", "/dev/nvme1");
  auto& [dir, clock, info, config, snap] = d;
  auto poll = [&](DriveAnalytics& a) { return d.poll(a); };
  {
    auto store = SqliteStore::open(dir.path());
    ASSERT_TRUE(store);
    DriveAnalytics a(**store);
    poll(a);
    snap.smart.thermal.tmt1_transitions = 1;
    snap.smart.thermal.tmt1_seconds = 8;
    poll(a);
    snap.smart.thermal.tmt1_seconds = 18;
    AnalyticsView v = poll(a);
    EXPECT_TRUE(v.thermal.throttling);
    EXPECT_EQ(v.thermal.events, 1u);
  }
  auto store = SqliteStore::open(dir.path());
  ASSERT_TRUE(store);
  DriveAnalytics b(**store);
  snap.smart.thermal.tmt1_seconds = 28;
  AnalyticsView v = poll(b);
  EXPECT_TRUE(v.thermal.throttling);
  EXPECT_EQ(v.thermal.level, 1);
  EXPECT_EQ(v.thermal.events, 1u);
  EXPECT_EQ(v.thermal.source_events[idx(ThrottleSource::tmt1)], 1u);
  EXPECT_DOUBLE_EQ(v.thermal.source_seconds[idx(ThrottleSource::tmt1)], 28);
  v = poll(b);  // counters flat: the event ends
  EXPECT_FALSE(v.thermal.throttling);
  EXPECT_EQ(v.thermal.events, 1u);
  auto events = (*store)->events({info.serial, info.model}, WallTime{});
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_TRUE((*events)[0].end.has_value());
  EXPECT_EQ((*events)[0].sources, std::vector<std::string>{"tmt1"});
  EXPECT_DOUBLE_EQ(seconds(*(*events)[0].end - (*events)[0].start), 8 + 20);
}

// A quiet drive's detector state is stored once, not at every poll (only
// its last poll's time would change), and a restart restores that time
// from the newest sample: an event that then begins starts where a daemon
// that never restarted puts it (at most one poll interval back, though the
// drive's counter says 30 s).
TEST(DriveAnalyticsThermal, AQuietDrivesStateIsWrittenOnceAndRestoresExactly) {
  const DriveInfo info = testing::drive("SN-QUIET", "/dev/nvme2");
  const DriveKey key{info.serial, info.model};
  AnalyticsConfig config;
  struct Run {
    TempDir dir;
    ManualClock clock;
    HealthSnapshot snap = testing::snapshot(clock.wall());
  };
  auto poll = [&](Run& r, DriveAnalytics& a) {
    r.snap.taken = r.clock.wall();
    auto v = a.update(info, r.snap, config);
    EXPECT_TRUE(v) << (v ? "" : v.error().message);
    r.clock.advance(10s);
    return a.view();
  };
  Run restarted, continuous;
  const WallTime first = restarted.clock.wall();
  {
    auto store = SqliteStore::open(restarted.dir.path());
    ASSERT_TRUE(store);
    DriveAnalytics a(**store);
    for (int i = 0; i < 5; ++i) poll(restarted, a);
    auto stored = (*store)->state(key, "thermal");
    ASSERT_TRUE(stored && *stored);
    auto state = decode_thermal_state(**stored);
    ASSERT_TRUE(state && state->last);
    EXPECT_EQ(state->last->time, first) << "a quiet poll rewrote the state";
  }
  auto store = SqliteStore::open(restarted.dir.path());
  auto other = SqliteStore::open(continuous.dir.path());
  ASSERT_TRUE(store && other);
  DriveAnalytics b(**store);
  DriveAnalytics c(**other);
  for (int i = 0; i < 5; ++i) poll(continuous, c);
  restarted.snap.smart.thermal.tmt1_transitions = continuous.snap.smart.thermal.tmt1_transitions = 1;
  restarted.snap.smart.thermal.tmt1_seconds = continuous.snap.smart.thermal.tmt1_seconds = 30;
  restarted.snap.smart.composite_temperature_k = continuous.snap.smart.composite_temperature_k = 343;
  const AnalyticsView vb = poll(restarted, b);
  const AnalyticsView vc = poll(continuous, c);
  ASSERT_TRUE(vb.thermal.throttling && vc.thermal.throttling);
  ASSERT_TRUE(vb.thermal.current_start && vc.thermal.current_start);
  EXPECT_EQ(*vb.thermal.current_start - restarted.clock.wall(), *vc.thermal.current_start - continuous.clock.wall());
  EXPECT_EQ(*vb.thermal.current_start, restarted.clock.wall() - 20s);  // the previous poll, not 30 s back
  EXPECT_DOUBLE_EQ(vb.thermal.source_seconds[idx(ThrottleSource::tmt1)],
                   vc.thermal.source_seconds[idx(ThrottleSource::tmt1)]);
  // The throttling began at or before the previous poll (30 s counted in
  // 10 s): the composite then, which the restarted daemon takes from the
  // newest stored sample, 40 °C.
  ASSERT_TRUE(vb.thermal.throttle_onset_celsius && vc.thermal.throttle_onset_celsius);
  EXPECT_DOUBLE_EQ(*vb.thermal.throttle_onset_celsius, 40);
  EXPECT_DOUBLE_EQ(*vc.thermal.throttle_onset_celsius, 40);
}

// The learned onset is kept in the store with the detector's state: a
// restart still knows it, before the drive throttles again.
TEST(DriveAnalyticsThermal, TheObservedOnsetSurvivesARestart) {
  StoredDrive d("SN-ONSET", "/dev/nvme3");
  auto& [dir, clock, info, config, snap] = d;
  auto poll = [&](DriveAnalytics& a) { return d.poll(a); };
  {
    auto store = SqliteStore::open(dir.path());
    ASSERT_TRUE(store);
    DriveAnalytics a(**store);
    EXPECT_FALSE(poll(a).thermal.throttle_onset_celsius);
    snap.smart.composite_temperature_k = kelvin(68);
    snap.smart.thermal.tmt1_transitions = 1;
    AnalyticsView v = poll(a);
    ASSERT_TRUE(v.thermal.throttle_onset_celsius);
    EXPECT_DOUBLE_EQ(*v.thermal.throttle_onset_celsius, 68);
    snap.smart.composite_temperature_k = kelvin(50);
    poll(a);  // cooled: the event ends
  }
  auto store = SqliteStore::open(dir.path());
  ASSERT_TRUE(store);
  DriveAnalytics b(**store);
  const AnalyticsView v = poll(b);
  EXPECT_FALSE(v.thermal.throttling);
  ASSERT_TRUE(v.thermal.throttle_onset_celsius);
  EXPECT_DOUBLE_EQ(*v.thermal.throttle_onset_celsius, 68);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
