// The history's sample log: a tick's samples of every drive share pages, and
// every read stays exact (from the writer's connection and a reader's,
// across folds, for late and replaced samples).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/support/kill_nine.hpp"
#include "tests/support/temp_dir.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::TempDir;

const WallTime kT0 = WallTime{} + std::chrono::hours(24 * 365 * 56);

DriveKey drive(int i) { return {"LOG-" + std::to_string(i), "Model L"}; }

SampleRecord sample_at(WallTime t, u128 written) {
  SampleRecord s;
  s.time = t;
  s.data_units_written = written;
  s.data_units_read = written / 2;
  s.power_on_hours = 1234;
  s.percentage_used = 3;
  s.composite_temperature_k = 311;
  s.media_bytes_written = written * 512000;
  return s;
}

std::unique_ptr<SqliteStore> open(const std::string& dir, SqliteOptions options = {}) {
  auto s = SqliteStore::open(dir, options);
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? std::move(*s) : nullptr;
}

// One tick: a sample of each of `drives` drives at `t`.
std::vector<PollRecord> tick(int drives, WallTime t, u128 written) {
  std::vector<PollRecord> out;
  for (int i = 0; i < drives; ++i) out.push_back({drive(i), {sample_at(t, written + static_cast<u128>(i))}, {}, {}});
  return out;
}

std::int64_t count(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
  const std::int64_t n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

void expect_same(const SampleRecord& a, const SampleRecord& b) {
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.segment, b.segment);
  EXPECT_EQ(a.data_units_written, b.data_units_written);
  EXPECT_EQ(a.data_units_read, b.data_units_read);
  EXPECT_EQ(a.power_on_hours, b.power_on_hours);
  EXPECT_EQ(a.media_bytes_written, b.media_bytes_written);
}

// Every read of every drive, from `s`, against what was committed: ticks
// 0..n-1, drive i wrote 100 * k + i at tick k.
void expect_history(Store& s, int drives, int ticks) {
  const WallTime end = kT0 + ticks * 1s;
  auto newest = s.latest_sample_time();
  ASSERT_TRUE(newest && *newest);
  EXPECT_EQ(**newest, end - 1s);
  for (int i = 0; i < drives; ++i) {
    auto all = s.samples(drive(i), kT0, end);
    ASSERT_TRUE(all) << all.error().message;
    ASSERT_EQ(all->size(), static_cast<std::size_t>(ticks)) << "drive " << i;
    for (int k = 0; k < ticks; ++k) {
      expect_same((*all)[static_cast<std::size_t>(k)], sample_at(kT0 + k * 1s, static_cast<u128>(100 * k + i)));
    }
    auto last = s.last_sample(drive(i));
    ASSERT_TRUE(last && *last);
    expect_same(**last, all->back());
    const std::array<int, 3> froms{0, ticks / 3, ticks - 1};
    const std::array<WallTime, 4> since{kT0 + froms[0] * 1s - 500ms, kT0 + froms[1] * 1s - 500ms,
                                        kT0 + froms[2] * 1s - 500ms, end};
    auto first = s.first_samples_since(drive(i), 0, since);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->size(), since.size());
    for (std::size_t k = 0; k < froms.size(); ++k) {
      ASSERT_TRUE((*first)[k]) << "since " << froms[k] << " s";
      expect_same(*(*first)[k], (*all)[static_cast<std::size_t>(froms[k])]);
    }
    EXPECT_FALSE((*first)[3]) << "nothing at or after the end";
  }
}

