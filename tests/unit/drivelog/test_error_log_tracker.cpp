// Error Information log entries are read only when SMART's count moves,
// counted once each for the drive's life: across restarts (the stored
// count), a drive reset or wrap (count backwards), and more new errors than
// the log keeps. Driven as the poller drives it, over a fake controller and
// the real SQLite history.
#include <gtest/gtest.h>

#include "tests/support/fake_controller.hpp"
#include "tests/support/temp_dir.hpp"

#include <memory>

#include "drivelog/error_log_tracker.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::size_t kMedia = static_cast<std::size_t>(ErrorStatusClass::media);
constexpr std::size_t kHost = static_cast<std::size_t>(ErrorStatusClass::generic_host);
constexpr std::size_t kPath = static_cast<std::size_t>(ErrorStatusClass::path);

ErrorLogEntry entry(std::uint64_t count, unsigned sct, unsigned sc) {
  ErrorLogEntry e;
  e.error_count = count;
  e.status = static_cast<std::uint16_t>((sc << 1) | (sct << 9));
  e.lba = count * 8;
  e.nsid = 1;
  return e;
}

class ErrorLogTrackerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(dir_.path());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(*opened);
    script_->identity.serial = "SNERR";
    script_->identity.model = "FAKE";
    restart();
  }
  // A daemon restart: a fresh tracker, and a poller that knows nothing yet.
  void restart() {
    tracker_ = std::make_unique<ErrorLogTracker>(*store_);
    seen_.reset();
  }
  // The drive logs `n` new errors of one status (newest first, keeping the
  // log's capacity), and SMART counts them.
  void drive_logs(int n, unsigned sct, unsigned sc, std::size_t capacity = 64) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t count = static_cast<std::uint64_t>(script_->smart.error_log_entries) + 1;
      script_->smart.error_log_entries = count;
      script_->error_log.insert(script_->error_log.begin(), entry(count, sct, sc));
      if (script_->error_log.size() > capacity) script_->error_log.pop_back();
    }
  }
  // One poll, as DevicePoller's worker and Fleet's observer do it.
  ErrorLogTracker::Update poll() {
    test::FakeController dev(script_);
    HealthSnapshot snap;
    snap.smart = *dev.read_smart();
    if (should_read_error_log(snap.smart.error_log_entries, seen_)) snap.error_log = *dev.read_error_log();
    auto update = tracker_->update(DriveKey{"SNERR", "FAKE"}, snap);
    seen_ = tracker_->seen();
    return update;
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  std::shared_ptr<test::ControllerScript> script_ = std::make_shared<test::ControllerScript>();
  std::unique_ptr<ErrorLogTracker> tracker_;
  std::optional<std::uint64_t> seen_;
};

TEST_F(ErrorLogTrackerTest, ReadsOnlyWhenTheCountRisesAndCountsEachEntryOnce) {
  EXPECT_TRUE(poll().fresh.empty());  // first poll: the stored state is read, the log is not
  EXPECT_TRUE(poll().fresh.empty());
  EXPECT_EQ(script_->error_log_reads, 0);  // no errors: never read
  drive_logs(2, 2, 0x81);
  drive_logs(1, 0, 0x02);
  const auto u = poll();
  EXPECT_EQ(script_->error_log_reads, 1);
  ASSERT_EQ(u.fresh.size(), 3u);
  EXPECT_EQ(u.fresh.front().error_count, 1u);  // oldest first
  EXPECT_EQ(tracker_->counts()[kMedia], 2u);
  EXPECT_EQ(tracker_->counts()[kHost], 1u);
  EXPECT_TRUE(poll().fresh.empty());
  EXPECT_EQ(script_->error_log_reads, 1);  // nothing new: not read again
  drive_logs(1, 3, 0x02);
  EXPECT_EQ(poll().fresh.size(), 1u);
  EXPECT_EQ(tracker_->counts()[kPath], 1u);
  EXPECT_EQ(tracker_->counts()[kMedia], 2u);
}

TEST_F(ErrorLogTrackerTest, ARestartRecountsNothing) {
  poll();
  drive_logs(5, 2, 0x81);
  EXPECT_EQ(poll().fresh.size(), 5u);
  restart();
  EXPECT_TRUE(poll().fresh.empty());
  EXPECT_TRUE(poll().fresh.empty());
  EXPECT_EQ(script_->error_log_reads, 1);     // the stored count matched SMART's: no read at all
  EXPECT_EQ(tracker_->counts()[kMedia], 5u);  // the totals came back with it
  drive_logs(1, 2, 0x81);
  restart();
  poll();
  EXPECT_EQ(poll().fresh.size(), 1u);  // only the one logged while the daemon was down
  EXPECT_EQ(tracker_->counts()[kMedia], 6u);
}

TEST_F(ErrorLogTrackerTest, MoreNewErrorsThanTheLogHoldsCountsWhatItHolds) {
  poll();
  drive_logs(100, 2, 0x81, /*capacity=*/16);
  const auto u = poll();
  EXPECT_EQ(u.fresh.size(), 16u);  // the drive dropped the other 84
  EXPECT_EQ(u.fresh.front().error_count, 85u);
  EXPECT_EQ(tracker_->seen(), 100u);
  drive_logs(3, 2, 0x81, 16);
  EXPECT_EQ(poll().fresh.size(), 3u);  // and the 13 still in the log are not counted again
  EXPECT_EQ(tracker_->counts()[kMedia], 19u);
}

TEST_F(ErrorLogTrackerTest, ACountThatWentBackwardsTakesTheLogAsNew) {
  poll();
  drive_logs(10, 0, 0x01);
  poll();
  EXPECT_EQ(tracker_->counts()[kHost], 10u);
  // A reset (or a wrap past FFFFFFFFh to 1): the drive starts counting again.
  script_->smart.error_log_entries = 0;
  script_->error_log.clear();
  drive_logs(2, 2, 0x81);
  const auto u = poll();
  EXPECT_TRUE(u.reset);
  EXPECT_EQ(u.fresh.size(), 2u);
  EXPECT_EQ(tracker_->counts()[kMedia], 2u);
  EXPECT_EQ(tracker_->counts()[kHost], 10u);  // totals never go backwards
  EXPECT_EQ(tracker_->seen(), 2u);
  EXPECT_TRUE(poll().fresh.empty());
}

TEST_F(ErrorLogTrackerTest, ADriveSeenForTheFirstTimeCountsWhatItsLogHolds) {
  drive_logs(4, 2, 0x81);
  EXPECT_TRUE(poll().fresh.empty());  // the first poll learns there is no stored state
  EXPECT_EQ(poll().fresh.size(), 4u);
}

TEST(ErrorLogState, RoundTripsAndRejectsWhatItDidNotWrite) {
  ErrorClassCounts counts{1, 2, 3, 4, 5, 6, 7};
  const auto text = encode_error_log_state(42, counts);
  const auto back = decode_error_log_state(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->first, 42u);
  EXPECT_EQ(back->second, counts);
  EXPECT_FALSE(decode_error_log_state("").has_value());
  EXPECT_FALSE(decode_error_log_state("42 1 2").has_value());
  EXPECT_FALSE(decode_error_log_state(text + " 8").has_value());
  EXPECT_FALSE(decode_error_log_state("x 1 2 3 4 5 6 7").has_value());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
