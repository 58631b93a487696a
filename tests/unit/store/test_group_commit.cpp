// Group commit, counted where it matters: the transactions the history
// writer hands to the Store behind it. A tick's polls of every drive share
// one; a batch the store refuses is never silently lost.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "store/sqlite_store.hpp"
#include "store/store_writer.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/write_lock.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

WallTime at(int seconds) { return WallTime{} + std::chrono::seconds(1'800'000'000 + seconds); }

// What one drive's poll hands the writer: the analytics' record (sample,
// thermal event, detector state) and the error log tracker's (state only).
std::vector<PollRecord> drive_poll(const std::string& serial, int seconds) {
  PollRecord analytics;
  analytics.drive = {serial, "Model"};
  SampleRecord s;
  s.time = at(seconds);
  s.data_units_written = static_cast<u128>(seconds);
  analytics.samples.push_back(s);
  ThermalEventRecord e;
  e.start = at(seconds);
  e.peak_celsius = 80;
  e.sources = {"tmt1"};
  e.level = 1;
  analytics.events.push_back(e);
  analytics.state.emplace_back("thermal", "{}");
  PollRecord errors;
  errors.drive = analytics.drive;
  errors.state.emplace_back("error_log", "{}");
  return {analytics, errors};
}

// The Store behind the writer: counts every write call that reaches it and
// refuses them while `failing`.
class CountingStore final : public Store {
 public:
  explicit CountingStore(std::shared_ptr<Store> inner) : inner_(std::move(inner)) {}

  StoreStatus commit(const PollRecord& record) override {
    note(1, false);
    return failing_ ? refused() : inner_->commit(record);
  }
  StoreStatus commit_all(const std::vector<PollRecord>& records) override {
    note(records.size(), true);
    return failing_ ? refused() : inner_->commit_all(records);
  }
  Result<std::optional<SampleRecord>> last_sample(const DriveKey& d) override { return inner_->last_sample(d); }
  Result<std::optional<WallTime>> latest_sample_time() override { return inner_->latest_sample_time(); }
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey& d, std::int64_t seg,
                                                                       std::span<const WallTime> since) override {
    return inner_->first_samples_since(d, seg, since);
  }
  Result<std::vector<SampleRecord>> samples(const DriveKey& d, WallTime from, WallTime to) override {
    return inner_->samples(d, from, to);
  }
  Result<std::vector<ThermalEventRecord>> events(const DriveKey& d, WallTime since) override {
    return inner_->events(d, since);
  }
  Result<std::optional<std::string>> state(const DriveKey& d, std::string_view key) override {
    return inner_->state(d, key);
  }
  Result<CompactionStats> compact(WallTime now, const RetentionPolicy& p) override { return inner_->compact(now, p); }
  Result<StoreStats> stats() override { return inner_->stats(); }

  void set_failing(bool failing) { failing_ = failing; }
  // Waits (bounded) until `n` write calls have reached the store.
  bool wait_for_calls(std::size_t n) {
    std::unique_lock lock(mu_);
    return called_.wait_for(lock, 10s, [&] { return single_ + batches_.size() >= n; });
  }
  std::size_t single_commits() {
    std::lock_guard lock(mu_);
    return single_;
  }
  std::vector<std::size_t> batches() {
    std::lock_guard lock(mu_);
    return batches_;
  }

 private:
  static StoreStatus refused() { return Error{ErrorReason::io, "committing history: disk I/O error"}; }
  void note(std::size_t records, bool batch) {
    std::lock_guard lock(mu_);
    if (batch) batches_.push_back(records);
    else ++single_;
    called_.notify_all();
  }

  std::shared_ptr<Store> inner_;
  std::atomic<bool> failing_{false};
  std::mutex mu_;
  std::condition_variable called_;
  std::size_t single_ = 0;
  std::vector<std::size_t> batches_;  // records per commit_all, in call order
};

struct Fixture {
  test::TempDir dir{"nvmond-group-commit"};
  std::string db = (std::filesystem::path(dir.path()) / SqliteStore::kFileName).string();
  std::shared_ptr<CountingStore> store;

  Fixture() {
    auto s = SqliteStore::open_file(db, SqliteOptions{.synchronous_full = false});
    if (!s) throw std::runtime_error(s.error().message);
    store = std::make_shared<CountingStore>(std::shared_ptr<Store>(std::move(*s)));
  }
  std::unique_ptr<StoreWriter> writer(StoreWriterOptions options) {
    return std::make_unique<StoreWriter>(store, store, options);
  }
  long long rows(const char* table) const {
    return test::count_rows(db, (std::string("SELECT count(*) FROM ") + table).c_str());
  }
};

TEST(GroupCommit, SixtyFourDrivesPolledInOneTickReachTheStoreAsOneTransaction) {
  constexpr int kDrives = 64;
  Fixture f;
  auto w = f.writer({.group_interval = 1h});
  // Each drive from its own thread, as the pollers hand them over.
  std::vector<std::thread> pollers;
  for (int d = 0; d < kDrives; ++d) {
    pollers.emplace_back([&w, d] { ASSERT_TRUE(w->commit_all(drive_poll("SN-" + std::to_string(d), 0))); });
  }
  for (auto& t : pollers) t.join();
  ASSERT_EQ(w->stop(10s), 0u);
  EXPECT_EQ(f.store->single_commits(), 0u);
  EXPECT_EQ(f.store->batches(), std::vector<std::size_t>{2 * kDrives}) << "one transaction, every record of the tick";
  EXPECT_EQ(f.rows("samples"), kDrives);
  EXPECT_EQ(f.rows("thermal_events"), kDrives);
  EXPECT_EQ(f.rows("drive_state"), 2 * kDrives);
}

// The writer's timing rule, on plain time points: ticks of N drives whose
// polls finish up to 400 ms into the tick, every second.
TEST(GroupCommit, EachTicksPollsShareOneBatchAndBatchesAreAnIntervalApart) {
  const Steady::time_point t0{};
  const std::chrono::milliseconds interval = 1s;
  std::vector<std::pair<Steady::time_point, int>> arrivals;  // (time, tick)
  for (int tick = 0; tick < 5; ++tick) {
    for (int drive = 0; drive < 8; ++drive) arrivals.emplace_back(t0 + tick * 1s + drive * 50ms, tick);
  }
  std::optional<Steady::time_point> last_batch;
  std::vector<std::vector<int>> batches;  // the ticks of each batch's polls
  for (std::size_t next = 0; next < arrivals.size();) {
    const Steady::time_point due = group_commit_due(arrivals[next].first, last_batch, interval);
    batches.emplace_back();
    for (; next < arrivals.size() && arrivals[next].first <= due; ++next)
      batches.back().push_back(arrivals[next].second);
    if (last_batch) {
      EXPECT_GE(due - *last_batch, interval) << "one batch per tick";
    }
    last_batch = due;
  }
  ASSERT_EQ(batches.size(), 5u);
  for (int tick = 0; tick < 5; ++tick) EXPECT_EQ(batches[tick], std::vector<int>(8, tick)) << "batch " << tick;
}

// A host too loaded to finish a tick's polls in half an interval: polls
// arrive all through every interval. No poll waits more than half an
// interval for its batch (so it is on disk before its drive's next poll),
// and batches are never closer than half an interval. With batches an
// interval apart, the polls just after each batch waited a whole interval.
TEST(GroupCommit, PollsArrivingAllThroughTheIntervalWaitAtMostHalfOfItAndBatchesStayHalfApart) {
  const Steady::time_point t0{};
  const std::chrono::milliseconds interval = 1s;
  std::vector<Steady::time_point> arrivals;
  for (int i = 0; i < 400; ++i) arrivals.push_back(t0 + i * 37ms);  // ~27 a second, at every phase
  std::optional<Steady::time_point> last_batch;
  std::chrono::nanoseconds longest_wait{0};
  int batches = 0;
  for (std::size_t next = 0; next < arrivals.size();) {
    const Steady::time_point due = group_commit_due(arrivals[next], last_batch, interval);
    if (last_batch) {
      EXPECT_GE(due - *last_batch, interval / 2);
    }
    for (; next < arrivals.size() && arrivals[next] <= due; ++next)
      longest_wait = std::max(longest_wait, due - arrivals[next]);
    last_batch = due;
    ++batches;
  }
  EXPECT_LE(longest_wait, interval / 2);
  EXPECT_LE(batches, 2 * (400 * 37 / 1000 + 1)) << "at most two batches per interval";
}

TEST(GroupCommit, TheFirstPollAfterAQuietSpellWaitsHalfAnIntervalAndABatchNeverFollowsTheLastSooner) {
  const Steady::time_point t{std::chrono::hours(1)};
  EXPECT_EQ(group_commit_due(t, std::nullopt, 1000ms), t + 500ms);
  EXPECT_EQ(group_commit_due(t, t - 10s, 1000ms), t + 500ms);
  EXPECT_EQ(group_commit_due(t, t - 200ms, 1000ms), t + 500ms);
  EXPECT_EQ(group_commit_due(t + 100ms, t + 10ms, 1000ms), t + 600ms) << "half an interval after its first poll";
  EXPECT_EQ(group_commit_due(t - 300ms, t, 1000ms), t + 500ms) << "half an interval after the last batch";
  EXPECT_EQ(group_commit_due(t, t, 0ms), t) << "no interval: at once";
}

TEST(GroupCommit, ABatchTheStoreRefusesStaysQueuedAndLandsWhenTheStoreTakesItAgain) {
  Fixture f;
  f.store->set_failing(true);
  auto w = f.writer({.group_interval = 0ms, .retry_interval = 10ms});
  for (const char* serial : {"SN-A", "SN-B", "SN-C"}) ASSERT_TRUE(w->commit_all(drive_poll(serial, 0)));
  ASSERT_TRUE(f.store->wait_for_calls(1));
  EXPECT_EQ(w->counters().written, 0u);
  EXPECT_EQ(w->counters().dropped, 0u);
  f.store->set_failing(false);
  EXPECT_EQ(w->stop(10s), 0u);
  EXPECT_EQ(w->counters().written, 6u);
  EXPECT_EQ(w->counters().dropped, 0u);
  EXPECT_EQ(f.rows("samples"), 3);
}

// nvmond_store_dropped_writes_total is these counters (Daemon::publish_store_metrics).
TEST(GroupCommit, PollsOfAFailedFlushThatNeverLandAreCountedAsDroppedOneForOne) {
  Fixture f;
  f.store->set_failing(true);
  auto w = f.writer({.group_interval = 0ms, .retry_interval = 1h});
  for (const char* serial : {"SN-A", "SN-B", "SN-C"}) ASSERT_TRUE(w->commit_all(drive_poll(serial, 0)));
  ASSERT_TRUE(f.store->wait_for_calls(1));
  EXPECT_EQ(w->counters().queued, 6u) << "refused, not forgotten";
  EXPECT_EQ(w->stop(100ms), 6u);
  const StoreWriterCounters c = w->counters();
  EXPECT_EQ(c.dropped, 6u);
  EXPECT_EQ(c.written, 0u);
  EXPECT_EQ(c.queued, 0u);
  EXPECT_EQ(f.rows("samples"), 0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
