// A PTS run on a simulated drive writes where its elements say: a drive
// preconditioned over a prefix only has spare where the rest of its LBAs
// hold no data, and measures too high; a resumed run continues on the same
// valid data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "pts/targets/sim_target.hpp"
#include "pts/steady_state.hpp"
#include "tests/support/sim_drives.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::uint64_t kCapacity = 100'000'000'000ULL;

std::shared_ptr<DriveModel> fresh_drive() {
  return std::make_shared<DriveModel>(test::small_datacenter_drive("SN0"), WallTime{} + std::chrono::hours(480000));
}

Element wipc() {
  Element e;
  e.block_sizes = {BlockSizeWeight{128 * 1024, 1}};
  e.read_pct = 0;
  e.pattern = AccessPattern::sequential;
  e.duration = std::chrono::hours(10);  // ends at its byte budget
  return e;
}

Element random_writes() {
  Element e;
  e.block_sizes = {BlockSizeWeight{4096, 1}};
  e.read_pct = 0;
  e.threads = 4;
  e.queue_depth = 32;
  e.duration = std::chrono::minutes(1);
  return e;
}

double iops(const Measurement& m) { return static_cast<double>(m.op[1].ops) / seconds(m.elapsed); }

// Purge, twice the capacity of SEQ 128 KiB over the first `prefix` bytes,
// then 1-minute rounds of RND 4 KiB writes over the whole drive until steady
// state: the window's average IOPS.
double steady_iops_after(std::uint64_t prefix) {
  auto model = fresh_drive();
  SimTarget t(model);
  t.purge();
  EXPECT_TRUE(t.run(wipc(), prefix, 2 * kCapacity, {}).ok());
  std::vector<double> series;
  const SteadyStateRule rule;
  for (int round = 0; round < rule.max_rounds; ++round) {
    auto m = t.run(random_writes(), kCapacity, std::nullopt, {});
    EXPECT_TRUE(m.ok());
    series.push_back(iops(*m));
    const auto ss = evaluate_steady_state(series, rule);
    if (ss.reached) return ss.window->average;
  }
  return evaluate_steady_state(series, rule).window->average;
}

TEST(SimTargetLbas, ADrivePreconditionedOverAPrefixOnlyMeasuresAHigherSteadyState) {
  const double full = steady_iops_after(kCapacity);
  const double prefix = steady_iops_after(kCapacity / 4);
  std::fprintf(stderr, "steady RND 4KiB write IOPS: WIPC over the whole drive %.0f, over its first quarter %.0f\n",
               full, prefix);
  EXPECT_NEAR(full, 40'000, 400);  // the profile's steady state
  EXPECT_GT(prefix, 1.2 * full);
}

TEST(SimTargetLbas, SequentialRoundsGoOnWhereTheLastOneEnded) {
  auto model = fresh_drive();
  SimTarget t(model);
  t.purge();
  Element e = wipc();
  e.duration = std::chrono::seconds(10);  // 20 GB a round at 2 GB/s
  std::uint64_t written = 0;
  SequentialCursor cursor;
  while (written < kCapacity) {
    auto m = t.run(e, kCapacity, kCapacity - written, cursor);
    ASSERT_TRUE(m.ok());
    written += m->op[1].bytes;
    cursor = m->cursor;
  }
  EXPECT_NEAR(model->valid_share({0, kCapacity}), 1.0, 1e-9);
}

TEST(SimTargetLbas, RandomWritesFillEachCbwZoneByItsShareOfTheIo) {
  auto model = fresh_drive();
  SimTarget t(model);
  t.purge();
  Element e = random_writes();
  e.zones = {{50, 5}, {30, 15}, {20, 80}};  // half the I/O in the first 5 %
  auto m = t.run(e, kCapacity, std::nullopt, {});
  ASSERT_TRUE(m.ok());
  const auto w = static_cast<double>(m->op[1].bytes);
  const double c = static_cast<double>(kCapacity);
  // Zone edges fall inside chunks of the map, which blend their two zones.
  EXPECT_NEAR(model->valid_share({0, kCapacity / 20}), 1 - std::exp(-0.5 * w / (0.05 * c)), 0.02);
  EXPECT_NEAR(model->valid_share({kCapacity / 20, kCapacity / 5}), 1 - std::exp(-0.3 * w / (0.15 * c)), 0.02);
  EXPECT_NEAR(model->valid_share({kCapacity / 5, kCapacity}), 1 - std::exp(-0.2 * w / (0.8 * c)), 0.02);
}

TEST(SimTargetLbas, ARestoredCheckpointContinuesOnTheSameValidData) {
  auto model = fresh_drive();
  SimTarget t(model);
  t.purge();
  ASSERT_TRUE(t.run(wipc(), kCapacity / 4, 2 * kCapacity, {}).ok());
  const std::string checkpoint = t.checkpoint();
  SimTarget resumed(fresh_drive());
  ASSERT_FALSE(resumed.restore(checkpoint));
  auto a = t.run(random_writes(), kCapacity, std::nullopt, {});
  auto b = resumed.run(random_writes(), kCapacity, std::nullopt, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->op[1].ops, b->op[1].ops);
  EXPECT_GT(iops(*b), 1.5 * 40'000);  // the unwritten three quarters are spare
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
