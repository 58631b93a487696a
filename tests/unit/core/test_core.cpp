#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "core/clock.hpp"
#include "core/config_reader.hpp"
#include "core/u128.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(U128, RendersValuesAbove2To64Exactly) {
  u128 v = (u128{1} << 64) + 12345;
  EXPECT_EQ(to_string(v), "18446744073709563961");
  EXPECT_EQ(to_string(0), "0");
  EXPECT_EQ(to_string(~u128{0}), "340282366920938463463374607431768211455");
}

TEST(U128, ReadsLittleEndianOfAnyWidth) {
  std::array<std::uint8_t, 17> b{};
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i + 1);
  EXPECT_EQ(read_le(b, 0, 1), 1u);
  EXPECT_EQ(read_le(b, 1, 2), 0x0302u);
  u128 wide = read_le(b, 1, 16);
  EXPECT_EQ(static_cast<std::uint64_t>(wide), 0x0908070605040302ull);
  EXPECT_EQ(static_cast<std::uint64_t>(wide >> 64), 0x11100f0e0d0c0b0aull);
}

TEST(UtcStamp, IsTheUtcSecondCompact) {
  const WallTime t = WallTime{std::chrono::sys_days{std::chrono::year{2026} / 12 / 1}} + std::chrono::hours(4) +
                     std::chrono::minutes(18) + std::chrono::milliseconds(999);
  EXPECT_EQ(utc_stamp(t), "20261201T041800Z");
}

TEST(ParseDuration, AcceptsUnitsAndBareSeconds) {
  EXPECT_EQ(parse_duration("500ms"), std::chrono::milliseconds(500));
  EXPECT_EQ(parse_duration("10s"), std::chrono::seconds(10));
  EXPECT_EQ(parse_duration("5m"), std::chrono::minutes(5));
  EXPECT_EQ(parse_duration("2h"), std::chrono::hours(2));
  EXPECT_EQ(parse_duration("7d"), std::chrono::hours(24 * 7));
  EXPECT_EQ(parse_duration("1.5"), std::chrono::milliseconds(1500));
  // "1e300s" is too large to hold: refused, not wrapped into a negative duration.
  for (const char* text : {"10 parsecs", "soon", "1e300s", "nan", "inf", "0x10s"}) {
    EXPECT_FALSE(parse_duration(text)) << text;
  }
}

TEST(ParseBytes, AcceptsSiAndIecSuffixes) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("4KiB"), 4096u);
  EXPECT_EQ(parse_bytes("1MiB"), 1048576u);
  EXPECT_EQ(parse_bytes("3.84TB"), 3840000000000u);
  EXPECT_EQ(parse_bytes("512GB"), 512000000000u);
  for (const char* text : {"-1", "4 potatoes", "1e300MB", "nan", "20EiB"}) {
    EXPECT_FALSE(parse_bytes(text)) << text;
  }
}

// Each test its own directory: ctest runs the tests of this file as
// processes of their own, side by side, and a shared /tmp/reader.toml was
// rewritten under a test that was reading it.
class TableReaderTest : public ::testing::Test {
 protected:
  toml::table parse(const std::string& text) {
    path_ = dir_.path() + "/reader.toml";
    std::ofstream(path_) << text;
    return parse_toml_file(path_);
  }
  test::TempDir dir_{"table-reader"};
  std::string path_;
};

TEST_F(TableReaderTest, UnknownKeyIsReportedAtItsPosition) {
  auto root = parse("a = 1\n\n  typo = 2\n");
  TableReader r(root, path_, "");
  EXPECT_EQ(r.integer("a"), 1);
  try {
    r.finish();
    FAIL() << "finish() accepted an unknown key";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), path_ + ":3:3: unknown key \"typo\"");
  }
}

TEST_F(TableReaderTest, TypeErrorsNameTheDottedKey) {
  auto root = parse("[outer]\nsize = true\n");
  TableReader r(root, path_, "");
  auto outer = r.table("outer");
  ASSERT_TRUE(outer);
  try {
    outer->bytes("size");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(":2:8: outer.size: expected a size"), std::string::npos) << e.what();
  }
}

TEST_F(TableReaderTest, SyntaxErrorsCarryPosition) {
  try {
    parse("x = [1, 2\n");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path_ + ":", 0), 0u) << e.what();
  }
}

TEST(AcceleratedClock, ScalesRealWaitsByTheFactor) {
  AcceleratedClock c(WallTime{}, 1000);
  EXPECT_EQ(c.to_real(std::chrono::seconds(10)), std::chrono::milliseconds(10));
}

TEST(ManualClock, MovesOnlyWhenAdvanced) {
  ManualClock c;
  auto t0 = c.wall();
  c.advance(std::chrono::hours(1));
  EXPECT_EQ(c.wall() - t0, std::chrono::hours(1));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
