// SqliteStore: schema migration, round trips, downsampling and its size.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <filesystem>

#include "store/sqlite_schema.hpp"
#include "store/sqlite_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::TempDir;

const DriveKey kDrive{"SN1", "Model A"};
const WallTime kT0 = WallTime{} + std::chrono::hours(24 * 365 * 54);

std::unique_ptr<SqliteStore> open_store(const std::string& dir, SqliteOptions options = {}) {
  auto s = SqliteStore::open(dir, options);
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? std::move(*s) : nullptr;
}

SampleRecord sample_at(WallTime t, u128 written, std::int64_t segment = 0) {
  SampleRecord s;
  s.time = t;
  s.segment = segment;
  s.data_units_written = written;
  s.power_on_hours = 10;
  return s;
}

void raw_exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
}

TEST(SqliteStore, MigratesAVersionOneDatabaseKeepingItsSamples) {
  TempDir dir;
  const std::string path = dir.path() + "/" + SqliteStore::kFileName;
  {
    // Version 1 exactly as it shipped: drives and samples, no OCP column.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    raw_exec(db, R"sql(
CREATE TABLE drives(id INTEGER PRIMARY KEY, serial TEXT NOT NULL, model TEXT NOT NULL, UNIQUE(serial, model));
CREATE TABLE samples(drive_id INTEGER NOT NULL REFERENCES drives(id), time_ns INTEGER NOT NULL,
  segment INTEGER NOT NULL, data_units_written BLOB NOT NULL, data_units_read BLOB NOT NULL,
  power_on_hours BLOB NOT NULL, percentage_used INTEGER NOT NULL, composite_temperature_k INTEGER NOT NULL,
  PRIMARY KEY(drive_id, time_ns)) WITHOUT ROWID;
INSERT INTO drives(id, serial, model) VALUES(1, 'SN1', 'Model A');
INSERT INTO samples VALUES(1, 1000000000, 0, x'0102', x'00', x'2A', 3, 310);
PRAGMA user_version = 1;)sql");
    sqlite3_close(db);
  }
  auto store = open_store(dir.path());
  ASSERT_TRUE(store);

  auto old = store->samples(kDrive, WallTime{}, kT0);
  ASSERT_TRUE(old) << old.error().message;
  ASSERT_EQ(old->size(), 1u);
  EXPECT_EQ((*old)[0].data_units_written, u128{0x0102});
  EXPECT_EQ((*old)[0].power_on_hours, u128{42});
  EXPECT_FALSE((*old)[0].media_bytes_written.has_value());

  // Tables of later versions work on the migrated file.
  PollRecord rec{kDrive, {sample_at(kT0, 5)}, {{kT0, std::nullopt, 71.5, {"tmt1"}, 1}}, {{"k", "v"}}};
  rec.samples[0].media_bytes_written = u128{7};
  ASSERT_TRUE(store->commit(rec));
  auto ev = store->events(kDrive, WallTime{});
  ASSERT_TRUE(ev);
  ASSERT_EQ(ev->size(), 1u);
  EXPECT_EQ(**store->state(kDrive, "k"), "v");
  store.reset();

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), sqlite_schema_version());
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(SqliteStore, MigrationsAreAnOrderedList) {
  auto m = sqlite_migrations();
  ASSERT_FALSE(m.empty());
  for (std::size_t i = 0; i < m.size(); ++i) EXPECT_EQ(m[i].version, static_cast<int>(i) + 1);
}

TEST(SqliteStore, RefusesADatabaseFromANewerBuild) {
  TempDir dir;
  const std::string path = dir.path() + "/" + SqliteStore::kFileName;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  raw_exec(db, "PRAGMA user_version = 999");
  sqlite3_close(db);
  auto s = SqliteStore::open(dir.path());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, ErrorReason::store);
  EXPECT_NE(s.error().message.find("999"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find(path), std::string::npos) << s.error().message;
}

TEST(SqliteStore, OpenFailsWithContextWhenTheStateDirIsAFile) {
  TempDir dir;
  const std::string file = dir.path() + "/not-a-dir";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  auto s = SqliteStore::open(file);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(file), std::string::npos) << s.error().message;
}

