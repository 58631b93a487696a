#include <gtest/gtest.h>

#include "schedule/soak_scheduler.hpp"
#include "tests/unit/schedule/fake_soak_control.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

WallTime t0() { return WallTime{std::chrono::sys_days{std::chrono::year{2026} / 12 / 2}}; }  // a Wednesday

// A wsat request of `rounds` rounds, typed as validation types it (the
// scheduler takes requests already validated and does not link the tests).
TestRequest wsat_rounds(const std::string& rounds) {
  return TestRequest{"wsat", {{"rounds", static_cast<std::int64_t>(std::stoll(rounds))}}};
}

SoakEntry entry(const std::string& name, const std::string& target, const std::string& schedule = "once") {
  SoakEntry e;
  e.request = {name, wsat_rounds("10"), target};
  e.timing.schedule = *parse_schedule(schedule);
  return e;
}

// What the scheduler reads of a drive: its serial and its temperatures.
DriveSummary drive(const std::string& serial, double composite_c, double warning_c) {
  DriveSummary d;
  d.serial = serial;
  d.up = true;
  d.composite_c = composite_c;
  d.warning_c = warning_c;
  return d;
}

struct Drives {
  std::map<std::string, DriveSummary> by_target;
  DriveLookup lookup() {
    return [this](const std::string& t) -> std::optional<DriveSummary> {
      auto it = by_target.find(t);
      if (it == by_target.end()) return std::nullopt;
      return it->second;
    };
  }
};

const ScheduleView& view(const std::vector<ScheduleView>& v, const std::string& name) {
  for (const auto& s : v) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no schedule " + name);
}

class SoakSchedulerTest : public ::testing::Test {
 protected:
  // One pass of the scheduler at `at`, its thermal gate reading `drives`.
  void tick(WallTime at) { sched.tick(at, drives.lookup()); }

  FakeSoakControl ctl;
  SoakScheduler sched{ctl, nullptr};
  Drives drives;
};

TEST_F(SoakSchedulerTest, SecondRunOnTheSameDriveQueuesUntilTheFirstEnds) {
  drives.by_target["sim:a"] = drive("SN-A", 40, 70);
  drives.by_target["sim:b"] = drive("SN-B", 40, 70);
  sched.configure({entry("one", "sim:a"), entry("two", "sim:a"), entry("other", "sim:b")}, t0());
  tick(t0());
  ASSERT_EQ(ctl.started.size(), 2U);  // "one" and "other": different drives
  auto v = sched.list();
  EXPECT_EQ(view(v, "two").state, ScheduleState::queued);
  EXPECT_NE(view(v, "two").detail.find("SN-A"), std::string::npos);
  ASSERT_TRUE(view(v, "one").run);

  ASSERT_TRUE(ctl.end(*view(v, "one").run, RunStatus::completed).ok());
  tick(t0() + 1min);
  ASSERT_EQ(ctl.started.size(), 3U);
  EXPECT_EQ(ctl.started.back().name, "two");
  EXPECT_EQ(view(sched.list(), "one").state, ScheduleState::idle);  // once: done
}

TEST_F(SoakSchedulerTest, ThermalGateHoldsARunUntilTheDriveCools) {
  auto e = entry("hot", "sim:c");
  e.timing.thermal_margin_c = 5;
  drives.by_target["sim:c"] = drive("SN-C", 78, 75);  // consumer drive after a run: above WCTEMP
  sched.configure({e}, t0());
  tick(t0());
  EXPECT_TRUE(ctl.started.empty());
  EXPECT_EQ(view(sched.list(), "hot").state, ScheduleState::waiting_cool);
  EXPECT_NE(view(sched.list(), "hot").detail.find("70"), std::string::npos);

  drives.by_target["sim:c"].composite_c = 71;  // cooler, still inside the margin
  tick(t0() + 1min);
  EXPECT_TRUE(ctl.started.empty());

  drives.by_target["sim:c"].composite_c = 70;  // at WCTEMP - margin
  tick(t0() + 2min);
  ASSERT_EQ(ctl.started.size(), 1U);
  EXPECT_EQ(view(sched.list(), "hot").state, ScheduleState::running);
}

