// The OCP decoders beyond C0's first 192 bytes: C0's later log page
// versions, the Latency Monitor (C3h), the Error Recovery log (C1h) and the
// Unsupported Requirements log (C5h), on
// the pages make_fixtures.py builds from the specification's layout, on
// random and truncated pages, and against nvme-cli's ocp plugin layout.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "collectors/nvme/decode.hpp"
#include "collectors/nvme/ocp_log_pages.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

std::vector<std::uint8_t> fixture(const std::string& name) {
  const std::string path = test::fixture_path("nvme/" + name);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void set_version(std::vector<std::uint8_t>& page, std::uint16_t v) {
  page[494] = static_cast<std::uint8_t>(v & 0xff);
  page[495] = static_cast<std::uint8_t>(v >> 8);
}

std::pair<std::size_t, std::size_t> span_at(std::size_t offset, std::size_t width) { return {offset, width}; }

template <typename S>
std::map<std::string, std::pair<std::size_t, std::size_t>> layout(std::span<const FieldSpec<S>> table) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> out;
  for (const auto& f : table) out[f.name] = {f.offset, f.width};
  return out;
}

TEST(DecodeOcpSmartLogVersions, Version6ReadsEveryLaterField) {
  const auto r = decode_ocp_smart_log(fixture("ocp_smart_v6.bin"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const OcpSmartLog& o = *r;
  EXPECT_EQ(o.log_page_version, 6);
  EXPECT_EQ(o.xor_recovery_count, 7u);  // the first 192 bytes as before
  EXPECT_EQ(o.dssd_errata_version, 1);
  EXPECT_EQ(o.dssd_point_version, 2);
  EXPECT_EQ(o.dssd_minor_version, 6);
  EXPECT_EQ(o.dssd_major_version, 2);
  EXPECT_EQ(o.nvme_base_errata_version, 0x41);
  EXPECT_EQ(o.nvme_command_set_errata_version, 0x42);
  EXPECT_EQ(o.nvme_over_pcie_errata_version, 0x43);
  EXPECT_EQ(o.nvme_mi_errata_version, 0x44);
  EXPECT_EQ(o.pcie_link_retraining_count, 22u);
  EXPECT_EQ(o.power_state_change_count, 23u);
  EXPECT_EQ(o.lowest_permitted_firmware_revision, 0x31302E322E315746ULL);
  EXPECT_EQ(o.total_media_dies, 256);
  EXPECT_EQ(o.total_die_failure_tolerance, 4);
  EXPECT_EQ(o.media_dies_offline, 3);
  EXPECT_EQ(o.max_temperature_recorded_c, 81);
  EXPECT_EQ(o.form_factor, 0x0B);
  EXPECT_EQ(o.nand_average_erase_count, 1234u);
  EXPECT_EQ(o.command_timeouts, 24u);
  EXPECT_EQ(o.system_area_program_failures_raw, 25u);
  EXPECT_EQ(o.system_area_program_failures_normalized, 97);
  EXPECT_EQ(o.system_area_uncorrectable_reads_raw, 26u);
  EXPECT_EQ(o.system_area_uncorrectable_reads_normalized, 96);
  EXPECT_EQ(o.system_area_erase_failures_raw, 27u);
  EXPECT_EQ(o.system_area_erase_failures_normalized, 95);
  EXPECT_EQ(o.max_peak_power_capability, 25);
  EXPECT_EQ(o.current_max_average_power, 14);
  EXPECT_EQ(o.lifetime_power_consumed, 0x10000u);
  EXPECT_EQ(o.die_in_use_bad_nand_blocks_raw, 0x777u);
}

// A drive of an older version may leave anything in bytes its layout
// reserves: those are not read as the later fields.
TEST(DecodeOcpSmartLogVersions, AnOlderVersionLeavesLaterFieldsUnread) {
  auto page = fixture("ocp_smart_v6.bin");
  set_version(page, 4);
  auto v4 = decode_ocp_smart_log(page);
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->power_state_change_count, 23u);
  EXPECT_EQ(v4->nvme_command_set_errata_version, 0x42);
  EXPECT_EQ(v4->lowest_permitted_firmware_revision, 0x31302E322E315746ULL);
  EXPECT_EQ(v4->media_dies_offline, 0);
  EXPECT_EQ(v4->command_timeouts, 0u);
  EXPECT_EQ(v4->nvme_over_pcie_errata_version, 0);

  set_version(page, 3);
  auto v3 = decode_ocp_smart_log(page);
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(v3->pcie_link_retraining_count, 22u);
  EXPECT_EQ(v3->dssd_major_version, 2);
  EXPECT_EQ(v3->nvme_command_set_errata_version, 0);
  EXPECT_EQ(v3->lowest_permitted_firmware_revision, 0u);

  set_version(page, 1);
  auto v1 = decode_ocp_smart_log(page);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->pcie_link_retraining_count, 0u);
  EXPECT_EQ(v1->dssd_major_version, 0);
  EXPECT_EQ(v1->unaligned_io, 18u);

  // A version newer than the decoder knows reads as the newest it knows.
  set_version(page, 9);
  auto v9 = decode_ocp_smart_log(page);
  ASSERT_TRUE(v9.ok());
  EXPECT_EQ(v9->die_in_use_bad_nand_blocks_raw, 0x777u);
}

