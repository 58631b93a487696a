// Persistent Event log events are counted once each for the drive's life:
// across restarts (the stored generation and fingerprint), a cleared log (a
// new generation) and a log that dropped the newest event counted; thermal
// excursions join the throttle history, marked when nvmond was not running.
// Driven as the poller and Fleet's observer drive it, over the real SQLite
// history.
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

#include <algorithm>
#include <memory>

#include "drivelog/event_log_tracker.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::uint64_t kHostSet = 1ull << 49;
const WallTime kT0 = WallTime{} + std::chrono::hours(24 * 20000);  // 2024-10-04

std::uint64_t ms_of(WallTime t) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

std::size_t type_index(std::string_view label) {
  const auto labels = pel_type_labels();
  return static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
}

class EventLogTrackerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(dir_.path());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(*opened);
    info_.serial = "SNPEL";
    info_.model = "FAKE";
    info_.controller.cctemp_k = 358;  // 85 °C
    log_->header.log_id = 0x0D;
    log_->header.generation = 1;
    restart();
  }
  void restart() { tracker_ = std::make_unique<EventLogTracker>(*store_); }

  // The drive records an event; each gets a distinct fingerprint, as its
  // timestamp and bytes differ.
  void drive_records(PelEventType type, WallTime at, PelEventData data = std::monostate{}) {
    PelEvent e;
    e.header.type = static_cast<std::uint8_t>(type);
    e.header.timestamp.raw = kHostSet | ms_of(at);
    e.data = std::move(data);
    e.fingerprint = ++next_print_;
    log_->events.push_back(e);
    log_->header.total_events = static_cast<std::uint32_t>(log_->events.size());
  }
  void drive_overheats(WallTime at, std::uint8_t over = 5, std::uint8_t threshold = 75) {
    drive_records(PelEventType::thermal_excursion, at, PelThermalExcursion{over, threshold});
  }
  // nvmond polled the drive (its analytics wrote a sample) at `at`.
  void sample_at(WallTime at) {
    PollRecord r;
    r.drive = {"SNPEL", "FAKE"};
    SampleRecord s;
    s.time = at;
    r.samples.push_back(s);
    ASSERT_TRUE(store_->commit(r).ok());
  }
  EventLogTracker::Update poll(WallTime at, bool read = true) {
    HealthSnapshot snap;
    snap.taken = at;
    if (read) snap.event_log = std::make_shared<const PersistentEventLog>(*log_);
    auto u = tracker_->update(info_, snap);
    EXPECT_FALSE(u.error) << u.error->message;
    return u;
  }
  std::vector<ThermalEventRecord> history() {
    auto events = store_->events({"SNPEL", "FAKE"}, WallTime{});
    EXPECT_TRUE(events.ok());
    return events.ok() ? *events : std::vector<ThermalEventRecord>{};
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  DriveInfo info_;
  std::shared_ptr<PersistentEventLog> log_ = std::make_shared<PersistentEventLog>();
  std::unique_ptr<EventLogTracker> tracker_;
  std::uint64_t next_print_ = 1000;
};

TEST_F(EventLogTrackerTest, CountsEachEventOnceAcrossReadsAndRestarts) {
  drive_records(PelEventType::power_on_reset, kT0 - std::chrono::hours(5));
  drive_records(PelEventType::smart_snapshot, kT0 - std::chrono::hours(4));
  EXPECT_EQ(poll(kT0).fresh.size(), 2u);
  EXPECT_TRUE(poll(kT0 + std::chrono::minutes(1)).fresh.empty());
  drive_records(PelEventType::firmware_commit, kT0 + std::chrono::minutes(2));
  const auto u = poll(kT0 + std::chrono::minutes(3));
  ASSERT_EQ(u.fresh.size(), 1u);
  EXPECT_EQ(u.fresh[0].event.header.type, 0x02);

  restart();
  EXPECT_TRUE(poll(kT0 + std::chrono::minutes(4)).fresh.empty());
  EXPECT_EQ(tracker_->counts()[type_index("power_on_reset")], 1u);
  EXPECT_EQ(tracker_->counts()[type_index("smart_snapshot")], 1u);
  EXPECT_EQ(tracker_->counts()[type_index("firmware_commit")], 1u);
  EXPECT_EQ(tracker_->counts()[type_index("thermal_excursion")], 0u);
}

