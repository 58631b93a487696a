// [[selftest]] scheduling: when a due test starts, what defers it, how many
// drives test at once, and what the store keeps across a restart.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "selftest/self_test_scheduler.hpp"
#include "store/sqlite_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

DriveSummary idle_drive(const std::string& serial) {
  DriveSummary d;
  d.serial = serial;
  d.model = "Model";
  d.path = "/dev/" + serial;
  d.up = true;
  d.composite_c = 40.0;
  d.warning_c = 70.0;
  d.self_test_supported = true;
  d.self_test = SelfTestLog{};
  return d;
}

SelfTestLog ended(std::uint8_t status) {
  SelfTestResult r;
  r.status = status;
  r.segment = (status & 0x0f) == 7 ? 5 : 0;
  return SelfTestLog{.current_operation = 0, .completion_pct = 0, .results = {r}};
}

struct Harness {
  test::TempDir dir{"nvmond-selftest-sched"};
  std::unique_ptr<SqliteStore> store = std::move(*SqliteStore::open(dir.path()));
  std::vector<DriveSummary> drives{idle_drive("SN-A"), idle_drive("SN-B")};
  std::vector<std::pair<std::string, SelfTestKind>> started;
  DriveClaims claims;
  WallTime now = WallTime(std::chrono::hours(24 * 20000));

  std::unique_ptr<SelfTestScheduler> make(std::vector<SelfTestPlan> plans, std::int64_t max_concurrent = 1) {
    return std::make_unique<SelfTestScheduler>(
        std::move(plans), max_concurrent, *store,
        SelfTestHooks{
            [this] { return drives; },
            [this](const std::string& path, SelfTestKind kind, const std::function<void(std::optional<Error>)>& done) {
              started.emplace_back(path, kind);
              done(std::nullopt);
            }},
        &claims);
  }
  std::optional<SelfTestRecord> stored(const std::string& serial, const std::string& plan) {
    auto s = store->state(DriveKey{serial, "Model"}, self_test_state_key(plan));
    if (!s || !*s) return std::nullopt;
    return decode_self_test_record(**s);
  }
};

SelfTestPlan plan(const std::string& name, std::vector<std::string> drives, const char* schedule,
                  SelfTestKind kind = SelfTestKind::short_test) {
  return SelfTestPlan{name, std::move(drives), kind, *parse_schedule(schedule)};
}

TEST(SelfTestScheduler, AOnceScheduleStartsOnceAndNotAgainAfterARestart) {
  Harness h;
  auto s = h.make({plan("once", {"SN-A"}, "once", SelfTestKind::extended_test)});
  s->tick(h.now);
  ASSERT_EQ(h.started.size(), 1u);
  EXPECT_EQ(h.started[0].first, "/dev/SN-A");
  EXPECT_EQ(h.started[0].second, SelfTestKind::extended_test);
  const auto record = h.stored("SN-A", "once");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->who, "schedule");
  EXPECT_EQ(record->started, h.now);
  EXPECT_EQ(record->kind, SelfTestKind::extended_test);
  s->tick(h.now + 1s);

  auto restarted = h.make({plan("once", {"SN-A"}, "once", SelfTestKind::extended_test)});
  restarted->tick(h.now + 1h);
  EXPECT_EQ(h.started.size(), 1u) << "the store says it ran";
}

TEST(SelfTestScheduler, AnIntervalCountsFromTheLastStartAcrossARestart) {
  Harness h;
  h.make({plan("hourly", {"SN-A"}, "every 1h")})->tick(h.now);
  ASSERT_EQ(h.started.size(), 1u);
  h.drives[0].self_test = ended(0x10);
  auto restarted = h.make({plan("hourly", {"SN-A"}, "every 1h")});
  restarted->tick(h.now + 59min);
  EXPECT_EQ(h.started.size(), 1u);
  restarted->tick(h.now + 1h);
  EXPECT_EQ(h.started.size(), 2u);
}

