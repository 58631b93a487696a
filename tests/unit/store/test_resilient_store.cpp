// The resilient store's state machine on a fake backend and a manual clock:
// failures are counted by reason, the store is retried only after a backoff
// that doubles up to a ceiling, a corrupt store is set aside (once) and a
// fresh one opened at once, and calls go through again when the cause is gone.
#include <gtest/gtest.h>

#include "store/resilient_store.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

// What the fake filesystem is doing right now; shared by the backend and the
// stores it opened.
struct World {
  std::optional<Error> open_fault;
  std::optional<Error> op_fault;
  int opens = 0;
  int set_asides = 0;
  int commits = 0;  // commits that landed
};

class FakeStore final : public Store {
 public:
  explicit FakeStore(World& w) : w_(w) {}
  StoreStatus commit(const PollRecord&) override {
    if (w_.op_fault) return *w_.op_fault;
    ++w_.commits;
    return std::monostate{};
  }
  Result<std::optional<SampleRecord>> last_sample(const DriveKey&) override {
    return answer<std::optional<SampleRecord>>();
  }
  Result<std::optional<WallTime>> latest_sample_time() override { return answer<std::optional<WallTime>>(); }
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey&, std::int64_t,
                                                                       std::span<const WallTime>) override {
    return answer<std::vector<std::optional<SampleRecord>>>();
  }
  Result<std::vector<SampleRecord>> samples(const DriveKey&, WallTime, WallTime) override {
    return answer<std::vector<SampleRecord>>();
  }
  Result<std::vector<ThermalEventRecord>> events(const DriveKey&, WallTime) override {
    return answer<std::vector<ThermalEventRecord>>();
  }
  Result<std::optional<std::string>> state(const DriveKey&, std::string_view) override {
    return answer<std::optional<std::string>>();
  }
  Result<CompactionStats> compact(WallTime, const RetentionPolicy&) override { return answer<CompactionStats>(); }
  Result<StoreStats> stats() override { return answer<StoreStats>(); }

 private:
  template <typename T>
  Result<T> answer() {
    if (w_.op_fault) return *w_.op_fault;
    return T{};
  }
  World& w_;
};

class FakeBackend final : public StoreBackend {
 public:
  explicit FakeBackend(World& w) : w_(w) {}
  Result<std::unique_ptr<Store>> open() override {
    ++w_.opens;
    if (w_.open_fault) return *w_.open_fault;
    return std::unique_ptr<Store>(std::make_unique<FakeStore>(w_));
  }
  Result<std::string> set_aside() override {
    ++w_.set_asides;
    w_.open_fault.reset();  // the corrupt file is gone: a fresh one opens
    w_.op_fault.reset();
    return std::string("aside");
  }

 private:
  World& w_;
};

const Error kFull{ErrorReason::full, "disk full"};
const PollRecord kRecord{};

struct Fixture {
  World world;
  ManualClock clock;
  std::vector<std::string> heard;
  std::unique_ptr<ResilientStore> store;

  explicit Fixture(std::optional<Error> open_fault = std::nullopt) {
    world.open_fault = std::move(open_fault);
    store = std::make_unique<ResilientStore>(std::make_unique<FakeBackend>(world), clock, StoreRetry{1s, 8s},
                                             [this](ErrorReason r) { heard.push_back(std::string(to_text(r))); });
  }
};

TEST(ResilientStore, PassesCallsThroughWhileHealthy) {
  Fixture f;
  EXPECT_TRUE(f.store->commit(kRecord));
  EXPECT_TRUE(f.store->commit(kRecord));
  EXPECT_EQ(f.world.commits, 2);
  EXPECT_EQ(f.world.opens, 1);
  EXPECT_FALSE(f.store->failing());
  EXPECT_TRUE(f.store->errors().empty());
}

TEST(ResilientStore, AFailedWriteIsCountedAndTheStoreIsLeftAloneUntilTheBackoffEnds) {
  Fixture f;
  f.world.op_fault = kFull;
  auto r = f.store->commit(kRecord);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, ErrorReason::full);
  EXPECT_EQ(f.store->failing(), ErrorReason::full);
  EXPECT_EQ(f.store->errors().at(ErrorReason::full), 1u);
  EXPECT_EQ(f.heard, std::vector<std::string>{"full"});

  // Within the backoff: fails fast, touches nothing, counts nothing.
  f.clock.advance(999ms);
  ASSERT_FALSE(f.store->commit(kRecord));
  EXPECT_EQ(f.world.opens, 1);
  EXPECT_EQ(f.store->errors().at(ErrorReason::full), 1u);

  f.clock.advance(1ms);
  ASSERT_FALSE(f.store->commit(kRecord));
  EXPECT_EQ(f.world.opens, 2);  // reopened, then the write failed again
  EXPECT_EQ(f.store->errors().at(ErrorReason::full), 2u);
}

