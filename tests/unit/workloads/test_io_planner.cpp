// Where the planner puts sequential I/O: each worker's share of the range,
// and a job that goes on from the cursor the job before it left.
#include "workloads/io_planner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::uint64_t kBlock = 4096;

JobSpec sequential_writes(std::uint64_t range, unsigned threads, std::uint64_t bytes) {
  JobSpec j;
  j.target = "t";
  j.pattern = AccessPattern::sequential;
  j.read_pct = 0;
  j.block_sizes = {{static_cast<std::uint32_t>(kBlock), 1}};
  j.threads = threads;
  j.size = range;
  j.bytes = bytes;
  return j;
}

struct Pass {
  std::vector<std::uint64_t> blocks;  // offsets issued, in blocks
  std::uint64_t next = 0;             // sequential_next(), bytes
};

// Everything worker `index` issues in one main pass of `spec`.
Pass one_pass(const JobSpec& spec, unsigned index) {
  IoPlanner p(spec, index, 1);
  EXPECT_FALSE(p.plan_range(1 << 30));
  p.start(Phase::main);
  Pass out;
  while (p.plan_next(Phase::main)) {
    out.blocks.push_back(p.next().offset / kBlock);
    p.take(Phase::main, false);
  }
  out.next = p.sequential_next();
  return out;
}

TEST(IoPlanner, ASequentialJobGoesOnWhereTheJobBeforeStoppedAndWrapsAtTheRangesEnd) {
  JobSpec j = sequential_writes(10 * kBlock, 1, 6 * kBlock);
  const Pass first = one_pass(j, 0);
  EXPECT_THAT(first.blocks, testing::ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_EQ(first.next, 6 * kBlock);
  j.sequential_start = {first.next};
  const Pass second = one_pass(j, 0);
  EXPECT_THAT(second.blocks, testing::ElementsAre(6, 7, 8, 9, 0, 1));
  EXPECT_EQ(second.next, 2 * kBlock);
}

TEST(IoPlanner, EveryWholeBlockOfTheRangeBelongsToAWorker) {
  // 10 blocks and a bit for 3 workers: shares of 4, 3 and 3 blocks.
  const JobSpec j = sequential_writes(10 * kBlock + 100, 3, 12 * kBlock);
  std::set<std::uint64_t> written;
  for (unsigned w = 0; w < 3; ++w) {
    for (auto b : one_pass(j, w).blocks) written.insert(b);
  }
  EXPECT_THAT(written, testing::ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
}

TEST(IoPlanner, EachWorkerStartsAtItsOwnCursorAndIgnoresOneOutsideItsShare) {
  JobSpec j = sequential_writes(8 * kBlock, 2, 2 * kBlock);
  j.sequential_start = {2 * kBlock, 1 * kBlock};  // worker 1's share is blocks 4..7
  EXPECT_THAT(one_pass(j, 0).blocks, testing::ElementsAre(2));
  EXPECT_THAT(one_pass(j, 1).blocks, testing::ElementsAre(4));
}

// JESD219's access zones as CBW gives them, and its 0.5-64 KiB sizes.
JobSpec cbw_writes(std::uint64_t range, unsigned threads) {
  JobSpec j;
  j.target = "t";
  j.pattern = AccessPattern::random;
  j.read_pct = 0;
  j.block_sizes = {{512, 4}, {4096, 67}, {8192, 10}, {16384, 7}, {65536, 3}};
  j.threads = threads;
  j.size = range;
  j.bytes = 1ULL << 40;
  j.zones = {{50, 5}, {30, 15}, {20, 80}};
  j.block_align = 4096;
  return j;
}

// Where `draws` I/Os of worker `index` land.
std::vector<PlannedIo> draws(const JobSpec& spec, unsigned index, int count) {
  IoPlanner p(spec, index, 7);
  EXPECT_FALSE(p.plan_range(1 << 30));
  p.start(Phase::main);
  std::vector<PlannedIo> out;
  for (int i = 0; i < count && p.plan_next(Phase::main); ++i) {
    out.push_back(p.next());
    p.take(Phase::main, false);
  }
  return out;
}

TEST(IoPlanner, AccessZonesLieOverTheWholeRangeWhateverTheThreadCount) {
  // 4 workers on 100 MiB: the hot zone is the first 5 MiB of the range for
  // each of them, not the first 5 % of each worker's quarter.
  const std::uint64_t range = 100ULL << 20;
  const JobSpec j = cbw_writes(range, 4);
  const std::uint64_t hot_end = range / 20, warm_end = range / 5;
  for (unsigned w = 0; w < 4; ++w) {
    int hot = 0, warm = 0, cold = 0;
    const auto ios = draws(j, w, 20'000);
    for (const auto& io : ios) {
      ASSERT_LE(io.offset + io.length, range);
      if (io.offset + io.length <= hot_end) ++hot;
      else if (io.offset >= hot_end && io.offset + io.length <= warm_end) ++warm;
      else if (io.offset >= warm_end) ++cold;
    }
    // Every I/O falls wholly in one zone, in the zones' shares of the I/O.
    EXPECT_EQ(hot + warm + cold, static_cast<int>(ios.size())) << "worker " << w;
    EXPECT_NEAR(hot / 20'000.0, 0.5, 0.02) << "worker " << w;
    EXPECT_NEAR(warm / 20'000.0, 0.3, 0.02) << "worker " << w;
    EXPECT_NEAR(cold / 20'000.0, 0.2, 0.02) << "worker " << w;
  }
}

TEST(IoPlanner, AVerifiedJobWithAccessZonesIsRefusedBeforeItsFirstIo) {
  JobSpec j = cbw_writes(100ULL << 20, 4);
  j.verify = true;
  IoPlanner p(j, 1, 1);
  const auto refused = p.plan_range(100ULL << 20);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->message.find("access zones"), std::string::npos) << refused->message;
}

TEST(IoPlanner, BlockAlignPutsEverySizeOnFourKibBoundaries) {
  const JobSpec j = cbw_writes(100ULL << 20, 2);
  bool small_seen = false;
  for (const auto& io : draws(j, 1, 5'000)) {
    EXPECT_EQ(io.offset % 4096, 0u) << io.length;
    small_seen = small_seen || io.length == 512;
  }
  EXPECT_TRUE(small_seen);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