TEST(SelfTestScheduler, ADueTestWaitsWhileTheDriveIsInUseHotOrDown) {
  Harness h;
  auto s = h.make({plan("t", {"SN-A"}, "once")});
  auto job = h.claims.claim("SN-A", DriveUse{DriveUse::Kind::job, "j", h.now});
  ASSERT_TRUE(job);
  s->tick(h.now);
  job->release();
  h.drives[0].composite_c = 71.0;
  s->tick(h.now + 1s);
  h.drives[0].composite_c = 40.0;
  h.drives[0].up = false;
  s->tick(h.now + 2s);
  EXPECT_TRUE(h.started.empty());
  EXPECT_FALSE(h.stored("SN-A", "t").has_value());
  h.drives[0].up = true;
  s->tick(h.now + 3s);
  EXPECT_EQ(h.started.size(), 1u) << "retried at the next tick once the drive is free";
}

TEST(SelfTestScheduler, ADriveThatRefusesIsAskedAgainAMinuteLater) {
  Harness h;
  int asked = 0;
  auto s = std::make_unique<SelfTestScheduler>(
      std::vector<SelfTestPlan>{plan("t", {"SN-A"}, "once")}, 1, *h.store,
      SelfTestHooks{
          [&h] { return h.drives; },
          [&asked](const std::string&, SelfTestKind, const std::function<void(std::optional<Error>)>& done) {
            ++asked;
            done(Error{ErrorReason::io, "/dev/SN-A: device self-test (14h), short (STC 1h): Input/output error"});
          }});
  s->tick(h.now);
  s->tick(h.now + 1s);
  s->tick(h.now + 59s);
  EXPECT_EQ(asked, 1);
  s->tick(h.now + 60s);
  EXPECT_EQ(asked, 2);
  EXPECT_FALSE(h.stored("SN-A", "t").has_value()) << "a refused start is no start";
}

// The daemon ticks the scheduler every second: with no plan it must not copy
// every drive's summary to find nothing to do (at 256 drives that copy was a
// tenth of an idle daemon's CPU).
TEST(SelfTestScheduler, WithoutAPlanATickDoesNotLookAtTheDrives) {
  Harness h;
  int looked = 0;
  SelfTestScheduler s({}, 1, *h.store,
                      SelfTestHooks{[&] {
                                      ++looked;
                                      return h.drives;
                                    },
                                    nullptr});
  s.tick(h.now);
  s.tick(h.now + 1s);
  EXPECT_EQ(looked, 0);
  auto planned = h.make({plan("t", {"SN-A"}, "once")});
  planned->tick(h.now);
  EXPECT_EQ(h.started.size(), 1u);
}

TEST(SelfTestScheduler, ADriveWithoutSelfTestSupportIsNeverStarted) {
  Harness h;
  h.drives[0].self_test_supported = false;
  auto s = h.make({plan("t", {"SN-A"}, "once")});
  s->tick(h.now);
  s->tick(h.now + 1h);
  EXPECT_TRUE(h.started.empty());
}

TEST(SelfTestScheduler, OneDriveTestsAtATimeUnlessConfigured) {
  Harness h;
  auto s = h.make({plan("t", {"SN-A", "SN-B"}, "once", SelfTestKind::extended_test)});
  s->tick(h.now);
  ASSERT_EQ(h.started.size(), 1u);
  h.drives[0].self_test = SelfTestLog{.current_operation = 2, .completion_pct = 10, .results = {}};
  s->tick(h.now + 1min);
  EXPECT_EQ(h.started.size(), 1u) << "SN-A is testing";
  h.drives[0].self_test = ended(0x20);
  s->tick(h.now + 2h);
  ASSERT_EQ(h.started.size(), 2u);
  EXPECT_EQ(h.started[1].first, "/dev/SN-B");

  Harness two;
  two.make({plan("t", {"SN-A", "SN-B"}, "once")}, 2)->tick(two.now);
  EXPECT_EQ(two.started.size(), 2u);
}