TEST(DecodeOcpSmartLogVersions, GroupsComeInVersionOrderUpToTheNewestKnown) {
  std::uint16_t last = 1;
  for (const auto& g : ocp_smart_log_revisions()) {
    EXPECT_GT(g.since, last);
    last = g.since;
  }
  EXPECT_EQ(last, kOcpSmartLogNewestKnownVersion);
}

// Offsets and widths as nvme-cli's plugins/ocp/ocp-smart-extended-log.h
// declares struct ocp_smart_extended_log: an independent reading of the
// same table.
TEST(DecodeOcpSmartLogVersions, AgreesWithNvmeCliLayout) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> all;
  for (const auto& g : ocp_smart_log_revisions()) all.merge(layout(g.fields));
  const std::map<std::string, std::pair<std::size_t, std::size_t>> nvme_cli = {
      {"Errata Version Field", {98, 1}},
      {"Point Version Field", {99, 2}},
      {"Minor Version Field", {101, 2}},
      {"Major Version Field", {103, 1}},
      {"NVMe Base Errata Version", {130, 1}},
      {"NVMe Command Set Errata Version", {131, 1}},
      {"NVMe Over PCIe Errata Version", {132, 1}},
      {"NVMe-MI Errata Version", {133, 1}},
      {"PCIe Link Retraining Count", {192, 8}},
      {"Power State Change Count", {200, 8}},
      {"Lowest Permitted Firmware Revision", {208, 8}},
      {"Total Media Dies", {216, 2}},
      {"Total Die Failure Tolerance", {218, 2}},
      {"Media Dies Offline", {220, 2}},
      {"Max Temperature Recorded", {222, 1}},
      {"Form Factor", {223, 1}},
      {"NAND Average Erase Count", {224, 8}},
      {"Command Timeouts", {232, 4}},
      {"System Area Program Fail Count (raw)", {236, 4}},
      {"System Area Program Fail Count (normalized)", {240, 1}},
      {"System Area Uncorrectable Read Count (raw)", {244, 4}},
      {"System Area Uncorrectable Read Count (normalized)", {248, 1}},
      {"System Area Erase Fail Count (raw)", {252, 4}},
      {"System Area Erase Fail Count (normalized)", {256, 1}},
      {"Max Peak Power Capability", {260, 2}},
      {"Current Max Average Power", {262, 2}},
      {"Lifetime Power Consumed", {264, 6}},
      {"Die In Use Bad NAND Blocks (raw)", {358, 6}},
  };
  EXPECT_EQ(all, nvme_cli);
}

