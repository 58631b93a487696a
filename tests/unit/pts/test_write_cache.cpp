// PTS-E runs with the volatile write cache disabled: a run sets it so on a
// drive that has one enabled, puts it back however the run ends, and a run
// a crash left behind is put back by the next run on that drive. The target
// is a temp file standing for namespace 3 of a fake controller.
#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>

#include "pts/targets/device_target.hpp"
#include "runmodel/run_codec.hpp"
#include "pts/run_executor.hpp"
#include "runmodel/run_json.hpp"
#include "pts/write_cache.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/support/jobs.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

struct Fixture {
  Fixture() {
    std::ofstream(file) << std::string(1 << 20, 'x');
    script->identity.serial = "SN-WC";
    script->identity.vwc = 1;
    script->write_cache_enabled = true;
  }
  std::unique_ptr<DeviceTarget> open() {
    auto t = DeviceTarget::open(file, guard, test::fake_namespace(script, 3), test::uring_engines());
    if (!t) throw std::runtime_error(t.error().message);
    return std::move(*t);
  }
  RunOutcome run(bool resume, std::optional<std::size_t> stop_after = std::nullopt, StopAs as = StopAs::paused) {
    auto target = open();
    RunExecutor* self = nullptr;
    RunExecutor ex(plan, *target, *store, RunOptions{"wc", file, resume}, [&](const RunProgress& p) {
      if (stop_after && p.index == *stop_after) self->stop(as);
    });
    self = &ex;
    return ex.run();
  }
  WriteCacheRecord recorded(std::int64_t id) {
    auto header = header_from_blob(store->run(id).value()->header);
    if (!header || !header->write_cache) throw std::runtime_error("no write_cache in the stored header");
    return *header->write_cache;
  }

  test::TempDir dir{"pts-write-cache"};
  std::string file = dir.path() + "/ns.img";
  SafetyGuard guard{SafetyConfig{{}, {dir.path()}}};
  std::shared_ptr<test::ControllerScript> script = std::make_shared<test::ControllerScript>();
  std::unique_ptr<SqliteRunStore> store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  TestPlan plan = build_plan("wsat", {{"rounds", "3"}, {"round", "50ms"}, {"threads", "1"}, {"queue_depth", "1"}},
                             TargetFacts{1 << 20, 0});
};

TEST(WriteCache, AnEnabledCacheIsDisabledForTheRunAndEnabledAgainWhenItCompletes) {
  Fixture f;
  RunOutcome out = f.run(true);
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  EXPECT_EQ(f.script->write_cache_sets, (std::vector<bool>{false, true}));
  EXPECT_EQ(f.script->write_cache_enabled, std::optional<bool>(true));
  const WriteCacheRecord r = f.recorded(out.run_id);
  EXPECT_EQ(r.found, std::optional<bool>(true));
  EXPECT_EQ(r.during, std::optional<bool>(false));
  EXPECT_TRUE(r.restored_at);
  EXPECT_NE(r.detail.find("set disabled for the test"), std::string::npos) << r.detail;
  // Conformant: the test ran as PTS-E requires. run.json carries the record.
  // None but its short rounds' and length's (the parameters this test sets).
  for (const auto& c : run_json(out.run).value("conditions", nlohmann::json::array()))
    EXPECT_EQ(c["name"], "parameter") << c;
  EXPECT_EQ(run_json(out.run)["write_cache"]["found"], true);
  EXPECT_EQ(run_json(out.run)["write_cache"]["during"], false);
}

TEST(WriteCache, ACacheAlreadyDisabledIsLeftAlone) {
  Fixture f;
  f.script->write_cache_enabled = false;
  RunOutcome out = f.run(true);
  ASSERT_EQ(out.status, RunStatus::completed);
  EXPECT_TRUE(f.script->write_cache_sets.empty());
  EXPECT_FALSE(f.recorded(out.run_id).restored_at);
}

