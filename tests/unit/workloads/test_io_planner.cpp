// Where the planner puts sequential I/O: each worker's share of the range,
// and a job that goes on from the cursor the job before it left.
#include "workloads/io_planner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace nvmond {
namespace {

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

}  // namespace
}  // namespace nvmond