TEST(OcpFieldTables, EveryRowLiesInsideItsPageWithoutOverlap) {
  auto check = [](const std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>>& rows) {
    std::vector<std::string> owner(kOcpLogGuidOffset);
    for (const auto& [name, at] : rows) {
      ASSERT_LE(at.first + at.second, kOcpLogGuidOffset) << name;  // the GUID is no field
      for (std::size_t b = at.first; b < at.first + at.second; ++b) {
        EXPECT_EQ(owner[b], "") << name << " overlaps " << owner[b] << " at byte " << b;
        owner[b] = name;
      }
    }
  };
  std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> c0;
  for (const auto& f : ocp_smart_log_fields()) c0.push_back({f.name, {f.offset, f.width}});
  for (const auto& g : ocp_smart_log_revisions()) {
    for (const auto& f : g.fields) c0.push_back({f.name, {f.offset, f.width}});
  }
  check(c0);
  std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> c3, c1;
  for (const auto& f : ocp_latency_monitor_fields()) c3.push_back({f.name, {f.offset, f.width}});
  for (const auto& f : ocp_error_recovery_fields()) c1.push_back({f.name, {f.offset, f.width}});
  check(c3);
  check(c1);
}

TEST(DecodeOcpLatencyMonitor, EveryFieldAtItsSpecOffset) {
  const auto page = fixture("ocp_latency_monitor.bin");
  EXPECT_TRUE(has_ocp_guid(page, kOcpLatencyMonitorGuid));
  const auto r = decode_ocp_latency_monitor_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const OcpLatencyMonitorLog& l = *r;
  EXPECT_EQ(l.feature_status, 0x07);
  EXPECT_TRUE(l.enabled());
  EXPECT_EQ(l.active_bucket_timer, 11);
  EXPECT_EQ(l.active_bucket_timer_threshold, 0x7E0);
  EXPECT_EQ(l.threshold_ms(0), 30u);
  EXPECT_EQ(l.threshold_ms(1), 100u);
  EXPECT_EQ(l.threshold_ms(2), 155u);
  EXPECT_EQ(l.threshold_ms(3), 235u);
  EXPECT_EQ(l.active_latency_config, 0x0FFF);
  EXPECT_EQ(l.active_latency_min_window, 10);
  EXPECT_EQ(l.log_page_version, 4);
  // make_fixtures.py: 1000 (active) / 2000 (static) + 100 x bucket + 10 x slot,
  // slots deallocate 1, write 2, read 3.
  const unsigned slot[kOcpLatencyOps] = {3, 2, 1};
  for (std::size_t b = 0; b < kOcpLatencyBuckets; ++b) {
    for (std::size_t op = 0; op < kOcpLatencyOps; ++op) {
      EXPECT_EQ(l.active_bucket[b][op], 1000 + 100 * b + 10 * slot[op]) << "bucket " << b << " op " << op;
      EXPECT_EQ(l.static_bucket[b][op], 2000 + 100 * b + 10 * slot[op]) << "bucket " << b << " op " << op;
    }
  }
  EXPECT_EQ(l.static_over_threshold(OcpLatencyOp::read), 4u * 2030 + 600);
}

// Offsets as nvme-cli's plugins/ocp/ocp-nvme.h declares struct
// ssd_latency_monitor_log (counters [bucket][slot], slot 3 read, 2 write,
// 1 deallocate).
TEST(DecodeOcpLatencyMonitor, AgreesWithNvmeCliLayout) {
  const auto rows = layout(ocp_latency_monitor_fields());
  EXPECT_EQ(rows.at("Feature Status"), span_at(0x00, 1));
  EXPECT_EQ(rows.at("Active Bucket Timer"), span_at(0x02, 2));
  EXPECT_EQ(rows.at("Active Bucket Timer Threshold"), span_at(0x04, 2));
  EXPECT_EQ(rows.at("Active Threshold A"), span_at(0x06, 1));
  EXPECT_EQ(rows.at("Active Threshold D"), span_at(0x09, 1));
  EXPECT_EQ(rows.at("Active Latency Configuration"), span_at(0x0A, 2));
  EXPECT_EQ(rows.at("Active Latency Minimum Window"), span_at(0x0C, 1));
  EXPECT_EQ(rows.at("Active Bucket Counter 0 Read").first, 0x20u + 4 * 3);
  EXPECT_EQ(rows.at("Active Bucket Counter 3 Deallocate").first, 0x20u + 16 * 3 + 4 * 1);
  EXPECT_EQ(rows.at("Static Bucket Counter 0 Write").first, 0xF0u + 4 * 2);
  EXPECT_EQ(rows.at("Static Bucket Counter 3 Read").first, 0xF0u + 16 * 3 + 4 * 3);
  EXPECT_EQ(rows.at("Log Page Version"), span_at(0x1EE, 2));
  EXPECT_EQ(rows.size(), 9u + 2 * kOcpLatencyBuckets * kOcpLatencyOps + 1);
}

