// Each I/O's latency is its own: from the clock read just before it was
// queued to the engine's stamp on its own completion. A scripted engine on
// simulated time completes the I/Os of one batch at different times and hands
// them back together.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/jobs.hpp"
#include "workloads/runner.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::int64_t kStep = 10'000;  // ns between completions within a batch

// Completes everything queued in one reap: the k-th I/O of the batch at
// submission time + (k+1) * kStep, all returned at once (as a ring returns a
// batch of CQEs), each with its own stamp.
class StaggeredEngine final : public IoEngine {
 public:
  std::string_view name() const override { return "staggered"; }
  // Completes in memory: no target to guard.
  bool touches_real_media() const override { return false; }
  std::optional<Error> setup(const EngineSetup&) override { return std::nullopt; }
  std::uint64_t target_size() const override { return 1 << 20; }
  bool queue(IoUnit& u) override {
    queued_.push_back(&u);
    return true;
  }
  std::optional<Error> commit() override { return std::nullopt; }
  Result<std::size_t> reap(std::size_t, Duration max_wait, std::span<IoCompletion> out) override {
    if (waits != nullptr && !queued_.empty()) waits->push_back(max_wait);
    std::size_t n = 0;
    for (IoUnit* u : queued_) {
      out[n] = IoCompletion{u, static_cast<std::int32_t>(u->length), now_ + static_cast<std::int64_t>(n + 1) * kStep};
      ++n;
    }
    if (n > 0) now_ = out[n - 1].done_ns;
    queued_.clear();
    return n;
  }
  std::int64_t now_ns() const override { return now_; }
  void idle(Duration d) override { now_ += d.count(); }

  std::vector<Duration>* waits = nullptr;  // max_wait of every reap with I/O in flight

 private:
  std::int64_t now_ = 1'000'000'000;
  std::vector<IoUnit*> queued_;
};

JobSpec read_job() { return test::one_size_job("t", "staggered", "staggered", 100, 4096); }

EngineFactory staggered() {
  return [](const JobSpec&) -> std::unique_ptr<IoEngine> { return std::make_unique<StaggeredEngine>(); };
}

TEST(RunnerTimestamps, EachIoOfABatchRecordsItsOwnCompletionTime) {
  JobSpec j = read_job();
  j.queue_depth = 4;
  j.bytes = 3 * 4 * 4096;  // three batches of four
  RunResult r = JobRunner(j, staggered(), nullptr).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  const LatencyHistogram& h = r.op[0].latency;
  ASSERT_EQ(h.count(), 12u);
  // 10, 20, 30 and 40 us, three times each: not 40 us (the batch's end) twelve times.
  EXPECT_EQ(h.min(), 10'000u);
  EXPECT_EQ(h.max(), 40'000u);
  EXPECT_EQ(h.count_at_or_below(10'000), 3u);
  EXPECT_EQ(h.count_at_or_below(20'000), 6u);
  EXPECT_EQ(h.count_at_or_below(30'000), 9u);
  EXPECT_DOUBLE_EQ(h.mean(), 25'000.0);
}

TEST(RunnerTimestamps, RateLimitWaitIsNotPartOfTheLatency) {
  JobSpec j = read_job();
  j.queue_depth = 1;
  j.rate_iops = 1000;  // 1 ms apart, each I/O takes 10 us
  j.runtime = std::chrono::seconds(2);
  RunResult r = JobRunner(j, staggered(), nullptr).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  const LatencyHistogram& h = r.op[0].latency;
  EXPECT_NEAR(static_cast<double>(h.count()), 2000.0, 1.0);
  EXPECT_EQ(h.min(), 10'000u);
  EXPECT_EQ(h.max(), 10'000u);
}

// fio's rate process waits for completions, not for the next due time: a near
// timer armed in a wait with I/O in flight slowed that I/O's wake-up by about
// 10 us (bench/RESULTS.md, "Rate-limited waits").
TEST(RunnerTimestamps, WithIoInFlightTheWorkerNeverWaitsOnANearTimer) {
  JobSpec j = read_job();
  j.queue_depth = 4;
  j.rate_iops = 1000;  // the next I/O is due 1 ms after each one
  j.runtime = std::chrono::seconds(2);
  std::vector<Duration> waits;
  auto recording = [&waits](const JobSpec&) -> std::unique_ptr<IoEngine> {
    auto e = std::make_unique<StaggeredEngine>();
    e->waits = &waits;
    return e;
  };
  RunResult r = JobRunner(j, recording, nullptr).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  EXPECT_NEAR(static_cast<double>(r.op[0].latency.count()), 2000.0, 1.0);
  ASSERT_FALSE(waits.empty());
  for (Duration w : waits) {
    // Untimed, or a bound past the kernel's tick (4 ms at HZ=250).
    EXPECT_TRUE(w.count() < 0 || w >= std::chrono::milliseconds(4)) << w.count() << " ns";
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
