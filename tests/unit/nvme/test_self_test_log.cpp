// The Device Self-test log (06h) decoder on pages built byte by byte from
// the specification's layout, on random and truncated pages, and the names
// a result's code and outcome are exported under.
#include <gtest/gtest.h>
#include <libnvme.h>

#include <cstddef>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "collectors/nvme/self_test_log.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

void put_le(std::vector<std::uint8_t>& page, std::size_t offset, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) page[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// A page whose 20 entries are all unused (result Fh), as a drive that never
// ran a test answers.
std::vector<std::uint8_t> empty_page() {
  std::vector<std::uint8_t> page(kSelfTestLogBytes, 0);
  for (std::size_t i = 0; i < kSelfTestResults; ++i) page[kSelfTestResultsOffset + i * kSelfTestResultBytes] = 0x0f;
  return page;
}

// One entry at `index`, every field a distinct value so a misplaced offset shows.
void write_entry(std::vector<std::uint8_t>& page, std::size_t index, std::uint8_t status, std::uint64_t poh) {
  const std::size_t base = kSelfTestResultsOffset + index * kSelfTestResultBytes;
  put_le(page, base + 0, status, 1);
  put_le(page, base + 1, 0x05, 1);                    // segment number
  put_le(page, base + 2, 0x0F, 1);                    // valid diagnostic info
  put_le(page, base + 3, 0xEE, 1);                    // reserved: must not leak in
  put_le(page, base + 4, poh, 8);                     // power on hours
  put_le(page, base + 12, 0x0A0B0C0D, 4);             // NSID
  put_le(page, base + 16, 0x1122334455667788ULL, 8);  // failing LBA
  put_le(page, base + 24, 0xFA, 1);                   // SCT: bits 7:3 reserved
  put_le(page, base + 25, 0x81, 1);                   // SC
  put_le(page, base + 26, 0x7788, 2);                 // vendor specific
}

TEST(DecodeSelfTestLog, EveryFieldAtItsSpecOffset) {
  auto page = empty_page();
  page[0] = 0xF2;                                     // extended test running; bits 7:4 reserved
  page[1] = 0xAA;                                     // bit 7 reserved: 42 %
  write_entry(page, 0, 0x27, 0x0000000100000002ULL);  // extended, failed segments
  write_entry(page, 1, 0x10, 1234);                   // short, passed
  const auto r = decode_self_test_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->current_operation, 2);
  EXPECT_TRUE(r->running());
  EXPECT_EQ(r->completion_pct, 42);
  ASSERT_EQ(r->results.size(), 2u);  // entries 2..19 unused
  const SelfTestResult& e = r->results[0];
  EXPECT_EQ(e.result(), 7);
  EXPECT_EQ(e.code(), 2);
  EXPECT_EQ(e.segment, 5);
  EXPECT_EQ(e.valid_diagnostic_info, 0x0F);
  EXPECT_EQ(e.power_on_hours, 0x0000000100000002ULL);
  EXPECT_EQ(e.nsid, 0x0A0B0C0Du);
  EXPECT_EQ(e.failing_lba, 0x1122334455667788ULL);
  EXPECT_EQ(e.status_code_type(), 2);
  EXPECT_EQ(e.status_code, 0x81);
  EXPECT_EQ(e.vendor_specific, 0x7788);
  EXPECT_EQ(r->results[1].result(), 0);
  EXPECT_EQ(r->results[1].code(), 1);
  EXPECT_EQ(r->results[1].power_on_hours, 1234u);
}

TEST(DecodeSelfTestLog, ADriveThatNeverRanATestHasNoResults) {
  const auto r = decode_self_test_log(empty_page());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->running());
  EXPECT_EQ(r->completion_pct, 0);
  EXPECT_TRUE(r->results.empty());
}