TEST(SampleLog, ReadsAreExactOnTheWritersAndAReadersConnectionAcrossFolds) {
  TempDir dir;
  SqliteOptions options;
  options.log_rows_per_drive = 8;
  auto writer = open(dir.path(), options);
  ASSERT_TRUE(writer);
  SqliteOptions ro = options;
  ro.read_only = true;
  auto reader = open(dir.path(), ro);
  ASSERT_TRUE(reader);
  constexpr int kDrives = 5;
  for (int k = 0; k < 21; ++k) {
    ASSERT_TRUE(writer->commit_all(tick(kDrives, kT0 + k * 1s, static_cast<u128>(100 * k))));
    // Between folds (8 per drive) the newest samples are only in the log.
    expect_history(*writer, kDrives, k + 1);
    expect_history(*reader, kDrives, k + 1);
  }
  // 21 ticks: two folds of 8, five ticks logged.
  const std::string db = dir.path() + "/" + SqliteStore::kFileName;
  EXPECT_EQ(count(db, "SELECT count(*) FROM sample_history"), 16 * kDrives);
  EXPECT_EQ(count(db, "SELECT count(*) FROM sample_log"), 5 * kDrives);
  EXPECT_EQ(count(db, "SELECT count(*) FROM samples"), 21 * kDrives);  // what scripts query
  auto stats = reader->stats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->samples, 21 * kDrives);

  // A new connection (a restart) finds the log on disk.
  writer.reset();
  auto again = open(dir.path(), options);
  ASSERT_TRUE(again);
  expect_history(*again, kDrives, 21);
  ASSERT_TRUE(again->commit_all(tick(kDrives, kT0 + 21s, 2100)));
  expect_history(*again, kDrives, 22);
  expect_history(*reader, kDrives, 22);
}

std::string integrity(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  std::string out;
  while (sqlite3_step(st) == SQLITE_ROW) out += reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// A real kill -9 at arbitrary instants of a writer that folds every fourth
// tick, so kills land in plain commits, in folds and in checkpoints: after
// each, the database passes SQLite's integrity check, every tick the writer
// had acknowledged reads back exactly (from the history or the log), and
// at most the tick being committed is there beyond them.
TEST(SampleLog, AKillNineInACommitOrAFoldLosesNoAcknowledgedTickAndCorruptsNothing) {
  TempDir dir;
  SqliteOptions options;
  options.log_rows_per_drive = 4;
  options.wal_autocheckpoint_bytes = 64 * 1024;
  constexpr int kDrives = 6;
  const std::string db = dir.path() + "/" + SqliteStore::kFileName;
  std::mt19937 rng(20261203);
  int next = 0;  // the first tick the next writer commits
  for (int round = 0; round < 12; ++round) {
    const auto killed = test::kill_nine_during(
        [&](const auto& report) {
          auto s = SqliteStore::open(dir.path(), options);
          if (!s) ::_exit(2);
          for (int k = next;; ++k) {
            if (!(*s)->commit_all(tick(kDrives, kT0 + k * 1s, static_cast<u128>(100 * k)))) ::_exit(3);
            report(k);
          }
        },
        std::chrono::microseconds(40000), rng);
    ASSERT_EQ(killed.problem, "") << "round " << round;
    const int acked = static_cast<int>(killed.last_reported);

    ASSERT_EQ(integrity(db), "ok") << "round " << round;
    auto s = open(dir.path(), options);
    ASSERT_TRUE(s);
    auto newest = s->latest_sample_time();
    ASSERT_TRUE(newest && *newest);
    const int stored = static_cast<int>((**newest - kT0) / 1s) + 1;
    EXPECT_TRUE(stored == acked + 1 || stored == acked + 2)
        << "round " << round << ": " << stored << " ticks stored, " << acked + 1 << " acknowledged";
    expect_history(*s, kDrives, stored);
    if (HasFailure()) return;
    next = stored;
    std::printf("round %d: killed after %d ticks acknowledged, %d stored\n", round, acked + 1, stored);
  }
  EXPECT_GT(next, 12 * 4) << "the kills should have come after several folds";
}

TEST(SampleLog, LateAndReplacedSamplesLandInTheHistoryInOrder) {
  TempDir dir;
  auto store = open(dir.path());
  ASSERT_TRUE(store);
  const DriveKey d = drive(0);
  ASSERT_TRUE(store->commit({d, {sample_at(kT0, 1)}, {}, {}}));
  ASSERT_TRUE(store->commit({d, {sample_at(kT0 + 20s, 3)}, {}, {}}));
  // Late (between the two) and a replacement of the newest, as upserts.
  ASSERT_TRUE(store->commit({d, {sample_at(kT0 + 10s, 2), sample_at(kT0 + 20s, 33)}, {}, {}}));
  ASSERT_TRUE(store->commit({d, {sample_at(kT0 + 30s, 4)}, {}, {}}));
  auto all = store->samples(d, kT0, kT0 + 1h);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 4u);
  const u128 want[] = {1, 2, 33, 4};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ((*all)[k].time, kT0 + static_cast<int>(k) * 10s);
    EXPECT_EQ((*all)[k].data_units_written, want[k]);
  }
  auto last = store->last_sample(d);
  ASSERT_TRUE(last && *last);
  EXPECT_EQ((**last).data_units_written, u128{4});
  const std::array<WallTime, 1> after5{kT0 + 5s};
  auto since = store->first_samples_since(d, 0, after5);
  ASSERT_TRUE(since && since->size() == 1 && (*since)[0]);
  EXPECT_EQ((*since)[0]->data_units_written, u128{2});
}