TEST_F(SoakSchedulerTest, PausesWhileTheDriveThrottlesWhenConfigured) {
  auto paused = entry("p", "sim:a");
  paused.timing.on_throttle = OnThrottle::pause;
  auto recorded = entry("r", "sim:b");
  drives.by_target["sim:a"] = drive("SN-A", 40, 70);
  drives.by_target["sim:b"] = drive("SN-B", 40, 70);
  sched.configure({paused, recorded}, t0());
  tick(t0());
  const auto run_p = *view(sched.list(), "p").run;
  const auto run_r = *view(sched.list(), "r").run;

  drives.by_target["sim:a"].throttling = drives.by_target["sim:b"].throttling = true;
  tick(t0() + 1min);
  EXPECT_EQ(ctl.run(run_p).status, RunStatus::paused);
  EXPECT_EQ(ctl.run(run_r).status, RunStatus::running);  // on_throttle = record keeps going
  EXPECT_EQ(view(sched.list(), "p").state, ScheduleState::paused);

  drives.by_target["sim:a"].throttling = false;
  tick(t0() + 2min);
  EXPECT_EQ(ctl.run(run_p).status, RunStatus::running);
}

TEST_F(SoakSchedulerTest, OperatorPauseIsNotUndoneWhenThrottlingEnds) {
  auto e = entry("p", "sim:a");
  e.timing.on_throttle = OnThrottle::pause;
  drives.by_target["sim:a"] = drive("SN-A", 40, 70);
  sched.configure({e}, t0());
  tick(t0());
  auto run = *view(sched.list(), "p").run;
  ASSERT_TRUE(ctl.pause(run).ok());
  sched.operator_paused(run, true);
  tick(t0() + 1min);
  EXPECT_EQ(ctl.run(run).status, RunStatus::paused);
}

TEST_F(SoakSchedulerTest, ReloadKeepsAnUnchangedRunAndStopsAChangedOne) {
  sched.configure({entry("keep", "sim:a"), entry("change", "sim:b")}, t0());
  tick(t0());
  const auto keep = *view(sched.list(), "keep").run;
  const auto change = *view(sched.list(), "change").run;

  auto changed = entry("change", "sim:b");
  changed.request.test.values["rounds"] = std::int64_t{20};
  sched.configure({entry("keep", "sim:a"), changed}, t0() + 1min);
  tick(t0() + 1min);
  EXPECT_EQ(ctl.run(keep).status, RunStatus::running);
  EXPECT_EQ(view(sched.list(), "keep").run, keep);  // same run id
  EXPECT_EQ(ctl.run(change).status, RunStatus::interrupted);
  ASSERT_TRUE(view(sched.list(), "change").run);
  EXPECT_NE(*view(sched.list(), "change").run, change);  // restarted with the new parameters
  EXPECT_EQ(ctl.started.size(), 3U);

  sched.configure({}, t0() + 2min);  // removed: its run ends
  EXPECT_EQ(ctl.run(keep).status, RunStatus::interrupted);
}

TEST(SoakScheduler, IntervalAndCalendarPlanTheNextStartWithItsRandomDelay) {
  FakeSoakControl ctl;
  SoakScheduler sched(ctl, [](Duration max) { return max / 2; });
  Drives drives;
  auto every = entry("every", "sim:a", "every 6h");
  auto weekly = entry("weekly", "sim:b", "Sat *-*-* 02:00 UTC");
  weekly.timing.randomized_delay = 30min;
  sched.configure({every, weekly}, t0());
  EXPECT_EQ(view(sched.list(), "weekly").next_start, t0() + 3 * 24h + 2h + 15min);
  sched.tick(t0(), drives.lookup());
  auto run = *view(sched.list(), "every").run;
  ASSERT_TRUE(ctl.end(run, RunStatus::completed).ok());
  sched.tick(t0() + 1h, drives.lookup());
  EXPECT_EQ(view(sched.list(), "every").next_start, t0() + 6h);
  sched.tick(t0() + 5h, drives.lookup());
  EXPECT_EQ(ctl.started.size(), 1U);
  sched.tick(t0() + 6h, drives.lookup());
  EXPECT_EQ(ctl.started.size(), 2U);
}