TEST_F(EventLogTrackerTest, PollsThatDidNotReadTheLogCountNothing) {
  drive_records(PelEventType::power_on_reset, kT0 - std::chrono::hours(1));
  EXPECT_TRUE(poll(kT0, false).fresh.empty());
  EXPECT_FALSE(tracker_->known());  // a drive whose log was never read has no counts to show
  EXPECT_EQ(poll(kT0 + std::chrono::seconds(10)).fresh.size(), 1u);
  EXPECT_TRUE(tracker_->known());
  restart();
  EXPECT_TRUE(poll(kT0 + std::chrono::seconds(20), false).fresh.empty());
  EXPECT_TRUE(tracker_->known());  // read in an earlier run: its counts go on
}

TEST_F(EventLogTrackerTest, ANewGenerationTakesTheLogAsNew) {
  drive_records(PelEventType::power_on_reset, kT0 - std::chrono::hours(1));
  poll(kT0);
  log_->events.clear();
  log_->header.generation = 2;
  drive_records(PelEventType::hardware_error, kT0 + std::chrono::minutes(1), PelHardwareError{2});
  const auto u = poll(kT0 + std::chrono::minutes(2));
  EXPECT_TRUE(u.cleared);
  ASSERT_EQ(u.fresh.size(), 1u);
  EXPECT_EQ(tracker_->counts()[type_index("power_on_reset")], 1u);
  EXPECT_EQ(tracker_->counts()[type_index("hardware_error")], 1u);
}

TEST_F(EventLogTrackerTest, ALogThatDroppedTheNewestCountedCountsWhatItHolds) {
  drive_records(PelEventType::smart_snapshot, kT0 - std::chrono::hours(2));
  drive_records(PelEventType::smart_snapshot, kT0 - std::chrono::hours(1));
  poll(kT0);
  // Full: the drive dropped both old events to make room for three new ones.
  log_->events.clear();
  for (int i = 1; i <= 3; ++i) drive_records(PelEventType::smart_snapshot, kT0 + std::chrono::hours(i));
  EXPECT_EQ(poll(kT0 + std::chrono::hours(4)).fresh.size(), 3u);
  EXPECT_EQ(tracker_->counts()[type_index("smart_snapshot")], 5u);
}

TEST_F(EventLogTrackerTest, AnExcursionWhileNvmondWasDownJoinsTheThrottleHistoryMarked) {
  const WallTime last_poll = kT0;
  sample_at(last_poll - std::chrono::minutes(10));
  sample_at(last_poll);
  drive_overheats(last_poll - std::chrono::hours(2));  // nvmond was running then
  poll(last_poll);
  // Stopped; the drive overheats; restarted an hour later.
  const WallTime hot = last_poll + std::chrono::minutes(20);
  drive_overheats(hot, 7, 80);
  restart();
  const auto u = poll(last_poll + std::chrono::hours(1));
  ASSERT_EQ(u.fresh.size(), 1u);
  EXPECT_TRUE(u.fresh[0].while_not_running);
  ASSERT_EQ(u.throttles.size(), 1u);

  const auto events = history();
  const auto it = std::find_if(events.begin(), events.end(), [&](const auto& e) { return e.start == hot; });
  ASSERT_NE(it, events.end());
  EXPECT_EQ(it->end, hot);
  EXPECT_DOUBLE_EQ(it->peak_celsius, 87.0);
  EXPECT_EQ(it->level, 1);  // 80 °C is under CCTEMP
  EXPECT_EQ(it->sources, (std::vector<std::string>{"drive_event_log", "nvmond_not_running"}));
  // The one from while it ran is not marked.
  const auto earlier = std::find_if(events.begin(), events.end(),
                                    [&](const auto& e) { return e.start == last_poll - std::chrono::hours(2); });
  ASSERT_NE(earlier, events.end());
  EXPECT_EQ(earlier->sources, (std::vector<std::string>{"drive_event_log"}));

  restart();
  EXPECT_TRUE(poll(last_poll + std::chrono::hours(2)).fresh.empty());
  EXPECT_EQ(history().size(), events.size());
  EXPECT_EQ(tracker_->counts()[type_index("thermal_excursion")], 2u);
}

