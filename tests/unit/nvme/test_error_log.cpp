// The Error Information log (01h) decoder on pages built byte by byte from
// the specification's layout, on random and truncated pages, and the status
// classes an entry is counted under.
#include <gtest/gtest.h>
#include <libnvme.h>

#include <cstddef>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "collectors/nvme/error_log.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

void put_le(std::vector<std::uint8_t>& page, std::size_t offset, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) page[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint16_t status_field(unsigned sct, unsigned sc, bool dnr, bool phase = true) {
  return static_cast<std::uint16_t>((phase ? 1u : 0u) | (sc << 1) | (sct << 9) | (dnr ? 0x8000u : 0u));
}

// One entry at `index` of `page`, every field a distinct value so a
// misplaced offset shows.
void write_entry(std::vector<std::uint8_t>& page, std::size_t index, std::uint64_t count, std::uint16_t status) {
  const std::size_t base = index * kErrorLogEntryBytes;
  put_le(page, base + 0, count, 8);
  put_le(page, base + 8, 0x0102, 2);                            // SQID
  put_le(page, base + 10, 0x0304, 2);                           // CID
  put_le(page, base + 12, status, 2);                           // status field
  put_le(page, base + 14, 0x0506, 2);                           // parameter error location
  put_le(page, base + 16, 0x1122334455667788ULL, 8);            // LBA
  put_le(page, base + 24, 0x0A0B0C0D, 4);                       // namespace
  put_le(page, base + 28, 0xC1, 1);                             // vendor specific info available
  put_le(page, base + 29, 0x03, 1);                             // transport type
  put_le(page, base + 30, 0xEEEE, 2);                           // reserved: must not leak in
  put_le(page, base + 32, 0x99AABBCCDDEEFF00ULL, 8);            // command specific info
  put_le(page, base + 40, 0x7788, 2);                           // transport type specific info
  for (std::size_t b = 42; b < 64; ++b) page[base + b] = 0xEE;  // reserved
}

TEST(DecodeErrorLog, EveryFieldAtItsSpecOffset) {
  std::vector<std::uint8_t> page(4 * kErrorLogEntryBytes, 0);
  write_entry(page, 0, 0x0000000100000002ULL, status_field(2, 0x81, true));
  write_entry(page, 1, 7, status_field(0, 0x02, false, false));
  const auto r = decode_error_log(page, 4);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);  // entries 2 and 3 are empty (error count 0)
  const ErrorLogEntry& e = (*r)[0];
  EXPECT_EQ(e.error_count, 0x0000000100000002ULL);
  EXPECT_EQ(e.sqid, 0x0102);
  EXPECT_EQ(e.cid, 0x0304);
  EXPECT_EQ(e.status_code_type(), 2);
  EXPECT_EQ(e.status_code(), 0x81);
  EXPECT_TRUE(e.do_not_retry());
  EXPECT_EQ(e.parameter_error_location, 0x0506);
  EXPECT_EQ(e.lba, 0x1122334455667788ULL);
  EXPECT_EQ(e.nsid, 0x0A0B0C0Du);
  EXPECT_EQ(e.vendor_specific_info, 0xC1);
  EXPECT_EQ(e.transport_type, 0x03);
  EXPECT_EQ(e.command_specific_info, 0x99AABBCCDDEEFF00ULL);
  EXPECT_EQ(e.transport_type_specific_info, 0x7788);
  EXPECT_EQ((*r)[1].error_count, 7u);
  EXPECT_EQ((*r)[1].status_code(), 0x02);
  EXPECT_FALSE((*r)[1].do_not_retry());
}

TEST(DecodeErrorLog, ReadsNoMoreThanAskedFor) {
  std::vector<std::uint8_t> page(8 * kErrorLogEntryBytes, 0);
  for (std::size_t i = 0; i < 8; ++i) write_entry(page, i, 100 - i, status_field(2, 0x81, false));
  const auto r = decode_error_log(page, 3);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ(r->back().error_count, 98u);
}

