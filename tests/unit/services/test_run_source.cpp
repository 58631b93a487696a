// `nvmonctl report RUN` with RUN a run id: the store's rows rebuilt into the
// run.json the run's writer produced, read without writing to the database.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "services/run_source.hpp"
#include "store/sqlite_run_store.hpp"
#include "store/sqlite_store.hpp"
#include "pts/run_executor.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "pts/stored_run.hpp"
#include "tests/support/sim_drives.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

SimDriveSpec small_drive() { return test::small_datacenter_drive("SN0"); }

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A state directory whose database `file` holds runs written by the PTS
// executor, as the daemon's soak runner writes them (nvmond.db: as daemons
// before runs.db did).
struct StateDir {
  explicit StateDir(const std::string& file = "nvmond.db")
      : db(dir.path() + "/" + file), store(std::move(*SqliteRunStore::open_file(db))) {}
  test::TempDir dir{"run-source"};
  std::string db;
  std::unique_ptr<SqliteRunStore> store;
  std::shared_ptr<DriveModel> model =
      std::make_shared<DriveModel>(small_drive(), WallTime{} + std::chrono::hours(480000));
  SimTarget target{model};

  RunOutcome run(const std::string& name, int stop_at = -1) {
    TestPlan plan = build_plan("wsat", {{"rounds", "30"}, {"round", "5m"}}, TargetFacts{100'000'000'000ULL, 1.3});
    RunExecutor* self = nullptr;
    RunExecutor ex(plan, target, *store, RunOptions{name, "sim:d0", true}, [&](const RunProgress& p) {
      if (static_cast<int>(p.index) == stop_at) self->stop();
    });
    self = &ex;
    return ex.run();
  }
};

TEST(RunSource, AFinishedRunRebuiltFromTheStoreIsTheRunJsonItsWriterProduced) {
  StateDir s;
  const RunOutcome out = s.run("w");
  ASSERT_EQ(out.status, RunStatus::completed);
  auto stored = read_stored_run(s.db, out.run_id);
  ASSERT_TRUE(stored) << stored.error().message;
  auto rebuilt = run_json_from_store(*stored);
  ASSERT_TRUE(rebuilt) << rebuilt.error().message;
  EXPECT_EQ(*rebuilt, run_json(out.run)) << "differs:\n" << nlohmann::json::diff(run_json(out.run), *rebuilt).dump(1);
}

TEST(RunSource, ARunIdLoadsThroughTheStateDirectoryWithItsRoundsAndWindow) {
  StateDir s;
  const RunOutcome out = s.run("w");
  auto record = RunSource(s.dir.path(), "").load(std::to_string(out.run_id));
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->rounds.size(), 30u);
  EXPECT_EQ(record->status, RunStatus::completed);
  ASSERT_TRUE(record->results->steady_state);
  const WindowCheck* window = report::window_of(*record->results->steady_state);
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->first, run_json(out.run)["steady_state"]["window"][0].get<std::size_t>());
  EXPECT_EQ(window->last, run_json(out.run)["steady_state"]["window"][1].get<std::size_t>());
}

// The daemon's runs live in runs.db beside a history (nvmond.db) that holds
// none: an id is read from runs.db first, and a run only an older daemon's
// nvmond.db holds is still found there.
TEST(RunSource, ARunIdIsReadFromRunsDbBesideAHistoryAndFromNvmondDbWhenOnlyItHoldsIt) {
  StateDir s("runs.db");
  const RunOutcome out = s.run("w");
  auto history = SqliteStore::open_file(s.dir.path() + "/nvmond.db");
  ASSERT_TRUE(history) << history.error().message;
  auto record = RunSource(s.dir.path(), "").load(std::to_string(out.run_id));
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->rounds.size(), 30u);

  auto older = SqliteRunStore::open_file(s.dir.path() + "/nvmond.db");
  ASSERT_TRUE(older);
  RunRow legacy;
  legacy.name = "legacy";
  legacy.test = "wsat";
  legacy.target = "sim:d0";
  legacy.status = RunStatus::completed;
  legacy.header = run_json(out.run).dump();                               // any run.json will do
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*older)->create_run(legacy));  // ids 1..5
  const auto legacy_id = out.run_id + 4;
  ASSERT_TRUE((*older)->commit_round(legacy_id, RoundRow{0, "steady", 1.0, run_json(out.run)["rounds"][0].dump()}, ""));
  auto found = RunSource(s.dir.path(), "").load(std::to_string(legacy_id));
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->rounds.size(), 1u);
}

TEST(RunSource, ARunInProgressReadsAsRunningWithItsCommittedRounds) {
  StateDir s;
  ASSERT_EQ(s.run("w", 12).status, RunStatus::paused);
  auto record = RunSource(s.dir.path(), "").load("1");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->status, RunStatus::running);
  EXPECT_EQ(record->rounds.size(), 12u);
}