TEST(SqliteStore, KeepsCountersAbove64BitsExactAcrossReopen) {
  TempDir dir;
  const u128 huge = (u128{1} << 100) + 12345;
  {
    auto store = open_store(dir.path());
    SampleRecord s = sample_at(kT0, huge);
    s.power_on_hours = (u128{1} << 64) + 1;
    s.media_bytes_written = huge * 3;
    ASSERT_TRUE(store->commit({kDrive, {s}, {}, {}}));
  }
  auto store = open_store(dir.path());
  auto last = store->last_sample(kDrive);
  ASSERT_TRUE(last && *last);
  EXPECT_EQ((*last)->data_units_written, huge);
  EXPECT_EQ((*last)->power_on_hours, (u128{1} << 64) + 1);
  EXPECT_EQ(*(*last)->media_bytes_written, huge * 3);
  EXPECT_EQ((*last)->time, kT0);
}

TEST(SqliteStore, UpsertsEventsByStartAndTracksOpenState) {
  TempDir dir;
  auto store = open_store(dir.path());
  ThermalEventRecord e{kT0, std::nullopt, 70.0, {"tmt1"}, 1};
  ASSERT_TRUE(store->commit({kDrive, {}, {e}, {}}));
  e.end = kT0 + 30s;
  e.peak_celsius = 75.0;
  e.sources = {"tmt1", "ocp"};
  e.level = 2;
  ASSERT_TRUE(store->commit({kDrive, {}, {e}, {}}));
  auto ev = store->events(kDrive, WallTime{});
  ASSERT_TRUE(ev);
  ASSERT_EQ(ev->size(), 1u);
  EXPECT_EQ(*(*ev)[0].end, kT0 + 30s);
  EXPECT_EQ((*ev)[0].sources, (std::vector<std::string>{"tmt1", "ocp"}));
  EXPECT_EQ((*ev)[0].level, 2);
  EXPECT_DOUBLE_EQ((*ev)[0].peak_celsius, 75.0);
}

TEST(SqliteStore, FirstSampleSinceHonoursTheSegment) {
  TempDir dir;
  auto store = open_store(dir.path());
  ASSERT_TRUE(store->commit(
      {kDrive,
       {sample_at(kT0, 100), sample_at(kT0 + 10s, 110), sample_at(kT0 + 20s, 5, 1), sample_at(kT0 + 30s, 8, 1)},
       {},
       {}}));
  const std::array<WallTime, 2> since{kT0, kT0 + 25s};
  auto first = store->first_samples_since(kDrive, 1, since);
  ASSERT_TRUE(first && first->size() == 2 && (*first)[0] && (*first)[1]);
  EXPECT_EQ((*first)[0]->time, kT0 + 20s);
  EXPECT_EQ((*first)[1]->time, kT0 + 30s);
  auto none = store->first_samples_since(DriveKey{"other", "x"}, 0, since);
  ASSERT_TRUE(none && none->size() == 2);
  EXPECT_FALSE((*none)[0] || (*none)[1]);
}

TEST(SqliteStore, DownsamplesToTheLastSampleOfEachHourAndSegment) {
  TempDir dir;
  auto store = open_store(dir.path());
  const WallTime hour0 = kT0;  // kT0 is a whole hour
  std::vector<SampleRecord> s;
  for (int i = 0; i < 360; ++i) s.push_back(sample_at(hour0 + i * 10s, static_cast<u128>(i)));  // hour 0
  // Hour 1: a reset at 1h30m starts segment 1.
  for (int i = 0; i < 180; ++i) s.push_back(sample_at(hour0 + 1h + i * 10s, static_cast<u128>(1000 + i)));
  for (int i = 0; i < 180; ++i) s.push_back(sample_at(hour0 + 90min + i * 10s, static_cast<u128>(i), 1));
  ASSERT_TRUE(store->commit({kDrive, s, {}, {}}));

  RetentionPolicy policy{std::chrono::hours(24), std::chrono::hours(24 * 30)};
  auto stats = store->compact(hour0 + 2h + 24h, policy);
  ASSERT_TRUE(stats) << stats.error().message;
  auto left = store->samples(kDrive, WallTime{}, hour0 + 100h);
  ASSERT_TRUE(left);
  ASSERT_EQ(left->size(), 3u);
  EXPECT_EQ((*left)[0].time, hour0 + 3590s);
  EXPECT_EQ((*left)[0].data_units_written, u128{359});
  EXPECT_EQ((*left)[1].time, hour0 + 1h + 1790s);
  EXPECT_EQ((*left)[1].segment, 0);
  EXPECT_EQ((*left)[2].time, hour0 + 90min + 1790s);
  EXPECT_EQ((*left)[2].segment, 1);
  EXPECT_EQ(stats->downsampled, static_cast<std::int64_t>(s.size()) - 3);

  // Idempotent; then everything expires past the hourly retention.
  auto again = store->compact(hour0 + 2h + 24h, policy);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->downsampled, 0);
  auto expired = store->compact(hour0 + 24h * 31 + 3h, policy);
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->expired, 3);
}