TEST_F(SoakSchedulerTest, ManualRunQueuesBehindAScheduledOneAndFailuresAreShown) {
  sched.configure({entry("nightly", "sim:a")}, t0());
  tick(t0());
  auto name = sched.request({"", TestRequest{"wsat", {}}, "sim:a"}, t0());
  tick(t0());
  EXPECT_EQ(view(sched.list(), name).state, ScheduleState::queued);
  auto bad = sched.request({"", TestRequest{"no-such-test", {}}, "sim:z"}, t0());
  tick(t0());
  EXPECT_EQ(view(sched.list(), bad).state, ScheduleState::failed);
  EXPECT_NE(view(sched.list(), bad).detail.find("unknown test"), std::string::npos);
}

TEST_F(SoakSchedulerTest, AOnceSoakWhoseStartFailedIsRetriedWithBackoffUntilItStarts) {
  ctl.refuse["sim:a"] = Error{ErrorReason::store, "run store: disk I/O error"};
  sched.configure({entry("nightly", "sim:a")}, t0());
  tick(t0());
  auto v = view(sched.list(), "nightly");
  EXPECT_EQ(v.state, ScheduleState::failed);
  EXPECT_EQ(v.failed_starts, 1U);
  ASSERT_TRUE(v.next_start);
  EXPECT_EQ(*v.next_start, t0() + SoakScheduler::kFirstRetry);

  // Not before its time, then at it; the wait doubles.
  tick(t0() + SoakScheduler::kFirstRetry - 1s);
  EXPECT_EQ(view(sched.list(), "nightly").failed_starts, 1U);
  const WallTime second = t0() + SoakScheduler::kFirstRetry;
  tick(second);
  v = view(sched.list(), "nightly");
  EXPECT_EQ(v.failed_starts, 2U);
  EXPECT_EQ(*v.next_start, second + 2 * SoakScheduler::kFirstRetry);

  ctl.refuse.clear();  // the store recovered
  tick(*v.next_start);
  ASSERT_EQ(ctl.started.size(), 1U);
  v = view(sched.list(), "nightly");
  EXPECT_EQ(v.state, ScheduleState::running);
  EXPECT_EQ(v.failed_starts, 2U);  // a counter: kept after the success
}

TEST_F(SoakSchedulerTest, TheRetryWaitStopsDoublingAtAnHourAndAPlannedStartComesFirst) {
  ctl.refuse["sim:a"] = Error{ErrorReason::unknown_device, "sim:a: no such drive"};
  sched.configure({entry("hourly", "sim:a", "every 10m")}, t0());
  WallTime at = t0();
  tick(at);
  // Retries after 30 s, 1, 2, 4 and 8 min; then the planned start, 10 min after the last try, comes first.
  for (int i = 0; i < 6; ++i) {
    at = *view(sched.list(), "hourly").next_start;
    tick(at);
  }
  EXPECT_EQ(*view(sched.list(), "hourly").next_start, at + 10min);

  sched.configure({entry("once", "sim:a")}, t0());
  at = t0();
  for (int i = 0; i < 12; ++i) {
    tick(at);
    at = *view(sched.list(), "once").next_start;
  }
  // 30 s, 1, 2, 4, 8, 16, 32 min, then an hour five times.
  EXPECT_EQ(at - t0(), 30s + 63min + 5 * SoakScheduler::kMaxRetry);
}