TEST(DecodeOcpErrorRecovery, EveryFieldAtItsSpecOffset) {
  const auto page = fixture("ocp_error_recovery.bin");
  const auto r = decode_ocp_error_recovery_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const OcpErrorRecoveryLog& e = *r;
  EXPECT_EQ(e.panic_reset_wait_time_ms, 750);
  EXPECT_EQ(e.panic_reset_action, 0x09);
  EXPECT_EQ(e.device_recovery_action_1, 4);
  EXPECT_EQ(e.panic_id, 0x0123456789ABCDEFULL);
  EXPECT_TRUE(e.panicked());
  EXPECT_EQ(e.device_capabilities, 0x13u);
  EXPECT_EQ(e.vendor_specific_recovery_opcode, 0xC7);
  EXPECT_EQ(e.vendor_specific_command_cdw12, 0x11112222u);
  EXPECT_EQ(e.vendor_specific_command_cdw13, 0x33334444u);
  EXPECT_EQ(e.vendor_specific_command_timeout, 30);
  EXPECT_EQ(e.device_recovery_action_2, 3);
  EXPECT_EQ(e.device_recovery_action_2_timeout, 60);
  EXPECT_EQ(e.panic_count, 5);
  const std::array<std::uint64_t, 4> previous = {0x77000000000000A1ULL, 0x77000000000000A2ULL, 0x77000000000000A3ULL,
                                                 0x77000000000000A4ULL};
  EXPECT_EQ(e.previous_panic_id, previous);
  EXPECT_EQ(e.log_page_version, 2);
  EXPECT_EQ(ocp_reset_action_text(e.panic_reset_action), "controller_reset+perst");
  EXPECT_EQ(ocp_recovery_action_text(e.device_recovery_action_1), "device_replacement");
}

// nvme-cli's struct ocp_error_recovery_log_page.
TEST(DecodeOcpErrorRecovery, AgreesWithNvmeCliLayout) {
  const auto rows = layout(ocp_error_recovery_fields());
  EXPECT_EQ(rows.at("Panic ID"), span_at(0x04, 8));
  EXPECT_EQ(rows.at("Device Capabilities"), span_at(0x0C, 4));
  EXPECT_EQ(rows.at("Vendor Specific Command CDW12"), span_at(0x14, 4));
  EXPECT_EQ(rows.at("Device Recovery Action 2"), span_at(0x1D, 1));
  EXPECT_EQ(rows.at("Panic Count"), span_at(0x1F, 1));
  EXPECT_EQ(rows.at("Previous Panic ID N-1"), span_at(0x20, 8));
  EXPECT_EQ(rows.at("Previous Panic ID N-4"), span_at(0x38, 8));
  EXPECT_EQ(rows.at("Log Page Version"), span_at(0x1EE, 2));
}