TEST(RunSource, ARunClosedAsInterruptedByTheNextStartSaysSoWithItsEnd) {
  StateDir s;
  ASSERT_EQ(s.run("w", 5).status, RunStatus::paused);
  // A start that does not resume closes the open run of that name.
  TestPlan plan = build_plan("wsat", {{"rounds", "3"}, {"round", "5m"}}, TargetFacts{100'000'000'000ULL, 1.3});
  SimTarget target(s.model);  // the first one keeps its stop request
  RunExecutor fresh(plan, target, *s.store, RunOptions{"w", "sim:d0", false});
  ASSERT_EQ(fresh.run().status, RunStatus::completed);
  auto record = RunSource(s.dir.path(), "").load("1");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->status, RunStatus::interrupted);
  EXPECT_TRUE(record->header.ended_at);
  EXPECT_EQ(record->rounds.size(), 5u);
}

TEST(RunSource, ReadingNeitherWaitsForAnOpenWriteNorChangesTheDatabase) {
  StateDir s;
  ASSERT_EQ(s.run("w", 7).status, RunStatus::paused);
  // A writer in the middle of a transaction, as the daemon is while it commits a round.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(s.db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer,
                         "BEGIN IMMEDIATE; INSERT INTO pts_rounds(run_id, idx, phase, iops, data) "
                         "VALUES(1, 7, 'test', 1.0, '{}')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  const std::string db_before = bytes_of(s.db), wal_before = bytes_of(s.db + "-wal");
  const auto t0 = std::chrono::steady_clock::now();
  auto stored = read_stored_run(s.db, 1);
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->rounds.size(), 7u) << "the uncommitted round must not show";
  // The busy timeout is 5 s: a reader that waited on the writer would take it.
  EXPECT_LT(waited, std::chrono::seconds(2));
  EXPECT_EQ(bytes_of(s.db), db_before);
  EXPECT_EQ(bytes_of(s.db + "-wal"), wal_before);
  EXPECT_EQ(sqlite3_exec(writer, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(writer);
  sqlite3_close(writer);
  EXPECT_EQ(read_stored_run(s.db, 1)->rounds.size(), 8u);
}

TEST(RunSource, ADatabaseNoDaemonHasOpenIsReadWithoutLeavingWalFilesBehind) {
  StateDir s;
  ASSERT_EQ(s.run("w", 4).status, RunStatus::paused);
  s.store.reset();  // the daemon stopped: its last connection removed -wal and -shm
  ASSERT_FALSE(std::filesystem::exists(s.db + "-wal"));
  // Characters a file: URI would otherwise take as its query or fragment.
  const std::string odd = s.dir.path() + "/state?#%41";
  std::filesystem::create_directory(odd);
  std::filesystem::rename(s.db, odd + "/nvmond.db");
  auto record = RunSource(odd, "").load("1");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->rounds.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(odd + "/nvmond.db-wal"));
  EXPECT_FALSE(std::filesystem::exists(odd + "/nvmond.db-shm"));
}

TEST(RunSource, AnUnknownIdNamesTheDatabaseAndTheId) {
  StateDir s;
  s.run("w", 3);
  auto record = RunSource(s.dir.path(), "").load("42");
  ASSERT_FALSE(record);
  EXPECT_EQ(record.error().reason, ErrorReason::unknown);
  EXPECT_NE(record.error().message.find("no run with id 42"), std::string::npos) << record.error().message;
  EXPECT_NE(record.error().message.find(s.db), std::string::npos) << record.error().message;
}

TEST(RunSource, AHistoryFromBeforePtsRunsSaysItHoldsNone) {
  test::TempDir dir{"run-source-old"};
  const std::string db = dir.path() + "/nvmond.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE samples (time_ns INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  auto record = RunSource(dir.path(), "").load("1");
  ASSERT_FALSE(record);
  EXPECT_EQ(record.error().reason, ErrorReason::unknown);
  EXPECT_NE(record.error().message.find("this database holds no PTS runs"), std::string::npos)
      << record.error().message;
}

TEST(RunSource, AStateDirectoryWithoutADatabaseSaysWhereItLooked) {
  test::TempDir empty("run-source-empty");
  auto record = RunSource(empty.path(), "").load("1");
  ASSERT_FALSE(record);
  EXPECT_EQ(record.error().reason, ErrorReason::absent);
  EXPECT_NE(record.error().message.find(empty.path() + "/nvmond.db"), std::string::npos) << record.error().message;
  EXPECT_FALSE(std::filesystem::exists(empty.path() + "/nvmond.db")) << "a reader must not create the database";
}

TEST(RunSource, TheStateDirectoryComesFromTheConfigsDaemonTable) {
  StateDir s;
  s.run("w", 3);
  test::TempDir etc("run-source-etc");
  const std::string config = etc.path() + "/nvmond.toml";
  std::ofstream(config) << "[daemon]\nstate_dir = \"" << s.dir.path() << "\"\n";
  auto record = RunSource("", config).load("1");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->rounds.size(), 3u);
  // --state-dir wins over the config.
  test::TempDir other("run-source-other");
  EXPECT_EQ(RunSource(other.path(), config).load("1").error().reason, ErrorReason::absent);
}

TEST(RunSource, ABrokenConfigIsAConfigErrorWithItsPosition) {
  test::TempDir etc("run-source-etc");
  const std::string config = etc.path() + "/nvmond.toml";
  std::ofstream(config) << "[daemon]\nstate_dir = \n";
  auto record = RunSource("", config).load("1");
  ASSERT_FALSE(record);
  EXPECT_EQ(record.error().reason, ErrorReason::config);
  EXPECT_NE(record.error().message.find("nvmond.toml:2:"), std::string::npos) << record.error().message;
}

TEST(RunSource, AnExistingPathIsARunDirectoryEvenWhenItsNameIsANumber) {
  test::TempDir dir("run-source-dir");
  const std::string run = dir.path() + "/7";
  std::filesystem::create_directory(run);
  std::ofstream(run + "/run.json") << R"({"schema":"nvmond.run/1","run_id":"","test":"iops","status":"completed",
    "started_at":"2026-11-30T00:00:00Z","started_ns":0,"nvmond_version":"0.1.0","clock":"system",
    "target":{"path":"/dev/null","serial":"","model":"","firmware":"","capacity_bytes":0,"tested_range_bytes":0},
    "parameters":{},"rounds":[]})";
  auto record = RunSource(dir.path(), "").load(run);
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->header.test, "iops");
  auto missing = RunSource(dir.path(), "").load(dir.path() + "/nothing");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("not a run id"), std::string::npos) << missing.error().message;
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
