// HistoryCompaction: the history is compacted once per hour of the daemon's
// clock, on a real SQLite store, fired by advancing a ManualClock (no sleeps).
#include "daemon/history_compaction.hpp"

#include <gtest/gtest.h>

#include "store/sqlite_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

const DriveKey kDrive{"SN1", "Model A"};
const WallTime kHour0 = WallTime{} + std::chrono::hours(24 * 365 * 54);  // a whole hour

// Three raw samples in the hour starting at `hour`.
void commit_hour(Store& store, WallTime hour) {
  PollRecord rec{kDrive, {}, {}, {}};
  for (int i = 0; i < 3; ++i) {
    SampleRecord s;
    s.time = hour + i * 10s;
    s.data_units_written = static_cast<u128>(i);
    rec.samples.push_back(s);
  }
  ASSERT_TRUE(store.commit(rec));
}

std::size_t stored_samples(Store& store) {
  auto s = store.samples(kDrive, WallTime{}, WallTime::max());
  EXPECT_TRUE(s) << s.error().message;
  return s ? s->size() : 0;
}

TEST(HistoryCompaction, CompactsOncePerClockHourWithTheRetentionOfTheDay) {
  test::TempDir dir;
  auto opened = SqliteStore::open(dir.path());
  ASSERT_TRUE(opened) << opened.error().message;
  Store& store = **opened;
  ManualClock clock(kHour0 + 4h);
  RetentionPolicy retention{1h, std::chrono::hours(24 * 30)};
  commit_hour(store, kHour0);

  boost::asio::io_context io;
  HistoryCompaction compaction(io, clock, store, retention);
  compaction.start();
  EXPECT_EQ(clock.armed_timers(), 1u);
  clock.advance(1h - 1ns);
  io.poll();
  EXPECT_EQ(stored_samples(store), 3u);  // not an hour yet
  clock.advance(1ns);
  io.poll();
  EXPECT_EQ(stored_samples(store), 1u);  // the last sample of its hour
  EXPECT_EQ(clock.armed_timers(), 1u);   // and again in an hour

  // A reload that keeps raw samples a day applies from the next run: the
  // next hour's samples are then too young to fold.
  retention.raw = 24h;
  commit_hour(store, kHour0 + 1h);
  clock.advance(1h);
  io.poll();
  EXPECT_EQ(stored_samples(store), 4u);
  retention.raw = 1h;
  clock.advance(1h);
  io.poll();
  EXPECT_EQ(stored_samples(store), 2u);

  compaction.stop();
  EXPECT_EQ(clock.armed_timers(), 0u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