TEST(DecodeSelfTestLog, AgreesWithLibnvmeStructLayout) {
  auto offset = [](const std::string& name) -> std::size_t {
    for (const auto& f : self_test_result_fields()) {
      if (name == f.name) return f.offset;
    }
    ADD_FAILURE() << "no field " << name;
    return 0;
  };
  static_assert(sizeof(nvme_self_test_log) == kSelfTestLogBytes);
  static_assert(sizeof(nvme_st_result) == kSelfTestResultBytes);
  static_assert(NVME_LOG_ST_MAX_RESULTS == kSelfTestResults);
  static_assert(NVME_LOG_LID_DEVICE_SELF_TEST == kSelfTestLogId);
  EXPECT_EQ(offsetof(nvme_self_test_log, current_operation), 0u);
  EXPECT_EQ(offsetof(nvme_self_test_log, completion), 1u);
  EXPECT_EQ(offsetof(nvme_self_test_log, result), kSelfTestResultsOffset);
  EXPECT_EQ(offset("Device Self-test Status"), offsetof(nvme_st_result, dsts));
  EXPECT_EQ(offset("Segment Number"), offsetof(nvme_st_result, seg));
  EXPECT_EQ(offset("Valid Diagnostic Information"), offsetof(nvme_st_result, vdi));
  EXPECT_EQ(offset("Power On Hours"), offsetof(nvme_st_result, poh));
  EXPECT_EQ(offset("Namespace Identifier"), offsetof(nvme_st_result, nsid));
  EXPECT_EQ(offset("Failing LBA"), offsetof(nvme_st_result, flba));
  EXPECT_EQ(offset("Status Code Type"), offsetof(nvme_st_result, sct));
  EXPECT_EQ(offset("Status Code"), offsetof(nvme_st_result, sc));
  EXPECT_EQ(offset("Vendor Specific"), offsetof(nvme_st_result, vs));
  std::vector<int> owner(kSelfTestResultBytes, -1);
  for (const auto& f : self_test_result_fields()) {
    ASSERT_LE(f.offset + f.width, kSelfTestResultBytes) << f.name;
    for (std::size_t b = f.offset; b < f.offset + f.width; ++b) {
      EXPECT_EQ(owner[b], -1) << f.name << " overlaps at byte " << b;
      owner[b] = 1;
    }
  }
}

TEST(DecodeSelfTestLog, WrongSizedPagesAreDecodeErrors) {
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{563}, std::size_t{565}, std::size_t{4096}}) {
    std::vector<std::uint8_t> page(n, 0x00);
    const auto r = decode_self_test_log(page);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().reason, ErrorReason::decode);
  }
  EXPECT_EQ(decode_self_test_log(std::vector<std::uint8_t>(100)).error().message,
            "device self-test log (06h): expected 564 bytes, got 100");
}

// Random pages never crash, every value stays inside its field's range, the
// labels are one of the fixed set, and an unused entry is never returned.
TEST(DecodeSelfTestLog, RandomPagesDecodeWithinFieldRanges) {
  std::mt19937_64 rng(20261203);
  const std::set<std::string> results{
      "passed",      "aborted_command",        "aborted_reset",   "aborted_namespace_removed", "aborted_format",
      "fatal_error", "failed_segment_unknown", "failed_segments", "aborted_unknown",           "aborted_sanitize",
      "other"};
  const std::set<std::string> kinds{"short", "extended", "vendor", "other"};
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint8_t> page(kSelfTestLogBytes);
    for (auto& b : page) b = static_cast<std::uint8_t>(rng());
    const auto r = decode_self_test_log(page);
    ASSERT_TRUE(r.ok());
    EXPECT_LE(r->current_operation, 0x0f);
    EXPECT_LE(r->completion_pct, 100);
    ASSERT_LE(r->results.size(), kSelfTestResults);
    for (const auto& e : r->results) {
      EXPECT_NE(e.result(), kSelfTestResultUnused);
      EXPECT_LE(e.code(), 0x0f);
      EXPECT_LE(e.status_code_type(), 7);
      EXPECT_TRUE(results.count(std::string(self_test_result_text(e.result()))));
      EXPECT_TRUE(kinds.count(std::string(self_test_kind_text(e.code()))));
    }
    const std::size_t cut = 1 + rng() % (kSelfTestLogBytes - 1);
    EXPECT_FALSE(decode_self_test_log(std::span(page).first(page.size() - cut)).ok());
  }
}

TEST(SelfTestLabels, NameEveryResultAndKind) {
  const char* expected[] = {"passed",          "aborted_command", "aborted_reset",          "aborted_namespace_removed",
                            "aborted_format",  "fatal_error",     "failed_segment_unknown", "failed_segments",
                            "aborted_unknown", "aborted_sanitize"};
  for (std::uint8_t i = 0; i < 10; ++i) EXPECT_EQ(self_test_result_text(i), expected[i]);
  EXPECT_EQ(self_test_result_text(0x0A), "other");
  EXPECT_EQ(self_test_kind_text(1), "short");
  EXPECT_EQ(self_test_kind_text(2), "extended");
  EXPECT_EQ(self_test_kind_text(0xE), "vendor");
  EXPECT_EQ(self_test_kind_text(3), "other");
}

// The log's label, the command's kind and the configuration's value are one
// spelling: each kind's name reads back as that kind, and the log names the
// code the command sends by it.
TEST(SelfTestLabels, TheLogAndTheCommandSpellAKindAlike) {
  for (const auto kind : {SelfTestKind::short_test, SelfTestKind::extended_test}) {
    const std::string name = self_test_kind_name(kind);
    EXPECT_EQ(self_test_kind_from_name(name), kind);
    EXPECT_EQ(self_test_kind_text(static_cast<std::uint8_t>(kind)), name);
  }
  EXPECT_EQ(self_test_kind_names(), (std::vector<std::string>{"short", "extended"}));
  EXPECT_FALSE(self_test_kind_from_name("vendor"));
  EXPECT_FALSE(self_test_kind_from_name("Extended"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