TEST(SoakScheduler, ManualRunNamesSayWhenAndNeverRepeatAcrossARestart) {
  FakeSoakControl ctl;
  Drives drives;
  std::string first, second, after_restart;
  {
    SoakScheduler sched(ctl, nullptr);
    first = sched.request({"", TestRequest{"wsat", {}}, "sim:a"}, t0());
    second = sched.request({"", TestRequest{"wsat", {}}, "sim:b"}, t0());
  }
  SoakScheduler restarted(ctl, nullptr);
  after_restart = restarted.request({"", TestRequest{"wsat", {}}, "sim:a"}, t0() + std::chrono::minutes(5));
  EXPECT_EQ(first.rfind("manual-20", 0), 0u) << first;
  EXPECT_NE(first, second);
  EXPECT_NE(after_restart, first);
  EXPECT_NE(after_restart, second);
}

TEST_F(SoakSchedulerTest, ARunHeldForTheRunStoreIsListedPausedWithTheReason) {
  sched.configure({entry("nightly", "sim:a")}, t0());
  tick(t0());
  const std::int64_t run = *view(sched.list(), "nightly").run;
  ctl.run(run).paused_reason = "locked";
  ctl.run(run).paused_detail = "the run store cannot record round 3 (locked): database is locked";
  ScheduleView v = view(sched.list(), "nightly");
  EXPECT_EQ(v.state, ScheduleState::paused);
  EXPECT_EQ(v.detail, "the run store cannot record round 3 (locked): database is locked");
  ctl.run(run).paused_reason.clear();  // the store took the round
  EXPECT_EQ(view(sched.list(), "nightly").state, ScheduleState::running);
}

// A daemon restart: a new scheduler over the same store (the fake keeps
// each name's newest run).
struct Restarts {
  FakeSoakControl ctl;
  std::unique_ptr<SoakScheduler> sched;
  void start(const std::vector<SoakEntry>& entries, WallTime at) {
    sched = std::make_unique<SoakScheduler>(ctl, nullptr);
    sched->configure(entries, at);
    sched->tick(at, nullptr);
  }
  ScheduleView of(const std::string& name) const { return view(sched->list(), name); }
};

SoakEntry with_rounds(SoakEntry e, const std::string& rounds) {
  e.request.test = wsat_rounds(rounds);
  return e;
}

