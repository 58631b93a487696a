// The sample log's packed samples read back exactly what was pushed, in
// order, whatever the values: counters that go backwards, 128-bit values,
// times before 1970, media counters that come and go.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "core/clock.hpp"
#include "store/packed_samples.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

void expect_same(const SampleRecord& a, const SampleRecord& b, std::size_t i) {
  EXPECT_EQ(a.time, b.time) << i;
  EXPECT_EQ(a.segment, b.segment) << i;
  EXPECT_TRUE(a.data_units_written == b.data_units_written) << i;
  EXPECT_TRUE(a.data_units_read == b.data_units_read) << i;
  EXPECT_TRUE(a.power_on_hours == b.power_on_hours) << i;
  EXPECT_EQ(a.percentage_used, b.percentage_used) << i;
  EXPECT_EQ(a.composite_temperature_k, b.composite_temperature_k) << i;
  EXPECT_EQ(a.media_bytes_written.has_value(), b.media_bytes_written.has_value()) << i;
  if (a.media_bytes_written && b.media_bytes_written) {
    EXPECT_TRUE(*a.media_bytes_written == *b.media_bytes_written) << i;
  }
}

TEST(PackedSamples, ReadsBackEveryValueInOrder) {
  const u128 max = ~u128{0};
  std::vector<SampleRecord> pushed;
  SampleRecord s;
  s.time = from_unix_ns(1'800'000'000'000'000'000);
  s.data_units_written = (u128{1} << 100) + 12345;
  s.media_bytes_written = max;
  pushed.push_back(s);
  s.time = from_unix_ns(-5);  // backwards, before 1970
  s.segment = -1;
  s.data_units_written = 0;  // a counter reset
  s.data_units_read = max;
  s.power_on_hours = max - 1;
  s.percentage_used = 255;
  s.composite_temperature_k = 65535;
  s.media_bytes_written.reset();
  pushed.push_back(s);
  s.media_bytes_written = 7;
  pushed.push_back(s);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 500; ++i) {
    s.time += std::chrono::seconds(1) + std::chrono::nanoseconds(rng() % 1000);
    s.segment += rng() % 50 == 0 ? 1 : 0;
    s.data_units_written += rng() % 100000;
    s.data_units_read = (static_cast<u128>(rng()) << 64) | rng();  // anything
    s.power_on_hours += i % 3600 == 0 ? 1 : 0;
    s.percentage_used = static_cast<std::uint8_t>(rng());
    s.composite_temperature_k = static_cast<std::uint16_t>(300 + rng() % 60);
    if (rng() % 10 == 0) {
      s.media_bytes_written.reset();
    } else {
      s.media_bytes_written = s.data_units_written * 512000;
    }
    pushed.push_back(s);
  }
  PackedSamples packed;
  for (const auto& p : pushed) packed.push_back(p);
  ASSERT_EQ(packed.size(), pushed.size());
  expect_same(packed.back(), pushed.back(), pushed.size() - 1);
  std::size_t i = 0;
  for (const auto& read : packed) {
    ASSERT_LT(i, pushed.size());
    expect_same(read, pushed[i], i);
    ++i;
  }
  EXPECT_EQ(i, pushed.size());
  // A second pass reads the same (the iterator keeps its own state).
  EXPECT_EQ(packed.begin()->time, pushed.front().time);
}

TEST(PackedSamples, ASamplePolledEverySecondTakesAFifthOfItsUnpackedSize) {
  PackedSamples packed;
  SampleRecord s;
  s.time = from_unix_ns(1'800'000'000'000'000'000);
  s.data_units_written = u128{1} << 40;
  s.data_units_read = u128{1} << 39;
  s.power_on_hours = 20000;
  s.composite_temperature_k = 310;
  s.media_bytes_written = u128{1} << 60;
  for (int i = 0; i < 256; ++i) {
    s.time += std::chrono::seconds(1);
    s.data_units_written += 900;
    s.data_units_read += 300;
    s.media_bytes_written = *s.media_bytes_written + 900 * 512000;
    packed.push_back(s);
  }
  EXPECT_TRUE(packed.begin() != packed.end());
  EXPECT_LE(packed.packed_bytes(), 256 * sizeof(SampleRecord) / 5) << packed.packed_bytes();
}

TEST(PackedSamples, AnEmptyLogHasNothingToIterate) {
  PackedSamples packed;
  EXPECT_TRUE(packed.empty());
  EXPECT_TRUE(packed.begin() == packed.end());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