TEST(DecodeErrorLog, AgreesWithLibnvmeStructLayout) {
  auto offset = [](const std::string& name) -> std::size_t {
    for (const auto& f : error_log_entry_fields()) {
      if (name == f.name) return f.offset;
    }
    ADD_FAILURE() << "no field " << name;
    return 0;
  };
  static_assert(sizeof(nvme_error_log_page) == kErrorLogEntryBytes);
  EXPECT_EQ(offset("Error Count"), offsetof(nvme_error_log_page, error_count));
  EXPECT_EQ(offset("Submission Queue ID"), offsetof(nvme_error_log_page, sqid));
  EXPECT_EQ(offset("Command ID"), offsetof(nvme_error_log_page, cmdid));
  EXPECT_EQ(offset("Status Info"), offsetof(nvme_error_log_page, status_field));
  EXPECT_EQ(offset("Parameter Error Location"), offsetof(nvme_error_log_page, parm_error_location));
  EXPECT_EQ(offset("LBA"), offsetof(nvme_error_log_page, lba));
  EXPECT_EQ(offset("Namespace"), offsetof(nvme_error_log_page, nsid));
  EXPECT_EQ(offset("Vendor Specific Information Available"), offsetof(nvme_error_log_page, vs));
  EXPECT_EQ(offset("Transport Type"), offsetof(nvme_error_log_page, trtype));
  EXPECT_EQ(offset("Command Specific Information"), offsetof(nvme_error_log_page, cs));
  EXPECT_EQ(offset("Transport Type Specific Information"), offsetof(nvme_error_log_page, trtype_spec_info));
  std::vector<int> owner(kErrorLogEntryBytes, -1);
  for (const auto& f : error_log_entry_fields()) {
    ASSERT_LE(f.offset + f.width, kErrorLogEntryBytes) << f.name;
    for (std::size_t b = f.offset; b < f.offset + f.width; ++b) {
      EXPECT_EQ(owner[b], -1) << f.name << " overlaps at byte " << b;
      owner[b] = 1;
    }
  }
}

TEST(DecodeErrorLog, TruncatedPagesAreDecodeErrors) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{65}, std::size_t{4095}}) {
    std::vector<std::uint8_t> page(n, 0xFF);
    const auto r = decode_error_log(page, kMaxErrorLogEntries);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().reason, ErrorReason::decode);
  }
}

// Random pages never crash, every value stays inside its field's width,
// classes are one of the fixed set, and an empty entry is never returned.
TEST(DecodeErrorLog, RandomPagesDecodeWithinFieldRanges) {
  std::mt19937_64 rng(20261203);
  const std::set<std::string> classes{
      "command_specific", "controller", "generic_host", "media", "other", "path", "vendor"};
  for (int round = 0; round < 2000; ++round) {
    const std::size_t entries = 1 + rng() % 80;
    std::vector<std::uint8_t> page(entries * kErrorLogEntryBytes);
    for (auto& b : page) b = static_cast<std::uint8_t>(rng());
    // Some entries empty, as a drive with fewer errors than slots has them.
    for (std::size_t i = 0; i < entries; ++i) {
      if (rng() % 3 == 0) put_le(page, i * kErrorLogEntryBytes, 0, 8);
    }
    const std::size_t max = rng() % 100;
    const auto r = decode_error_log(page, max);
    ASSERT_TRUE(r.ok());
    ASSERT_LE(r->size(), std::min(entries, max));
    for (const auto& e : *r) {
      EXPECT_NE(e.error_count, 0u);
      EXPECT_LE(e.status_code_type(), 7);
      EXPECT_TRUE(classes.count(std::string(to_text(classify_error_status(e)))));
      EXPECT_FALSE(error_status_text(e).empty());
    }
    // Truncating the same page by any amount that is not a whole entry fails cleanly.
    const std::size_t cut = 1 + rng() % (kErrorLogEntryBytes - 1);
    EXPECT_FALSE(decode_error_log(std::span(page).first(page.size() - cut), max).ok());
  }
}

TEST(ErrorStatusClass, KeepsTheHostsOwnMistakesApart) {
  auto cls = [](unsigned sct, unsigned sc) {
    ErrorLogEntry e;
    e.error_count = 1;
    e.status = status_field(sct, sc, false);
    return std::string(to_text(classify_error_status(e)));
  };
  EXPECT_EQ(cls(0, 0x01), "generic_host");  // invalid opcode: smartd's favourite false alarm
  EXPECT_EQ(cls(0, 0x02), "generic_host");  // invalid field
  EXPECT_EQ(cls(0, 0x0B), "generic_host");  // invalid namespace
  EXPECT_EQ(cls(0, 0x80), "generic_host");  // LBA out of range
  EXPECT_EQ(cls(0, 0x04), "controller");    // data transfer error
  EXPECT_EQ(cls(0, 0x06), "controller");    // internal error
  EXPECT_EQ(cls(1, 0x09), "command_specific");
  EXPECT_EQ(cls(2, 0x81), "media");
  EXPECT_EQ(cls(2, 0x80), "media");
  EXPECT_EQ(cls(3, 0x02), "path");
  EXPECT_EQ(cls(4, 0x00), "other");
  EXPECT_EQ(cls(6, 0x10), "other");
  EXPECT_EQ(cls(7, 0xC0), "vendor");
}

TEST(ErrorStatusText, NamesKnownCodesAndAlwaysGivesThem) {
  ErrorLogEntry e;
  e.status = status_field(2, 0x81, true);
  EXPECT_EQ(error_status_text(e), "Unrecovered Read Error (SCT 2h SC 81h, DNR)");
  e.status = status_field(7, 0xC3, false);
  EXPECT_EQ(error_status_text(e), "SCT 7h SC C3h");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