TEST(WriteCache, ADriveThatRefusesTheChangeRunsAsItIsWithANamedCondition) {
  Fixture f;
  f.script->write_cache_set_error = Error{ErrorReason::nvme_status, "fake:nvme7: set features (06h): Invalid Field"};
  RunOutcome out = f.run(true);
  ASSERT_EQ(out.status, RunStatus::completed);
  EXPECT_EQ(f.script->write_cache_sets, (std::vector<bool>{false}));  // nothing changed: nothing to put back
  ASSERT_TRUE(run_json(out.run).contains("conditions"));
  const auto all = run_json(out.run)["conditions"];
  // The cache's condition, beside those of the parameters this test sets.
  const auto found = std::find_if(all.begin(), all.end(), [](const auto& c) { return c["name"] != "parameter"; });
  ASSERT_NE(found, all.end()) << all;
  const auto& c = *found;
  EXPECT_EQ(c["name"], "write-cache-enabled");
  EXPECT_NE(c["detail"].get<std::string>().find("Invalid Field"), std::string::npos) << c.dump();
}

TEST(WriteCache, APausedRunKeepsItDisabledAndASuspendedOnePutsItBack) {
  Fixture f;
  EXPECT_EQ(f.run(true, 1, StopAs::paused).status, RunStatus::paused);
  EXPECT_EQ(f.script->write_cache_enabled, std::optional<bool>(false));
  Fixture g;
  RunOutcome out = g.run(true, 1, StopAs::suspended);
  EXPECT_EQ(g.script->write_cache_enabled, std::optional<bool>(true));
  EXPECT_TRUE(g.recorded(out.run_id).restored_at);
}

// kill -9 mid-run: the drive keeps the cache disabled (no power cycle). The
// next daemon either resumes the run, which ends by putting back what the
// first start found, or starts afresh, closing the old run after putting
// its cache back.
TEST(WriteCache, ARunLeftByACrashIsPutBackByTheNextRunOnTheDrive) {
  Fixture f;
  const RunOutcome crashed = f.run(true, 1, StopAs::paused);  // still "running" in the store, as after kill -9
  ASSERT_EQ(f.script->write_cache_enabled, std::optional<bool>(false));
  f.script->write_cache_sets.clear();
  RunOutcome fresh = f.run(false);
  ASSERT_EQ(fresh.status, RunStatus::completed);
  EXPECT_NE(fresh.run_id, crashed.run_id);
  // The old run put back "enabled"; the new one found it enabled, disabled
  // it, and put it back.
  EXPECT_EQ(f.script->write_cache_sets, (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(f.recorded(crashed.run_id).restored_at);
  EXPECT_EQ(f.recorded(fresh.run_id).found, std::optional<bool>(true));
}

TEST(WriteCache, AResumedRunRemembersWhatItFirstFoundAndSetsItAgainAfterAPowerCycle) {
  Fixture f;
  const RunOutcome crashed = f.run(true, 1, StopAs::paused);
  f.script->write_cache_enabled = true;  // a power cycle: the drive's own default again
  f.script->write_cache_sets.clear();
  RunOutcome resumed = f.run(true);
  ASSERT_EQ(resumed.status, RunStatus::completed);
  EXPECT_EQ(resumed.run_id, crashed.run_id);
  EXPECT_EQ(f.script->write_cache_sets, (std::vector<bool>{false, true}));
  const WriteCacheRecord r = f.recorded(resumed.run_id);
  EXPECT_EQ(r.found, std::optional<bool>(true));
  EXPECT_TRUE(r.restored_at);
}

TEST(WriteCache, APutBackTheDriveRefusesIsRecordedAndTriedAgainLater) {
  Fixture f;
  auto target = f.open();
  WriteCacheRecord r = apply_write_cache(*target, false, std::nullopt);
  ASSERT_TRUE(write_cache_needs_restore(r));
  f.script->write_cache_set_error = Error{ErrorReason::timeout, "fake:nvme7: set features (06h): no answer"};
  restore_write_cache(*target, r, "2026-01-01T00:00:00Z");
  EXPECT_FALSE(r.restored_at);
  ASSERT_TRUE(r.restore_failure);
  EXPECT_NE(r.restore_failure->find("no answer"), std::string::npos);
  EXPECT_TRUE(write_cache_needs_restore(r));
  f.script->write_cache_set_error.reset();
  restore_write_cache(*target, r, "2026-01-01T00:01:00Z");
  EXPECT_EQ(r.restored_at, std::optional<std::string>("2026-01-01T00:01:00Z"));
  EXPECT_FALSE(r.restore_failure);
  EXPECT_FALSE(write_cache_needs_restore(r));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