TEST(SoakOnce, AFinishedOnceSoakIsNotRunAgainByARestartOrAReloadUntilItsDefinitionChanges) {
  Restarts r;
  r.start({entry("nightly", "sim:a")}, t0());
  ASSERT_EQ(r.ctl.started.size(), 1U);
  EXPECT_EQ(r.ctl.started[0].definition, entry("nightly", "sim:a").definition());
  ASSERT_TRUE(r.ctl.end(*r.of("nightly").run, RunStatus::completed).ok());
  r.sched->tick(t0() + 1min, nullptr);

  r.start({entry("nightly", "sim:a")}, t0() + 1h);  // restart
  r.sched->tick(t0() + 2h, nullptr);
  EXPECT_EQ(r.ctl.started.size(), 1U);
  ScheduleView v = r.of("nightly");
  EXPECT_EQ(v.state, ScheduleState::idle);
  EXPECT_FALSE(v.next_start);
  EXPECT_NE(v.detail.find("ran once as run 1 (completed)"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("nvmonctl start nightly"), std::string::npos) << v.detail;

  auto cooler = entry("nightly", "sim:a");  // a reload that changes only when it may run
  cooler.timing.thermal_margin_c = 9;
  r.sched->configure({cooler}, t0() + 3h);
  r.sched->tick(t0() + 3h, nullptr);
  EXPECT_EQ(r.ctl.started.size(), 1U);

  r.start({with_rounds(entry("nightly", "sim:a"), "20")}, t0() + 4h);  // another definition
  ASSERT_EQ(r.ctl.started.size(), 2U);
  EXPECT_NE(r.ctl.started[1].definition, r.ctl.started[0].definition);
}

TEST(SoakOnce, AnUnfinishedOnceSoakStartsToBeResumedAndOneAnOperatorStoppedDoesNot) {
  Restarts r;
  const auto e = entry("nightly", "sim:a");
  r.ctl.last["nightly"] = LastRun{7, "wsat", "sim:a", RunStatus::running, false, e.definition(), 1, std::nullopt};
  r.start({e}, t0());  // a crash left it running
  EXPECT_EQ(r.ctl.started.size(), 1U);

  r.ctl.last["nightly"] = LastRun{7, "wsat", "sim:a", RunStatus::interrupted, true, e.definition(), 1, 2};
  r.start({e}, t0());  // a stopping daemon closed it, resumable
  EXPECT_EQ(r.ctl.started.size(), 2U);

  r.ctl.last["nightly"] = LastRun{7, "wsat", "sim:a", RunStatus::interrupted, false, e.definition(), 1, 2};
  r.start({e}, t0());  // `nvmonctl stop`: over
  EXPECT_EQ(r.ctl.started.size(), 2U);
}

TEST(SoakOnce, AOnceSoakThatFailedIsNotLoopedOnEachRestartAndAnOperatorRunsItAgain) {
  Restarts r;
  const auto e = entry("nightly", "sim:a");
  r.ctl.last["nightly"] = LastRun{3, "wsat", "sim:a", RunStatus::failed, false, e.definition(), 1, 2};
  for (int i = 0; i < 3; ++i) r.start({e}, t0() + i * 1h);
  EXPECT_TRUE(r.ctl.started.empty());
  EXPECT_NE(r.of("nightly").detail.find("ran once as run 3 (failed)"), std::string::npos);

  EXPECT_FALSE(r.sched->run_again("nightly", t0() + 5h));
  r.sched->tick(t0() + 5h, nullptr);
  ASSERT_EQ(r.ctl.started.size(), 1U);
  EXPECT_EQ(r.ctl.started[0].name, "nightly");
  auto again = r.sched->run_again("nightly", t0() + 5h);  // in progress now
  ASSERT_TRUE(again);
  EXPECT_NE(again->find("in progress as run"), std::string::npos);
  EXPECT_TRUE(r.sched->run_again("no-such-soak", t0() + 5h));
  const std::string manual = r.sched->request({"", TestRequest{"wsat", {}}, "sim:b"}, t0() + 5h);
  EXPECT_TRUE(r.sched->run_again(manual, t0() + 5h));  // an operator's run is no [[soak]]
}

TEST(SoakOnce, ARunRecordedBeforeDefinitionsWereKeptCountsWhenItsTestAndTargetAreTheSame) {
  Restarts r;
  r.ctl.last["nightly"] = LastRun{2, "wsat", "sim:a", RunStatus::completed, false, "", 1, 2};
  r.start({entry("nightly", "sim:a")}, t0());  // an upgrade from a daemon that kept no definition
  EXPECT_TRUE(r.ctl.started.empty());
  r.start({entry("nightly", "sim:b")}, t0());  // another target: another soak
  EXPECT_EQ(r.ctl.started.size(), 1U);
}

TEST(SoakOnce, WhileTheStoreCannotSayWhetherItRanAOnceSoakWaitsAndIsRetriedWithBackoff) {
  Restarts r;
  r.ctl.last_run_error = Error{ErrorReason::full, "run store unavailable (full); retrying later"};
  r.start({entry("nightly", "sim:a")}, t0());
  EXPECT_TRUE(r.ctl.started.empty());
  ScheduleView v = r.of("nightly");
  EXPECT_EQ(v.state, ScheduleState::failed);
  EXPECT_NE(v.detail.find("cannot tell whether it already ran"), std::string::npos) << v.detail;
  ASSERT_TRUE(v.next_start);
  EXPECT_EQ(*v.next_start, t0() + SoakScheduler::kFirstRetry);

  r.ctl.last_run_error.reset();
  r.sched->tick(*v.next_start, nullptr);
  EXPECT_EQ(r.ctl.started.size(), 1U);
}

TEST(SoakOnce, TheDefinitionIsStableAndIgnoresTheNameAndTiming) {
  auto e = entry("nightly", "sim:a");
  EXPECT_EQ(e.definition(), "de9aee013ec5c62f");  // stored in runs.db: must never change between builds
  auto other = entry("renamed", "sim:a", "every 6h");
  other.timing.thermal_margin_c = 1;
  EXPECT_EQ(other.definition(), e.definition());
  EXPECT_NE(entry("nightly", "sim:b").definition(), e.definition());
  EXPECT_NE(with_rounds(e, "11").definition(), e.definition());
}

TEST(SoakTiming, ConfigErrorsNameTheKey) {
  auto tbl = toml::parse(std::string_view("schedule = \"Funday\"\n"), std::string_view("soak.toml"));
  TableReader r(tbl, "soak.toml", "soak[0]");
  try {
    read_soak_timing(r);
    FAIL() << "accepted a bad schedule";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("soak.toml:1:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Funday"), std::string::npos) << e.what();
  }
}