// Loads `days` of 10 s polls of one drive, `per_commit` days per
// transaction, compacting after each as the daemon would (it compacts
// hourly; the result is the same).
void load_ten_second_polls(SqliteStore& store, int first_day, int days, const RetentionPolicy& policy,
                           int per_commit = 1) {
  constexpr int kPerDay = 8640;
  for (int day = first_day; day < first_day + days; day += per_commit) {
    const int end = std::min(day + per_commit, first_day + days);
    PollRecord rec{kDrive, {}, {}, {}};
    rec.samples.reserve(static_cast<std::size_t>(kPerDay * (end - day)));
    for (int d = day; d < end; ++d) {
      for (int i = 0; i < kPerDay; ++i) {
        const u128 written = (u128{1} << 40) + 3 * static_cast<u128>(d * kPerDay + i);
        SampleRecord s = sample_at(kT0 + std::chrono::hours(24 * d) + i * 10s, written);
        s.power_on_hours = static_cast<u128>(d * 24 + i / 360);
        s.composite_temperature_k = 315;
        rec.samples.push_back(s);
      }
    }
    ASSERT_TRUE(store.commit(rec));
    ASSERT_TRUE(store.compact(kT0 + std::chrono::hours(24 * end), policy));
  }
}

std::unique_ptr<SqliteStore> bulk_store(const std::string& dir) {
  SqliteOptions bulk;
  bulk.synchronous_full = false;  // synthetic bulk load; durability is not under test
  return open_store(dir, bulk);
}

// Steady state of the default retention (7 d raw, then hourly): after the raw
// window fills, the table grows by exactly 24 rows a day, so a year is
// 7 × 8640 + 358 × 24 = 69 072 rows. The full year (below)
// measured 69 072 rows, 2.6 MB in use, 37 B/row: about 165 MB for 64 drives,
// nearly all of it the 7 days of raw samples.
TEST(SqliteStore, TenSecondPollsReachASteadyStateOfRawWeekPlusHourly) {
  TempDir dir;
  auto store = bulk_store(dir.path());
  const RetentionPolicy policy;
  constexpr int kPerDay = 8640;
  load_ten_second_polls(*store, 0, 9, policy);
  auto nine = store->stats();
  ASSERT_TRUE(nine);
  load_ten_second_polls(*store, 9, 2, policy);
  auto eleven = store->stats();
  ASSERT_TRUE(eleven);
  EXPECT_EQ(nine->samples, 7 * kPerDay + 2 * 24);
  EXPECT_EQ(eleven->samples - nine->samples, 2 * 24);
  const double per_row = static_cast<double>(eleven->used_bytes) / static_cast<double>(eleven->samples);
  EXPECT_LT(per_row, 64.0) << "sample rows grew: check the schema";
  const double year_rows = 7.0 * kPerDay + 358.0 * 24;
  std::printf("steady state: %.1f B/row; a year of 10 s polls ≈ %.0f rows ≈ %.1f MB per drive, %.0f MB for 64\n",
              per_row, year_rows, year_rows * per_row / 1e6, 64 * year_rows * per_row / 1e6);
}

// The literal year: 3.15 million polls of one drive through the store, a
// week per transaction, compacted after each week (the result is the daily
// compaction's: raw samples of the last 7 days, hourly ones before). The
// file stays within the per-drive budget docs/performance.md states for
// 10 s polls.
TEST(SqliteStore, AYearOfTenSecondPollsStaysSmall) {
#if defined(__SANITIZE_ADDRESS__)
  // A size budget, the same under the sanitizers, where a year of polls
  // takes 75 s of CI's 30 minutes; the store's code paths it runs have
  // sanitized tests of their own.
  GTEST_SKIP() << "the plain build's tier runs it";
#endif
  constexpr std::int64_t kBudgetBytes = 3'000'000;  // docs/performance.md: "3 MB per drive"
  TempDir dir;
  auto store = bulk_store(dir.path());
  load_ten_second_polls(*store, 0, 365, RetentionPolicy{}, 7);
  auto st = store->stats();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->samples, 7 * 8640 + 358 * 24);
  EXPECT_LE(st->used_bytes, kBudgetBytes);
  const double bytes = static_cast<double>(st->used_bytes);
  std::printf("year of 10 s polls: %lld rows, %.1f MB in use (%.1f B/row); 64 drives ≈ %.0f MB\n",
              static_cast<long long>(st->samples), bytes / 1e6, bytes / static_cast<double>(st->samples),
              64 * bytes / 1e6);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