TEST(OcpLogPages, AnotherLogsGuidTruncationAndGarbageAreDecodeErrors) {
  // Each log's page under the other's GUID: a vendor's own layout at that LID.
  const auto c3 = decode_ocp_latency_monitor_log(fixture("ocp_latency_monitor_wrong_guid.bin"));
  ASSERT_FALSE(c3.ok());
  EXPECT_EQ(c3.error().reason, ErrorReason::decode);
  EXPECT_EQ(c3.error().message,
            "OCP latency monitor log (C3h): log page GUID 5a1983ba3dfd4dabae3430fe2131d944 is not the OCP GUID");
  const auto c1 = decode_ocp_error_recovery_log(fixture("ocp_error_recovery_wrong_guid.bin"));
  ASSERT_FALSE(c1.ok());
  EXPECT_EQ(c1.error().message,
            "OCP error recovery log (C1h): log page GUID 85d45e58d4e643709c6c84d08cc07a92 is not the OCP GUID");
  // The C0 page is not a C3 or C1 page either.
  EXPECT_FALSE(decode_ocp_latency_monitor_log(fixture("ocp_smart.bin")).ok());
  EXPECT_FALSE(decode_ocp_error_recovery_log(fixture("ocp_smart.bin")).ok());

  auto page = fixture("ocp_latency_monitor.bin");
  page.resize(511);
  EXPECT_EQ(decode_ocp_latency_monitor_log(page).error().message,
            "OCP latency monitor log (C3h): expected 512 bytes, got 511");
  auto rec = fixture("ocp_error_recovery.bin");
  rec.push_back(0);
  EXPECT_EQ(decode_ocp_error_recovery_log(rec).error().message,
            "OCP error recovery log (C1h): expected 512 bytes, got 513");
  EXPECT_FALSE(decode_ocp_latency_monitor_log(fixture("garbage_512.bin")).ok());
  EXPECT_FALSE(decode_ocp_error_recovery_log(fixture("garbage_512.bin")).ok());
}

// Random bodies under the right GUID and version (the only bytes a decoder
// checks), and random truncations: no crash, and every value within what
// its field and the accessors promise.
TEST(OcpLogPages, RandomAndTruncatedPagesDecodeWithinFieldRanges) {
  std::mt19937_64 rng(20261203);
  auto random_page = [&](const std::vector<std::uint8_t>& model) {
    std::vector<std::uint8_t> p(kOcpLogPageBytes);
    for (auto& b : p) b = static_cast<std::uint8_t>(rng());
    std::copy(model.begin() + kOcpLogGuidOffset, model.end(), p.begin() + kOcpLogGuidOffset);
    return p;
  };
  const auto c0 = fixture("ocp_smart_v6.bin");
  const auto c3 = fixture("ocp_latency_monitor.bin");
  const auto c1 = fixture("ocp_error_recovery.bin");
  for (int i = 0; i < 2000; ++i) {
    auto p0 = random_page(c0);
    set_version(p0, static_cast<std::uint16_t>(rng() % 8));
    const auto o = decode_ocp_smart_log(p0);
    ASSERT_TRUE(o.ok());
    EXPECT_LE(o->refresh_counts, (1ULL << 56) - 1);
    EXPECT_LE(o->bad_user_nand_blocks_raw, (1ULL << 48) - 1);
    EXPECT_LE(o->lifetime_power_consumed, (1ULL << 48) - 1);
    EXPECT_LE(o->die_in_use_bad_nand_blocks_raw, (1ULL << 48) - 1);
    if (o->log_page_version < 5) {
      EXPECT_EQ(o->media_dies_offline, 0);
      EXPECT_EQ(o->command_timeouts, 0u);
    }
    if (o->log_page_version < 2) {
      EXPECT_EQ(o->pcie_link_retraining_count, 0u);
    }

    const auto l = decode_ocp_latency_monitor_log(random_page(c3));
    ASSERT_TRUE(l.ok());
    for (std::size_t b = 0; b < kOcpLatencyBuckets; ++b) {
      EXPECT_GE(l->threshold_ms(b), 5u);
      EXPECT_LE(l->threshold_ms(b), 1280u);
    }
    EXPECT_LE(l->static_over_threshold(OcpLatencyOp::write), 4ULL * UINT32_MAX);

    const auto e = decode_ocp_error_recovery_log(random_page(c1));
    ASSERT_TRUE(e.ok());
    EXPECT_FALSE(ocp_reset_action_text(e->panic_reset_action).empty());
    const auto action = ocp_recovery_action_text(e->device_recovery_action_1);
    EXPECT_TRUE(e->device_recovery_action_1 < 6 ? action != "other" : action == "other");

    const std::size_t cut = rng() % kOcpLogPageBytes;
    EXPECT_FALSE(decode_ocp_smart_log(std::span(c0).first(cut)).ok());
    EXPECT_FALSE(decode_ocp_latency_monitor_log(std::span(c3).first(cut)).ok());
    EXPECT_FALSE(decode_ocp_error_recovery_log(std::span(c1).first(cut)).ok());
  }
}

