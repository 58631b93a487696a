// The daemon's runs on real files: STATE_DIR/runs.db, apart from the
// history, checked on open and on every error; a damaged page (real bytes
// written over it, found by a second connection through dbstat) is set
// aside and counted, a fresh database never hands out an id used before, a
// run store that cannot open is retried, and runs recorded in nvmond.db by
// older daemons are imported.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "store/resilient_run_store.hpp"
#include "store/sqlite_run_backend.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::TempDir;
namespace fs = std::filesystem;

RunRow soak_row(const std::string& name) {
  RunRow r;
  r.name = name;
  r.test = "wsat";
  r.target = "sim:dc0";
  r.serial = "SN";
  r.model = "M";
  r.header = "{}";
  return r;
}

// Enough rounds, each big enough, that pts_rounds spans several leaf pages.
void commit_rounds(RunStore& store, std::int64_t run, int from, int to) {
  for (int i = from; i < to; ++i) {
    auto r = store.commit_round(run, RoundRow{i, "steady", 1000.0 + i, std::string(600, 'r')}, "");
    ASSERT_TRUE(r) << r.error().message;
  }
}

// A second connection finds the first leaf page of `table` once every
// committed page is in the main file; its bytes are then overwritten with
// garbage. `then_write` (with the table untouched) makes a live connection
// drop its page cache, as any other writer would.
void corrupt_first_leaf(const fs::path& db, const char* table, const char* then_write = nullptr) {
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(other,
                               "SELECT pageno, pgsize FROM dbstat WHERE name = ?1 AND pagetype = 'leaf' "
                               "ORDER BY pageno LIMIT 1",
                               -1, &st, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW) << "no leaf page of " << table;
  const std::int64_t page = sqlite3_column_int64(st, 0);
  const std::int64_t size = sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
  {
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((page - 1) * size);
    const std::string garbage(static_cast<std::size_t>(size), '\xa5');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  if (then_write != nullptr) {
    ASSERT_EQ(sqlite3_exec(other, then_write, nullptr, nullptr, nullptr), SQLITE_OK);
  }
  sqlite3_close(other);
}

std::vector<fs::path> set_aside(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("runs.db.corrupt-") && !name.ends_with("-wal") && !name.ends_with("-shm")) {
      out.push_back(e.path());
    }
  }
  return out;
}

struct Fixture {
  TempDir dir{"run-store"};
  fs::path db = fs::path(dir.path()) / "runs.db";
  ManualClock clock;
  std::vector<std::string> heard;

  std::unique_ptr<ResilientRunStore> open() {
    return std::make_unique<ResilientRunStore>(std::make_unique<SqliteRunBackend>(dir.path()), clock,
                                               StoreRetry{1s, 8s},
                                               [this](ErrorReason r) { heard.push_back(std::string(to_text(r))); });
  }
};

TEST(RunStoreResilience, ADamagedRoundsPageIsFoundWhenTheRunStoreOpensSetAsideAndCounted) {
  Fixture f;
  {
    auto store = SqliteRunStore::open_file(f.db.string());
    ASSERT_TRUE(store);
    auto id = (*store)->create_run(soak_row("soak"));
    ASSERT_TRUE(id);
    commit_rounds(**store, *id, 0, 40);
  }
  corrupt_first_leaf(f.db, "pts_rounds");
  const std::string damaged = [&] {
    std::ifstream in(f.db, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();

  auto store = f.open();
  EXPECT_EQ(f.heard, std::vector<std::string>{"corrupt"});
  const auto aside = set_aside(f.dir.path());
  ASSERT_EQ(aside.size(), 1u);
  std::ifstream in(aside[0], std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), damaged) << "kept byte for byte";

  // The fresh database serves, and its first run is not run 1 again.
  auto next = store->create_run(soak_row("soak"));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(*next, 2);
  EXPECT_FALSE(store->failing());
}

TEST(RunStoreResilience, ADamagedPageHitByAStatementSetsTheDatabaseAsideAndTheNextCallStartsAFreshOne) {
  Fixture f;
  auto store = f.open();
  auto id = store->create_run(soak_row("soak"));
  ASSERT_TRUE(id) << id.error().message;
  commit_rounds(*store, *id, 0, 40);

  corrupt_first_leaf(f.db, "pts_rounds", "UPDATE pts_runs SET model = 'M2'");
  auto rounds = store->rounds(*id);
  ASSERT_FALSE(rounds) << "read " << rounds->size() << " rounds through a damaged page";
  EXPECT_EQ(rounds.error().reason, ErrorReason::corrupt) << rounds.error().message;
  EXPECT_EQ(f.heard, std::vector<std::string>{"corrupt"});
  EXPECT_EQ(set_aside(f.dir.path()).size(), 1u);

  // No backoff after setting it aside, and no id of the old file reused.
  auto next = store->create_run(soak_row("soak"));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_GT(*next, *id);
  ASSERT_TRUE(store->commit_round(*next, RoundRow{0, "steady", 1.0, "{}"}, ""));
  EXPECT_FALSE(store->failing());
}

TEST(RunStoreResilience, ANewRunIdIsAboveEveryRunDirectory) {
  Fixture f;
  fs::create_directories(fs::path(f.dir.path()) / "runs" / "dc0-wsat-7");
  fs::create_directories(fs::path(f.dir.path()) / "runs" / "odd-name-3.old-1");
  auto store = f.open();
  auto id = store->create_run(soak_row("soak"));
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, 8);
}

TEST(RunStoreResilience, ARunStoreThatCannotOpenIsRetriedWithBackoffAndServesOnceItCan) {
  Fixture f;
  fs::create_directories(f.db);  // a directory where the database belongs: nothing can open it
  auto store = f.open();
  ASSERT_EQ(f.heard.size(), 1u);
  EXPECT_TRUE(store->failing());
  fs::remove(f.db);

  auto early = store->create_run(soak_row("soak"));
  ASSERT_FALSE(early) << "within the backoff nothing is tried";
  EXPECT_EQ(f.heard.size(), 1u);
  f.clock.advance(1s);
  auto id = store->create_run(soak_row("soak"));
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, 1);
  EXPECT_FALSE(store->failing());
}

TEST(RunStoreResilience, RunsAnOlderDaemonKeptInNvmondDbAreImportedOnceAndResumable) {
  Fixture f;
  const fs::path legacy = fs::path(f.dir.path()) / "nvmond.db";
  {
    auto old = SqliteRunStore::open_file(legacy.string());
    ASSERT_TRUE(old);
    auto done = (*old)->create_run(soak_row("done"));
    ASSERT_TRUE(done);
    ASSERT_TRUE((*old)->update_run(*done, RunStatus::completed, 5, "{}"));
    auto running = (*old)->create_run(soak_row("soak"));
    ASSERT_TRUE(running);
    commit_rounds(**old, *running, 0, 3);
  }
  auto store = f.open();
  auto unfinished = store->unfinished_run("soak");
  ASSERT_TRUE(unfinished && *unfinished);
  EXPECT_EQ((*unfinished)->id, 2);
  EXPECT_EQ((*unfinished)->rounds, 3);
  auto listed = store->runs(std::nullopt, 10);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 2u);
  auto next = store->create_run(soak_row("other"));
  ASSERT_TRUE(next);
  EXPECT_EQ(*next, 3);
  // The old file is only read.
  auto left = SqliteRunStore::open_file(legacy.string());
  ASSERT_TRUE(left);
  auto old_runs = (*left)->runs(std::nullopt, 10);
  ASSERT_TRUE(old_runs);
  EXPECT_EQ(old_runs->size(), 2u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
