// The Telemetry Controller-Initiated log (08h) header decoder on pages built
// byte by byte from the specification's layout, against libnvme's struct,
// and on random and truncated pages.
#include <gtest/gtest.h>
#include <libnvme.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "collectors/nvme/telemetry_log.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

void put_le(std::vector<std::uint8_t>& page, std::size_t offset, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) page[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// Every field a distinct value, every reserved byte 0xEE so one read from
// the wrong place shows.
std::vector<std::uint8_t> header_page() {
  std::vector<std::uint8_t> page(kTelemetryHeaderBytes, 0xEE);
  put_le(page, 0, 0x08, 1);
  put_le(page, 5, 0x38B19E, 3);  // IEEE OUI
  put_le(page, 8, 0x0007, 2);    // area 1 ends at block 7
  put_le(page, 10, 0x0107, 2);   // area 2 at 263
  put_le(page, 12, 0x1234, 2);   // area 3 at 4660
  put_le(page, 16, 0x01020304, 4);
  put_le(page, 381, 0x21, 1);  // host-initiated generation
  put_le(page, 382, 0x01, 1);  // controller-initiated data available
  put_le(page, 383, 0x9C, 1);  // controller-initiated generation
  for (std::size_t i = 384; i < 512; ++i) page[i] = static_cast<std::uint8_t>(i);  // reason identifier
  return page;
}

TEST(DecodeTelemetryHeader, EveryFieldAtItsSpecOffset) {
  const auto r = decode_telemetry_header(header_page());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->log_id, 0x08);
  EXPECT_EQ(r->ieee_oui, 0x38B19Eu);
  EXPECT_EQ(r->area1_last_block, 7);
  EXPECT_EQ(r->area2_last_block, 0x0107);
  EXPECT_EQ(r->area3_last_block, 0x1234);
  EXPECT_EQ(r->area4_last_block, 0x01020304u);
  EXPECT_EQ(r->host_generation, 0x21);
  EXPECT_TRUE(r->data_available());
  EXPECT_EQ(r->controller_generation, 0x9C);
  EXPECT_EQ(r->bytes_through(1), 8u * 512);
  EXPECT_EQ(r->bytes_through(2), 264u * 512);
  EXPECT_EQ(r->bytes_through(3), 4661u * 512);
}

TEST(DecodeTelemetryHeader, AgreesWithLibnvmeStructLayout) {
  auto offset = [](const std::string& name) -> std::size_t {
    for (const auto& f : telemetry_header_fields()) {
      if (name == f.name) return f.offset;
    }
    ADD_FAILURE() << "no field " << name;
    return 0;
  };
  static_assert(sizeof(nvme_telemetry_log) == kTelemetryHeaderBytes);
  static_assert(NVME_LOG_LID_TELEMETRY_CTRL == kTelemetryControllerLogId);
  static_assert(NVME_LOG_LID_TELEMETRY_HOST == kTelemetryHostLogId);
  static_assert(NVME_CTRL_LPA_TELEMETRY == kLpaTelemetry);
  static_assert(NVME_LOG_TELEM_BLOCK_SIZE == kTelemetryBlockBytes);
  EXPECT_EQ(offset("Log Identifier"), offsetof(nvme_telemetry_log, lpi));
  EXPECT_EQ(offset("IEEE OUI Identifier"), offsetof(nvme_telemetry_log, ieee));
  EXPECT_EQ(offset("Telemetry Data Area 1 Last Block"), offsetof(nvme_telemetry_log, dalb1));
  EXPECT_EQ(offset("Telemetry Data Area 2 Last Block"), offsetof(nvme_telemetry_log, dalb2));
  EXPECT_EQ(offset("Telemetry Data Area 3 Last Block"), offsetof(nvme_telemetry_log, dalb3));
  EXPECT_EQ(offset("Telemetry Data Area 4 Last Block"), offsetof(nvme_telemetry_log, dalb4));
  EXPECT_EQ(offset("Telemetry Host-Initiated Data Generation Number"), offsetof(nvme_telemetry_log, hostdgn));
  EXPECT_EQ(offset("Telemetry Controller-Initiated Data Available"), offsetof(nvme_telemetry_log, ctrlavail));
  EXPECT_EQ(offset("Telemetry Controller-Initiated Data Generation Number"), offsetof(nvme_telemetry_log, ctrldgn));
  EXPECT_EQ(offsetof(nvme_telemetry_log, rsnident), 384u);
  std::vector<int> owner(kTelemetryHeaderBytes, -1);
  for (const auto& f : telemetry_header_fields()) {
    ASSERT_LE(f.offset + f.width, kTelemetryHeaderBytes) << f.name;
    for (std::size_t b = f.offset; b < f.offset + f.width; ++b) {
      EXPECT_EQ(owner[b], -1) << f.name << " overlaps at byte " << b;
      owner[b] = 1;
    }
  }
}