TEST(OcpErrorRecoveryText, NamesEveryResetBitAndRecoveryAction) {
  EXPECT_EQ(ocp_reset_action_text(0), "none");
  EXPECT_EQ(ocp_reset_action_text(0x3F),
            "controller_reset+subsystem_reset+pcie_function_level_reset+perst+power_cycle+pcie_hot_reset");
  EXPECT_EQ(ocp_reset_action_text(0xC0), "bit6+bit7");
  EXPECT_EQ(ocp_recovery_action_text(0), "none");
  EXPECT_EQ(ocp_recovery_action_text(5), "sanitize");
  EXPECT_EQ(ocp_recovery_action_text(0xFF), "other");
}

// The generic read's GUID check: a page of the spec's size whose last 16
// bytes are its GUID, whatever the size.
TEST(OcpLogPageGuid, IsTheLastSixteenBytesOfAPageOfTheSpecsSize) {
  const OcpLogPage spec{0xC9, 4096, (static_cast<u128>(0x0123456789ABCDEFULL) << 64) | 0xFEDCBA9876543210ULL, "test"};
  std::vector<std::uint8_t> page(4096);
  for (std::size_t i = 0; i < 16; ++i) page[4080 + i] = static_cast<std::uint8_t>(spec.guid >> (8 * i));
  EXPECT_TRUE(has_ocp_guid(page, spec));
  EXPECT_FALSE(has_ocp_guid(std::span(page).first(4095), spec));
  page[4080] ^= 1;
  EXPECT_FALSE(has_ocp_guid(page, spec));
  const auto c3 = fixture("ocp_latency_monitor.bin");
  EXPECT_TRUE(has_ocp_guid(c3, kOcpLatencyMonitorPage));
  EXPECT_FALSE(has_ocp_guid(c3, kOcpErrorRecoveryPage));
}

// C5h as nvme-cli's ocp plugin lays it out: the count at byte 0, 16-byte
// IDs from byte 16, the version at 4078, the GUID at 4080.
std::vector<std::uint8_t> c5_page(const std::vector<std::string>& ids, std::size_t count) {
  const OcpLogPage& spec = kOcpUnsupportedRequirementsPage;
  std::vector<std::uint8_t> page(spec.bytes);
  page[0] = static_cast<std::uint8_t>(count & 0xff);
  page[1] = static_cast<std::uint8_t>(count >> 8);
  for (std::size_t i = 0; i < ids.size(); ++i) std::copy(ids[i].begin(), ids[i].end(), page.begin() + 16 + 16 * i);
  page[4078] = 1;
  for (std::size_t i = 0; i < 16; ++i) page[4080 + i] = static_cast<std::uint8_t>(spec.guid >> (8 * i));
  return page;
}

TEST(DecodeOcpUnsupportedRequirements, ReadsTheCountedIdsAndTheVersion) {
  // A 16-character ID fills its slot with no NUL; an ID past the count is not read.
  auto page = c5_page({"GETF-1", "SEC-12", "ABCDEFGHIJKLMNOP", "NOT-COUNTED"}, 3);
  const auto r = decode_ocp_unsupported_requirements_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->requirement_ids, (std::vector<std::string>{"GETF-1", "SEC-12", "ABCDEFGHIJKLMNOP"}));
  EXPECT_EQ(r->log_page_version, 1);
  EXPECT_TRUE(decode_ocp_unsupported_requirements_log(c5_page({}, 0))->requirement_ids.empty());
}

TEST(DecodeOcpUnsupportedRequirements, RefusesAnotherGuidAnotherSizeAndACountOverTheIdsItHolds) {
  auto page = c5_page({"GETF-1"}, 1);
  EXPECT_EQ(decode_ocp_unsupported_requirements_log(std::span(page).first(512)).error().reason, ErrorReason::decode);
  EXPECT_EQ(decode_ocp_unsupported_requirements_log(c5_page({}, 254)).error().reason, ErrorReason::decode);
  EXPECT_TRUE(decode_ocp_unsupported_requirements_log(c5_page({}, 253)).ok());
  page[4095] ^= 0xff;
  EXPECT_EQ(decode_ocp_unsupported_requirements_log(page).error().reason, ErrorReason::decode);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