// A start is asynchronous: the entry is `opening` until the run's thread
// reports, its drive counts as busy meanwhile, and an entry removed while
// its run opened has that run stopped (no one would follow it).
TEST_F(SoakSchedulerTest, AStartIsOpeningUntilItsRunReportsAndHoldsItsDriveMeanwhile) {
  drives.by_target["sim:a"] = drive("SN-A", 40, 70);
  ctl.hold = true;
  sched.configure({entry("one", "sim:a"), entry("two", "sim:a")}, t0());
  tick(t0());
  ASSERT_EQ(ctl.held.size(), 1U);
  auto v = sched.list();
  EXPECT_EQ(view(v, "one").state, ScheduleState::opening);
  EXPECT_FALSE(view(v, "one").run);
  EXPECT_EQ(view(v, "two").state, ScheduleState::queued);
  EXPECT_NE(view(v, "two").detail.find("one (opening)"), std::string::npos) << view(v, "two").detail;
  tick(t0() + 1s);
  EXPECT_EQ(ctl.held.size(), 1U) << "started twice while the first start was opening";

  ctl.open_held();
  v = sched.list();
  EXPECT_EQ(view(v, "one").state, ScheduleState::running);
  ASSERT_TRUE(view(v, "one").run);

  ASSERT_TRUE(ctl.end(*view(v, "one").run, RunStatus::completed).ok());
  tick(t0() + 2s);  // "two" starts: opening
  ASSERT_EQ(ctl.held.size(), 1U);
  sched.configure({entry("one", "sim:a")}, t0() + 3s);  // "two" removed while it opens
  ctl.open_held();
  EXPECT_TRUE(ctl.active().empty()) << "a run no entry follows any more was left running";
}

// What else uses a drive (a [[job]], a self-test) is in the daemon's
// DriveClaims: a soak due while a job holds its drive waits, naming the job,
// and starts once the job has ended. JobScheduler's claim of its drive is
// JobScheduler.AJobHoldsItsDriveAndDoesNotStartOnADriveASoakRunHolds.
TEST(SoakSchedulerClaims, ASoakWaitsWhileAJobHoldsItsDrive) {
  FakeSoakControl ctl;
  DriveClaims claims;
  SoakScheduler sched{ctl, nullptr, &claims};
  Drives drives;
  drives.by_target["sim:a"] = drive("SN-A", 40, 70);
  auto job = claims.claim("SN-A", DriveUse{DriveUse::Kind::job, "fio-1", t0()});
  ASSERT_TRUE(job);
  sched.configure({entry("one", "sim:a")}, t0());
  sched.tick(t0(), drives.lookup());
  EXPECT_TRUE(ctl.started.empty()) << "a soak started on a drive a job writes";
  EXPECT_EQ(view(sched.list(), "one").state, ScheduleState::queued);
  EXPECT_EQ(view(sched.list(), "one").detail, "drive SN-A busy with job fio-1");

  job->release();
  sched.tick(t0() + 1s, drives.lookup());
  ASSERT_EQ(ctl.started.size(), 1U);
  EXPECT_EQ(ctl.started.back().name, "one");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