TEST(SelfTestScheduler, AnOperatorsTestCountsTowardsTheLimit) {
  Harness h;
  auto s = h.make({plan("t", {"SN-B"}, "once")});
  s->started_by_operator(h.drives[0], SelfTestKind::short_test, h.now);
  s->tick(h.now + 1s);
  EXPECT_TRUE(h.started.empty()) << "SN-A's test, started a second ago, has not been read yet";
  ASSERT_TRUE(h.stored("SN-A", "nvmonctl").has_value());
  EXPECT_EQ(h.stored("SN-A", "nvmonctl")->who, "nvmonctl");
}

TEST(SelfTestScheduler, TheOutcomeIsRecordedOnceTheLogShowsTheTestEnded) {
  Harness h;
  auto s = h.make({plan("t", {"SN-A"}, "once", SelfTestKind::extended_test)});
  s->tick(h.now);
  h.drives[0].self_test = SelfTestLog{.current_operation = 2, .completion_pct = 50, .results = {}};
  s->tick(h.now + 30s);
  EXPECT_EQ(h.stored("SN-A", "t")->outcome, "");
  EXPECT_TRUE(h.stored("SN-A", "t")->seen_running);
  h.drives[0].self_test = ended(0x27);
  s->tick(h.now + 2h);
  EXPECT_EQ(h.stored("SN-A", "t")->outcome, "failed_segments");
}

TEST(SelfTestScheduler, ARecordSurvivesItsEncoding) {
  const SelfTestRecord r{SelfTestKind::extended_test, "nvmonctl", WallTime(std::chrono::seconds(1700000000)), "passed",
                         true};
  EXPECT_EQ(decode_self_test_record(encode_self_test_record(r)), r);
  EXPECT_EQ(decode_self_test_record("{\"kind\":\"long\"}"), std::nullopt);
  EXPECT_EQ(decode_self_test_record("not json"), std::nullopt);
}

// A scheduled start claims its drive before the command is sent and holds
// it until the drive's log shows the test over; a run holding the drive
// defers the start, naming it; a test seen running that no one here started
// holds the drive too.
TEST(SelfTestScheduler, AStartHoldsItsDriveUntilTheLogShowsTheTestOver) {
  Harness h;
  auto s = h.make({plan("t", {"SN-A"}, "once", SelfTestKind::extended_test)});
  {
    auto run = h.claims.claim("SN-A", DriveUse{DriveUse::Kind::run, "wsat-3", h.now});
    ASSERT_TRUE(run);
    s->tick(h.now);
    EXPECT_TRUE(h.started.empty()) << "started a self-test on a drive a run holds";
  }
  s->tick(h.now + 1s);
  ASSERT_EQ(h.started.size(), 1u);
  auto refused = h.claims.claim("SN-A", DriveUse{DriveUse::Kind::run, "wsat-4", h.now});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("drive SN-A is running an extended self-test (started at"), std::string::npos)
      << refused.error().message;
  h.drives[0].self_test = SelfTestLog{.current_operation = 2, .completion_pct = 10, .results = {}};
  s->tick(h.now + 2min);
  EXPECT_TRUE(h.claims.holder("SN-A")) << "released while the log shows it running";
  h.drives[0].self_test = ended(0x20);  // extended, completed without error
  s->tick(h.now + 3min);
  EXPECT_FALSE(h.claims.holder("SN-A")) << "the test is over and still holds the drive";

  h.drives[1].self_test = SelfTestLog{.current_operation = 1, .completion_pct = 50, .results = {}};
  s->tick(h.now + 4min);
  ASSERT_TRUE(h.claims.holder("SN-B")) << "a test no one here started does not hold its drive";
  EXPECT_FALSE(h.claims.holder("SN-B")->since);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