TEST(DecodeTelemetryHeader, ShortPagesAndOtherLogsAreDecodeErrors) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{383}, std::size_t{511}}) {
    const auto r = decode_telemetry_header(std::vector<std::uint8_t>(n, 0x08));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().reason, ErrorReason::decode);
  }
  EXPECT_EQ(decode_telemetry_header(std::vector<std::uint8_t>(100)).error().message,
            "telemetry log (08h): header needs 512 bytes, got 100");
  auto host = header_page();
  host[0] = 0x07;
  EXPECT_EQ(decode_telemetry_header(host).error().message, "telemetry log (08h): the page says it is log 07h");
  EXPECT_TRUE(decode_telemetry_header(host, kTelemetryHostLogId).ok());
  // A longer buffer (header and data areas) decodes its first 512 bytes.
  auto whole = header_page();
  whole.resize(8 * 512, 0xAB);
  EXPECT_EQ(decode_telemetry_header(whole)->controller_generation, 0x9C);
}

TEST(DecodeTelemetryHeader, EmptyAreasEndWhereTheAreaBeforeThemEnds) {
  TelemetryHeader h;
  EXPECT_EQ(h.bytes_through(3), 512u);  // header only: no data at all
  h.area1_last_block = 10;              // areas 2 and 3 empty: their last block is 0 or 10
  EXPECT_EQ(h.bytes_through(2), 11u * 512);
  EXPECT_EQ(h.bytes_through(3), 11u * 512);
  h.area3_last_block = 4;  // smaller than area 1's: not a shorter log
  EXPECT_EQ(h.bytes_through(3), 11u * 512);
  h.area4_last_block = 0xFFFFFFFF;  // area 4 is never read
  EXPECT_EQ(h.bytes_through(4), 11u * 512);
}

// Random pages never crash, no field holds more than its width, and no size
// a capture would read exceeds data area 3's largest.
TEST(DecodeTelemetryHeader, RandomAndTruncatedPagesDecodeWithinFieldRanges) {
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint8_t> page(kTelemetryHeaderBytes + rng() % 64);
    for (auto& b : page) b = static_cast<std::uint8_t>(rng());
    page[0] = 0x08;
    const auto r = decode_telemetry_header(page);
    ASSERT_TRUE(r.ok());
    EXPECT_LE(r->ieee_oui, 0xFFFFFFu);
    for (unsigned area = 1; area <= 3; ++area) {
      EXPECT_GE(r->bytes_through(area), kTelemetryBlockBytes);
      EXPECT_LE(r->bytes_through(area), kMaxTelemetryLogBytes);
      EXPECT_EQ(r->bytes_through(area) % kTelemetryBlockBytes, 0u);
      if (area > 1) {
        EXPECT_GE(r->bytes_through(area), r->bytes_through(area - 1));
      }
    }
    EXPECT_EQ(r->data_available(), r->controller_available == 1);
    const std::size_t keep = rng() % kTelemetryHeaderBytes;
    EXPECT_FALSE(decode_telemetry_header(std::span(page).first(keep)).ok());
    page[0] = static_cast<std::uint8_t>(rng() | 0x10);  // never 08h
    EXPECT_FALSE(decode_telemetry_header(page).ok());
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