TEST_F(EventLogTrackerTest, AnExcursionInsideAThrottleEventTheDetectorSawJoinsIt) {
  PollRecord r;
  r.drive = {"SNPEL", "FAKE"};
  ThermalEventRecord seen{kT0, kT0 + std::chrono::minutes(5), 84.0, {"tmt1"}, 1};
  r.events.push_back(seen);
  ASSERT_TRUE(store_->commit(r).ok());
  sample_at(kT0 + std::chrono::minutes(5));
  poll(kT0 + std::chrono::minutes(5));
  drive_overheats(kT0 + std::chrono::minutes(2), 10, 85);
  const auto u = poll(kT0 + std::chrono::minutes(6));
  ASSERT_EQ(u.fresh.size(), 1u);
  EXPECT_FALSE(u.fresh[0].while_not_running);
  const auto events = history();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].start, kT0);
  EXPECT_DOUBLE_EQ(events[0].peak_celsius, 95.0);
  EXPECT_EQ(events[0].sources, (std::vector<std::string>{"tmt1", "drive_event_log"}));
}

TEST(PelEventTime, HostSetOrCountedFromTheResetTheLogWasReadIn) {
  PersistentEventLog log;
  log.header.timestamp.raw = 50'000;  // 50 s since reset, when read
  PelEvent e;
  e.header.timestamp.raw = 20'000;  // 30 s before the read
  log.events.push_back(e);
  const WallTime read_at = kT0;
  EXPECT_EQ(pel_event_time(log, 0, read_at), read_at - std::chrono::seconds(30));
  PelEvent reset;
  reset.header.type = static_cast<std::uint8_t>(PelEventType::power_on_reset);
  reset.header.timestamp.raw = 1'000;
  log.events.push_back(reset);
  EXPECT_EQ(pel_event_time(log, 0, read_at), std::nullopt);  // counted from an earlier reset
  log.events[0].header.timestamp.raw = kHostSet | ms_of(kT0 - std::chrono::hours(3));
  EXPECT_EQ(pel_event_time(log, 0, read_at), kT0 - std::chrono::hours(3));
}

TEST(ShouldReadEventLog, AtStartHourlyAndWhenTheDriveRanHot) {
  HealthSnapshot snap;
  snap.taken = kT0;
  EXPECT_TRUE(should_read_event_log(std::nullopt, snap));
  const auto mark = event_log_read_mark(snap);
  snap.taken = kT0 + std::chrono::minutes(10);
  EXPECT_FALSE(should_read_event_log(mark, snap));
  snap.smart.thermal.warning_minutes = 1;
  EXPECT_TRUE(should_read_event_log(mark, snap));
  snap.smart.thermal.warning_minutes = 0;
  snap.smart.critical_warning = kWarnTemperature;
  EXPECT_TRUE(should_read_event_log(mark, snap));
  snap.smart.critical_warning = 0;
  snap.taken = kT0 + kEventLogReadInterval;
  EXPECT_TRUE(should_read_event_log(mark, snap));
}

TEST(EventLogState, RoundTripsAndRejectsWhatItDidNotWrite) {
  EventLogState s;
  s.generation = 7;
  s.last_fingerprint = 0xFEDCBA9876543210ull;
  s.counts[2] = 5;
  const auto back = decode_event_log_state(encode_event_log_state(s));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->generation, 7);
  EXPECT_EQ(back->last_fingerprint, s.last_fingerprint);
  EXPECT_EQ(back->counts, s.counts);
  EXPECT_FALSE(decode_event_log_state(""));
  EXPECT_FALSE(decode_event_log_state("2 7 1 0 0 0 0 0 0 0"));
  EXPECT_FALSE(decode_event_log_state("1 7 1 0 0 0"));
  EXPECT_FALSE(decode_event_log_state("1 7 1 0 0 0 0 0 0 0 extra"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