// Seconds between six successive reopen attempts, calling `use` each second
// of the clock: the backoff as a caller meets it.
template <typename Use>
std::vector<int> waits_between_opens(Fixture& f, Use use) {
  std::vector<int> waits_s;
  for (int attempt = 0; attempt < 6; ++attempt) {
    const int opens = f.world.opens;
    int waited = 0;
    while (f.world.opens == opens && waited < 100) {
      f.clock.advance(1s);
      ++waited;
      use();
    }
    waits_s.push_back(waited);
  }
  return waits_s;
}

TEST(ResilientStore, TheBackoffDoublesUpToItsCeiling) {
  Fixture f(kFull);  // cannot even open
  EXPECT_EQ(f.world.opens, 1);
  const auto waits_s = waits_between_opens(f, [&] { (void)f.store->last_sample(DriveKey{"S", "M"}); });
  EXPECT_EQ(waits_s, (std::vector<int>{1, 2, 4, 8, 8, 8}));
}

// A read-only or full filesystem lets the database open and fails the
// write: reopening is no recovery, so the backoff keeps doubling and the log
// says "failing" once and never "recovered" until a write lands.
TEST(ResilientStore, AStoreThatOpensButCannotWriteBacksOffDoublingAndIsNeverCalledRecovered) {
  Fixture f;
  f.world.op_fault = Error{ErrorReason::read_only, "attempt to write a readonly database"};
  testing::internal::CaptureStderr();
  ASSERT_FALSE(f.store->commit(kRecord));
  const auto waits_s = waits_between_opens(f, [&] { (void)f.store->commit(kRecord); });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(waits_s, (std::vector<int>{1, 2, 4, 8, 8, 8}));
  EXPECT_EQ(f.store->failing(), ErrorReason::read_only);
  EXPECT_EQ(f.store->errors().at(ErrorReason::read_only), 7u);
  auto count = [&](std::string_view what) {
    std::size_t n = 0;
    for (auto at = log.find(what); at != std::string::npos; at = log.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("history store failing"), 1u) << log;
  EXPECT_EQ(count("recovered"), 0u) << log;

  f.world.op_fault.reset();
  f.clock.advance(8s);
  testing::internal::CaptureStderr();
  EXPECT_TRUE(f.store->commit(kRecord));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("history store recovered (was failing: read_only)"),
            std::string::npos);
  EXPECT_FALSE(f.store->failing());
}

TEST(ResilientStore, WritingResumesWhenTheCauseGoesAway) {
  Fixture f;
  f.world.op_fault = kFull;
  ASSERT_FALSE(f.store->commit(kRecord));
  f.world.op_fault.reset();  // space freed
  ASSERT_FALSE(f.store->commit(kRecord)) << "still inside the backoff";
  f.clock.advance(1s);
  EXPECT_TRUE(f.store->commit(kRecord));
  EXPECT_EQ(f.world.commits, 1);
  EXPECT_FALSE(f.store->failing());
  // A later failure starts the backoff from its first step again.
  f.world.op_fault = kFull;
  ASSERT_FALSE(f.store->commit(kRecord));
  f.world.op_fault.reset();
  f.clock.advance(1s);
  EXPECT_TRUE(f.store->commit(kRecord));
}

TEST(ResilientStore, ACorruptStoreFoundAtOpenIsSetAsideAndAFreshOneOpened) {
  Fixture f(Error{ErrorReason::corrupt, "file is not a database"});
  EXPECT_EQ(f.world.set_asides, 1);
  EXPECT_EQ(f.world.opens, 2);
  EXPECT_EQ(f.store->errors().at(ErrorReason::corrupt), 1u);
  EXPECT_FALSE(f.store->failing());
  EXPECT_TRUE(f.store->commit(kRecord));
}

TEST(ResilientStore, CorruptionFoundWhileRunningStartsAFreshStoreOnTheNextCall) {
  Fixture f;
  f.world.op_fault = Error{ErrorReason::corrupt, "database disk image is malformed"};
  ASSERT_FALSE(f.store->commit(kRecord));
  EXPECT_EQ(f.world.set_asides, 1);
  EXPECT_TRUE(f.store->commit(kRecord)) << "no backoff after setting the corrupt file aside";
  EXPECT_EQ(f.world.opens, 2);
  EXPECT_EQ(f.world.commits, 1);
}

TEST(ResilientStore, ReasonsOutsideTheKnownSetCountAsIo) {
  Fixture f;
  f.world.op_fault = Error{ErrorReason::store, "schema version 999 is newer"};
  ASSERT_FALSE(f.store->stats());
  EXPECT_EQ(f.store->errors().at(ErrorReason::io), 1u);
  EXPECT_EQ(f.heard, std::vector<std::string>{"io"});
}

TEST(ResilientStore, AClockSteppedBackDoesNotStallTheRetries) {
  Fixture f;
  f.world.op_fault = kFull;
  ASSERT_FALSE(f.store->commit(kRecord));
  f.world.op_fault.reset();
  f.clock.set(f.clock.wall() - std::chrono::hours(24));
  EXPECT_TRUE(f.store->commit(kRecord));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
