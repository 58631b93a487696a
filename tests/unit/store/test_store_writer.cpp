// The history writer over a real SQLite file while a second, real connection
// holds the write lock: polls queue and read back at once, land when the lock
// goes, share one transaction, and a stop never waits past its timeout.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <memory>
#include <thread>

#include "store/sqlite_store.hpp"
#include "store/store_writer.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/write_lock.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

WallTime at(int seconds) { return WallTime{} + std::chrono::seconds(1'800'000'000 + seconds); }

PollRecord poll(const std::string& serial, int seconds, const std::string& thermal = "{}") {
  PollRecord r;
  r.drive = {serial, "Model"};
  SampleRecord s;
  s.time = at(seconds);
  s.data_units_written = static_cast<u128>(seconds);
  r.samples.push_back(s);
  r.state.emplace_back("thermal", thermal);
  return r;
}

struct Fixture {
  test::TempDir dir{"nvmond-writer"};
  std::string db = (std::filesystem::path(dir.path()) / SqliteStore::kFileName).string();

  // The writer waits a minute on a lock (longer than any test), readers not at all.
  std::shared_ptr<Store> open(std::chrono::milliseconds busy) {
    auto s = SqliteStore::open_file(db, SqliteOptions{.synchronous_full = false, .busy_timeout = busy});
    if (!s) throw std::runtime_error(s.error().message);
    return std::shared_ptr<Store>(std::move(*s));
  }
  std::unique_ptr<StoreWriter> writer(StoreWriterOptions options = {.group_interval = 0ms}) {
    return std::make_unique<StoreWriter>(open(60s), open(0ms), options);
  }
  long long samples_on_disk() const { return test::count_rows(db, "SELECT count(*) FROM samples"); }
};

TEST(StoreWriter, APollQueuedBehindAnotherProgramsWriteLockIsReadBackAtOnce) {
  Fixture f;
  auto w = f.writer();
  ASSERT_TRUE(w->commit(poll("SN-A", 0, "old")));
  ASSERT_EQ(w->stop(10s), 0u);
  w = f.writer();

  test::WriteLockHolder other(f.db);
  ASSERT_TRUE(w->commit(poll("SN-A", 10, "new")));

  auto last = w->last_sample({"SN-A", "Model"});
  ASSERT_TRUE(last && *last);
  EXPECT_EQ((*last)->time, at(10));
  auto state = w->state({"SN-A", "Model"}, "thermal");
  ASSERT_TRUE(state && *state);
  EXPECT_EQ(**state, "new");
  const std::array<WallTime, 3> since{at(5), at(0), at(11)};
  auto first = w->first_samples_since({"SN-A", "Model"}, 0, since);
  ASSERT_TRUE(first && first->size() == 3);
  ASSERT_TRUE((*first)[0]) << "the queued sample is the oldest since 5 s";
  EXPECT_EQ((*first)[0]->time, at(10));
  ASSERT_TRUE((*first)[1]);
  EXPECT_EQ((*first)[1]->time, at(0)) << "the stored one is older than anything queued";
  EXPECT_FALSE((*first)[2]) << "nothing stored or queued since 11 s";
  auto all = w->samples({"SN-A", "Model"}, at(0), at(60));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 2u);
  EXPECT_EQ(w->counters().queued, 1u);
  EXPECT_EQ(f.samples_on_disk(), 1);
  other.release();
  EXPECT_EQ(w->stop(10s), 0u);
  EXPECT_EQ(f.samples_on_disk(), 2);
}

TEST(StoreWriter, QueuedPollsLandOnceTheLockIsReleased) {
  Fixture f;
  auto w = f.writer();
  test::WriteLockHolder other(f.db);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(w->commit(poll("SN-A", i * 10)));
  EXPECT_EQ(f.samples_on_disk(), 0);
  other.release();
  EXPECT_EQ(w->stop(10s), 0u);
  EXPECT_EQ(f.samples_on_disk(), 3);
  EXPECT_EQ(w->counters().written, 3u);
  EXPECT_EQ(w->counters().dropped, 0u);
}

TEST(StoreWriter, EveryPollQueuedWithinTheGroupIntervalIsCommittedInOneTransaction) {
  Fixture f;
  auto w = f.writer({.group_interval = 1h});
  for (const char* serial : {"SN-A", "SN-B", "SN-C"}) ASSERT_TRUE(w->commit(poll(serial, 0)));
  EXPECT_EQ(w->stop(10s), 0u);
  EXPECT_EQ(w->counters().batches, 1u);
  EXPECT_EQ(w->counters().written, 3u);
  EXPECT_EQ(f.samples_on_disk(), 3);
}

TEST(StoreWriter, APollThatFindsTheQueueFullIsDroppedCountedAndNothingQueuedIsLost) {
  Fixture f;
  auto w = f.writer({.max_queued = 2, .group_interval = 0ms});
  test::WriteLockHolder other(f.db);
  ASSERT_TRUE(w->commit(poll("SN-A", 0)));
  ASSERT_TRUE(w->commit(poll("SN-A", 10)));
  auto third = w->commit(poll("SN-A", 20));
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().reason, ErrorReason::full);
  EXPECT_EQ(w->counters().dropped, 1u);
  other.release();
  EXPECT_EQ(w->stop(10s), 0u);
  EXPECT_EQ(f.samples_on_disk(), 2);
  EXPECT_EQ(w->counters().written, 2u);
}

TEST(StoreWriter, StopGivesUpOnAWriterStuckBehindTheLockAndCountsWhatItLeft) {
  Fixture f;
  std::shared_ptr<Store> writes = f.open(60s);
  const std::weak_ptr<Store> writer_store = writes;
  auto w = std::make_unique<StoreWriter>(std::move(writes), f.open(0ms), StoreWriterOptions{.group_interval = 0ms});
  {
    test::WriteLockHolder other(f.db);
    ASSERT_TRUE(w->commit(poll("SN-A", 0)));
    ASSERT_TRUE(w->commit(poll("SN-B", 0)));
    // The writer waits a minute on the lock; stop() waits 100 ms.
    EXPECT_EQ(w->stop(100ms), 2u);
    EXPECT_EQ(w->counters().dropped, 2u);
    auto after = w->commit(poll("SN-A", 10));
    ASSERT_FALSE(after);
    EXPECT_EQ(after.error().reason, ErrorReason::stopped);
    w.reset();
  }
  // With the lock gone the abandoned commit returns and the writer lets go
  // of its store. The test waits for that: a writer still running when the
  // process exits would use objects its exit has destroyed (the daemon
  // leaves through _exit when a writer is abandoned; a test cannot).
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!writer_store.expired() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(writer_store.expired());
}

TEST(StoreWriter, CompactionIsHandedToTheWriterAndReturnsAtOnceWhileTheDatabaseIsLocked) {
  Fixture f;
  auto w = f.writer();
  ASSERT_TRUE(w->commit(poll("SN-A", 0)));
  test::WriteLockHolder other(f.db);
  // Run here, it would wait a minute on the lock and then fail "locked".
  auto r = w->compact(at(3600), RetentionPolicy{});
  ASSERT_TRUE(r) << r.error().message;
  other.release();
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