// What a tick costs the WAL: before the log, every drive's new sample
// dirtied that drive's own history page (64 drives: at least 64 frames).
// Now a tick of 64 drives fills about one shared page of the log.
TEST(SampleLog, ATickOfSixtyFourDrivesWritesAFewSharedPages) {
  TempDir dir;
  auto store = open(dir.path());
  ASSERT_TRUE(store);
  constexpr int kDrives = 64;
  // A page and more of history per drive, so their rows cannot share pages.
  for (int i = 0; i < kDrives; ++i) {
    PollRecord bulk{drive(i), {}, {}, {}};
    for (int k = 0; k < 300; ++k) bulk.samples.push_back(sample_at(kT0 + k * 1s, static_cast<u128>(100 * k + i)));
    ASSERT_TRUE(store->commit(bulk));
  }
  const std::string db = dir.path() + "/" + SqliteStore::kFileName;
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  // Reading the schema opens the WAL (before it, the connection sees none).
  ASSERT_EQ(sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr), SQLITE_OK);
  int frames_max = 0;
  for (int k = 300; k < 340; ++k) {
    // An empty WAL, then one tick: the WAL holds exactly that tick's pages.
    int log = -1, done = -1;
    ASSERT_EQ(sqlite3_wal_checkpoint_v2(raw, "main", SQLITE_CHECKPOINT_TRUNCATE, &log, &done), SQLITE_OK);
    ASSERT_TRUE(store->commit_all(tick(kDrives, kT0 + k * 1s, static_cast<u128>(100 * k))));
    ASSERT_EQ(sqlite3_wal_checkpoint_v2(raw, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &done), SQLITE_OK);
    frames_max = std::max(frames_max, log);
  }
  const std::int64_t page = count(db, "PRAGMA page_size");
  sqlite3_close(raw);
  // The tick's rows (about 3.2 KB) and the tree above them; without the log
  // it was a page per drive, 64 pages whatever their size.
  EXPECT_LE(frames_max * page, 7 * 1024) << "a tick of " << kDrives << " drives wrote " << frames_max << " pages of "
                                         << page << " B";
  EXPECT_LT(frames_max, kDrives / 4);
  expect_history(*store, kDrives, 340);
}

// A daemon's history grows for as long as it runs; what its connection
// keeps of the file must not. SQLite's default cache (2000 KiB) filled as
// fast as the file grew and held RSS creeping up for hours.
TEST(SampleLog, TheConnectionsCacheStaysBoundedAsTheHistoryOutgrowsIt) {
  TempDir dir;
  SqliteOptions fast;
  fast.synchronous_full = false;  // the file's size is the point here, not its durability
  auto store = open(dir.path(), fast);
  ASSERT_TRUE(store);
  constexpr int kDrives = 64;
  for (int k = 0; k < 2000; k += 50) {
    std::vector<PollRecord> batch;
    for (int i = 0; i < kDrives; ++i) {
      PollRecord r{drive(i), {}, {}, {}};
      for (int j = k; j < k + 50; ++j) r.samples.push_back(sample_at(kT0 + j * 1s, static_cast<u128>(1000 * j + i)));
      batch.push_back(std::move(r));
    }
    ASSERT_TRUE(store->commit_all(batch));
  }
  for (int i = 0; i < kDrives; ++i) {
    auto all = store->samples(drive(i), kT0, kT0 + 2000s);
    ASSERT_TRUE(all) << all.error().message;
    ASSERT_EQ(all->size(), 2000u);
  }
  const std::string db = dir.path() + "/" + SqliteStore::kFileName;
  const auto file = std::filesystem::file_size(db) + std::filesystem::file_size(db + "-wal");
  ASSERT_GT(file, 4u << 20) << "the history must outgrow the default cache for this to show anything";
  // Everything SQLite holds in this process: the one connection's cache,
  // schema and statements. With the default cache it was over 2 MiB.
  EXPECT_LT(sqlite3_memory_used(), 1 << 20) << "history file " << file << " B";
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
