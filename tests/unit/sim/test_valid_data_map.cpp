// Which LBAs of a simulated drive hold valid data: extents, random spread,
// deallocate, and a size that does not grow with the drive.
#include "sim/valid_data_map.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr std::uint64_t kGB = 1'000'000'000;

TEST(ValidDataMap, AStreamOfSmallCommandsMakesExactlyItsExtentValid) {
  ValidDataMap m(4 * kGB);
  // 1 GB from 1.5 GB in 4 KiB commands: chunk boundaries fall inside commands.
  const std::uint64_t from = 1'500'000'000;
  for (std::uint64_t at = from; at < from + kGB; at += 4096) {
    m.write_extent(at, std::min<std::uint64_t>(4096, from + kGB - at));
  }
  EXPECT_NEAR(m.valid_bytes(), 1e9, 1.0);
  EXPECT_NEAR(m.valid_share({from, from + kGB}), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(m.valid_share({0, 1 * kGB}), 0.0);
  // Writing the same extent again adds nothing.
  m.write_extent(from, kGB);
  EXPECT_NEAR(m.valid_bytes(), 1e9, 1.0);
}

TEST(ValidDataMap, RandomWritesCoverTheirRangeAsExpectedCoverage) {
  ValidDataMap m(8 * kGB);
  const LbaRange half{0, 4 * kGB};
  m.write_spread(half, 4e9);  // one range's worth: 1 - 1/e of it
  EXPECT_NEAR(m.valid_share(half), 1 - std::exp(-1.0), 1e-9);
  m.write_spread(half, 4e9);
  EXPECT_NEAR(m.valid_share(half), 1 - std::exp(-2.0), 1e-9);
  EXPECT_DOUBLE_EQ(m.valid_share({4 * kGB, 8 * kGB}), 0.0);
  // Over the whole drive the unwritten share of every chunk falls alike.
  m.write_spread({0, 8 * kGB}, 8e9);
  EXPECT_NEAR(m.valid_share(half), 1 - std::exp(-3.0), 1e-9);
  EXPECT_NEAR(m.valid_share({4 * kGB, 8 * kGB}), 1 - std::exp(-1.0), 1e-9);
}

TEST(ValidDataMap, DeallocateAndClearLeaveNothingValidThere) {
  ValidDataMap m(8 * kGB);
  m.fill();
  EXPECT_DOUBLE_EQ(m.valid_bytes(), 8e9);
  m.deallocate({2 * kGB, 6 * kGB});
  EXPECT_NEAR(m.valid_bytes(), 4e9, 1.0);
  EXPECT_NEAR(m.valid_share({2 * kGB, 6 * kGB}), 0.0, 1e-12);
  m.clear();
  EXPECT_DOUBLE_EQ(m.valid_bytes(), 0.0);
}

TEST(ValidDataMap, ItsSizeDoesNotGrowWithTheDrive) {
  const ValidDataMap small(kGB);
  const ValidDataMap big(30'000 * kGB);  // 30 TB
  EXPECT_LE(big.memory_bytes(), small.memory_bytes());
  // 256 drives of 30 TB: their maps take a fraction of the daemon's 128 MB.
  EXPECT_LE(256 * big.memory_bytes(), 4u << 20);
}

TEST(ValidDataMap, RunsRestoreTheSameMapAndStayFewForPtsRanges) {
  ValidDataMap m(30'000 * kGB);
  m.write_extent(0, 7'500 * kGB + 123);  // a prefix ending inside a chunk
  m.write_spread({0, 30'000 * kGB}, 1e12);
  const auto runs = m.runs();
  EXPECT_LE(runs.size(), 3u);
  ValidDataMap back(30'000 * kGB);
  ASSERT_TRUE(back.restore(runs, m.open_stream()));
  EXPECT_NEAR(back.valid_bytes(), m.valid_bytes(), 1e-9 * m.valid_bytes());  // summed in another order
  EXPECT_EQ(back.runs(), runs);
  // A map of another size is refused.
  EXPECT_FALSE(back.restore({{3, 1.0}}, std::nullopt));
  EXPECT_FALSE(back.restore({{ValidDataMap::kChunks, 1.5}}, std::nullopt));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
