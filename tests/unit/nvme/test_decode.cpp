// Decoders against the recorded pages of tests/fixtures/nvme (made by
// make_fixtures.py; the expected values below are the ones its README lists).
#include <gtest/gtest.h>
#include <libnvme.h>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "collectors/nvme/decode.hpp"
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

constexpr u128 kTwo64 = static_cast<u128>(1) << 64;

// u128 has no operator<< for gtest messages: compare as decimal strings.
#define EXPECT_U128_EQ(actual, expected) EXPECT_EQ(to_string(actual), to_string(expected))

TEST(DecodeSmartLog, FullPageEveryField) {
  const auto page = fixture("smart_full.bin");
  const auto r = decode_smart_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const SmartLog& s = *r;
  EXPECT_EQ(s.critical_warning, kWarnTemperature | kWarnReadOnly);
  EXPECT_EQ(s.composite_temperature_k, 345);
  EXPECT_EQ(s.available_spare_pct, 87);
  EXPECT_EQ(s.available_spare_threshold_pct, 10);
  EXPECT_EQ(s.percentage_used, 123);
  EXPECT_EQ(s.endurance_group_critical_warning, 0x05);
  EXPECT_U128_EQ(s.data_units_read, kTwo64 + 6789);
  EXPECT_U128_EQ(s.data_units_written, kTwo64 + 12345);
  EXPECT_TRUE(s.data_units_written == kTwo64 + 12345);  // exact 128-bit comparison
  EXPECT_U128_EQ(s.host_read_commands, 9876543210123ULL);
  EXPECT_U128_EQ(s.host_write_commands, (static_cast<u128>(1) << 100) + 1);
  EXPECT_U128_EQ(s.controller_busy_minutes, 4321);
  EXPECT_U128_EQ(s.power_cycles, 77);
  EXPECT_U128_EQ(s.power_on_hours, 26280);
  EXPECT_U128_EQ(s.unsafe_shutdowns, 5);
  EXPECT_U128_EQ(s.media_errors, 2);
  EXPECT_U128_EQ(s.error_log_entries, 314);
  EXPECT_EQ(s.thermal.warning_minutes, 1234u);
  EXPECT_EQ(s.thermal.critical_minutes, 56u);
  const std::array<std::uint16_t, 8> sensors{330, 341, 0, 0, 352, 0, 0, 0};
  EXPECT_EQ(s.sensor_temperature_k, sensors);
  EXPECT_EQ(s.thermal.tmt1_transitions, 11u);
  EXPECT_EQ(s.thermal.tmt2_transitions, 3u);
  EXPECT_EQ(s.thermal.tmt1_seconds, 600u);
  EXPECT_EQ(s.thermal.tmt2_seconds, 90u);
}

// A page of a drive that has barely run (the fresh fixture, QEMU's): no
// warning and no sensor but the composite temperature, and a few I/Os.
struct QuietPage {
  std::uint16_t temperature_k;  // composite
  std::uint8_t spare_pct;
  unsigned units_read, units_written, read_commands;
};

void expect_quiet(const SmartLog& s, const QuietPage& want) {
  EXPECT_EQ(s.critical_warning, 0);
  EXPECT_EQ(s.composite_temperature_k, want.temperature_k);
  EXPECT_EQ(s.available_spare_pct, want.spare_pct);
  EXPECT_U128_EQ(s.data_units_read, want.units_read);
  EXPECT_U128_EQ(s.data_units_written, want.units_written);
  EXPECT_U128_EQ(s.host_read_commands, want.read_commands);
  for (auto k : s.sensor_temperature_k) EXPECT_EQ(k, 0);
}

TEST(DecodeSmartLog, FreshPageHasNoSensorsOrWarnings) {
  const auto r = decode_smart_log(fixture("smart_fresh.bin"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  expect_quiet(*r,
               {.temperature_k = 323, .spare_pct = 100, .units_read = 17, .units_written = 3, .read_commands = 620});
  EXPECT_U128_EQ(r->host_write_commands, 44);
  EXPECT_U128_EQ(r->power_cycles, 1);
}

TEST(DecodeSmartLog, AllOnesSaturatesEveryWidth) {
  const auto r = decode_smart_log(fixture("smart_all_ff.bin"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->composite_temperature_k, 0xffff);
  EXPECT_EQ(r->percentage_used, 255);
  EXPECT_TRUE(r->data_units_written == ~static_cast<u128>(0));
  EXPECT_TRUE(r->error_log_entries == ~static_cast<u128>(0));
  EXPECT_EQ(r->thermal.tmt2_seconds, 0xffffffffu);
  EXPECT_EQ(r->sensor_temperature_k[7], 0xffff);
}

TEST(DecodeSmartLog, TruncatedAndOversizedPagesAreDecodeErrors) {
  const auto truncated = decode_smart_log(fixture("smart_truncated.bin"));
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().reason, ErrorReason::decode);
  EXPECT_EQ(truncated.error().message, "SMART log (02h): expected 512 bytes, got 100");

  EXPECT_EQ(decode_smart_log({}).error().message, "SMART log (02h): expected 512 bytes, got 0");
  const std::vector<std::uint8_t> big(4096);
  EXPECT_EQ(decode_smart_log(big).error().message, "SMART log (02h): expected 512 bytes, got 4096");
}

TEST(DecodeSmartLog, GarbageOfTheRightSizeDecodesWithoutFault) {
  // Nothing in a SMART page can be checked, so garbage decodes; under ASan and
  // UBSan this shows no field reads outside the page.
  EXPECT_TRUE(decode_smart_log(fixture("garbage_512.bin")).ok());
}

TEST(DecodeIdentifyController, EveryField) {
  const auto r = decode_identify_controller(fixture("identify_ctrl.bin"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ControllerIdentity& c = *r;
  EXPECT_EQ(c.vid, 0x1B36);
  EXPECT_EQ(c.ssvid, 0x1AF4);
  EXPECT_EQ(c.serial, "SN-TEST-0001");
  EXPECT_EQ(c.model, "nvmond Fixture Model 3.84TB");
  EXPECT_EQ(c.firmware, "FW1.2");
  EXPECT_EQ(c.cntlid, 0x41);
  EXPECT_EQ(c.version, 0x00010400u);
  EXPECT_EQ(c.lpa, 0x1E);
  EXPECT_EQ(c.wctemp_k, 343);
  EXPECT_EQ(c.cctemp_k, 373);
  EXPECT_U128_EQ(c.tnvmcap, 2 * kTwo64 + 3840755982336ULL);
  EXPECT_EQ(c.hctma, 1);
  EXPECT_EQ(c.mntmt_k, 313);
  EXPECT_EQ(c.mxtmt_k, 358);
  EXPECT_EQ(c.nn, 32u);
}

TEST(DecodeIdentifyController, Errors) {
  const auto truncated = decode_identify_controller(fixture("identify_ctrl_truncated.bin"));
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().reason, ErrorReason::decode);
  EXPECT_EQ(truncated.error().message, "identify controller: expected 4096 bytes, got 1000");

  const auto bad_sn = decode_identify_controller(fixture("identify_ctrl_bad_serial.bin"));
  ASSERT_FALSE(bad_sn.ok());
  EXPECT_EQ(bad_sn.error().message, "identify controller: SN is not printable ASCII");

  const auto garbage = decode_identify_controller(fixture("garbage_4096.bin"));
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().reason, ErrorReason::decode);
}

TEST(DecodeIdentifyController, NulPaddedStringsAreTrimmed) {
  auto page = fixture("identify_ctrl.bin");
  std::fill(page.begin() + 64 + 5, page.begin() + 72, std::uint8_t{0});  // "FW1.2\0\0\0"
  const auto r = decode_identify_controller(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->firmware, "FW1.2");
}

TEST(DecodeIdentifyNamespace, SizesAndInUseLbaFormat) {
  const auto r = decode_identify_namespace(fixture("identify_ns.bin"), 3);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->nsid, 3u);
  EXPECT_EQ(r->nsze, 7501476528ULL);
  EXPECT_EQ(r->ncap, 7501476000ULL);
  EXPECT_EQ(r->nuse, 1048576ULL);
  EXPECT_EQ(r->lba_bytes, 4096u);  // FLBAS 1 -> format 1 -> LBADS 12
  EXPECT_EQ(r->lba_format, 1u);    // what a purge's format keeps
  EXPECT_EQ(r->size_bytes(), 7501476528ULL * 4096);
}

TEST(DecodeIdentifyNamespace, Errors) {
  const auto bad_lbads = decode_identify_namespace(fixture("identify_ns_bad_lbads.bin"), 1);
  ASSERT_FALSE(bad_lbads.ok());
  EXPECT_EQ(bad_lbads.error().reason, ErrorReason::decode);
  EXPECT_EQ(bad_lbads.error().message, "identify namespace 1: LBA format 0 has invalid data size 2^0");

  const auto bad_flbas = decode_identify_namespace(fixture("identify_ns_bad_flbas.bin"), 2);
  ASSERT_FALSE(bad_flbas.ok());
  EXPECT_EQ(bad_flbas.error().message, "identify namespace 2: FLBAS selects LBA format 5 of 2");

  const std::vector<std::uint8_t> short_page(512);
  EXPECT_EQ(decode_identify_namespace(short_page, 1).error().message,
            "identify namespace: expected 4096 bytes, got 512");
  EXPECT_FALSE(decode_identify_namespace(fixture("garbage_4096.bin"), 1).ok());
}

TEST(DecodeNamespaceList, StopsAtFirstZero) {
  const auto r = decode_namespace_list(fixture("ns_list.bin"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::uint32_t>{1, 2, 7}));
  EXPECT_FALSE(decode_namespace_list(fixture("smart_full.bin")).ok());
}

// Pages recorded from QEMU 7.2's emulated controller (README.md).
TEST(DecodeRecordedQemu, SmartLog) {
  const auto r = decode_smart_log(fixture("qemu_smart.bin"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  expect_quiet(*r, {.temperature_k = 323, .spare_pct = 0, .units_read = 1, .units_written = 0, .read_commands = 4});
}

TEST(DecodeRecordedQemu, IdentifyControllerNamespaceAndList) {
  const auto c = decode_identify_controller(fixture("qemu_identify_ctrl.bin"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->vid, 0x1B36);
  EXPECT_EQ(c->ssvid, 0x1AF4);
  EXPECT_EQ(c->serial, "SN-QEMU-LAB");
  EXPECT_EQ(c->model, "QEMU NVMe Ctrl");
  EXPECT_EQ(c->firmware, "7.2.22");
  EXPECT_EQ(c->version, 0x00010400u);
  EXPECT_EQ(c->wctemp_k, 343);
  EXPECT_EQ(c->cctemp_k, 373);
  EXPECT_U128_EQ(c->tnvmcap, 0);
  EXPECT_EQ(c->nn, 256u);
  // QEMU 7.2 supports Format and Namespace Management, not Device Self-test.
  EXPECT_EQ(c->oacs, 0x010Au);
  EXPECT_EQ(c->oacs & kOacsDeviceSelfTest, 0u);
  // Nor host controlled thermal management: nvmond does not ask for Get Features 10h.
  EXPECT_EQ(c->hctma & kHctmaSupported, 0u);

  const auto ns = decode_identify_namespace(fixture("qemu_identify_ns.bin"), 1);
  ASSERT_TRUE(ns.ok()) << ns.error().message;
  EXPECT_EQ(ns->nsze, 131072u);
  EXPECT_EQ(ns->nuse, 131072u);
  EXPECT_EQ(ns->lba_bytes, 512u);
  EXPECT_EQ(ns->size_bytes(), 64u << 20);

  const auto list = decode_namespace_list(fixture("qemu_ns_list.bin"));
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(*list, std::vector<std::uint32_t>{1});
}

TEST(DecodeOcpSmartLog, EveryField) {
  const auto page = fixture("ocp_smart.bin");
  EXPECT_TRUE(has_ocp_smart_log_guid(page));
  const auto r = decode_ocp_smart_log(page);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const OcpSmartLog& o = *r;
  EXPECT_U128_EQ(o.physical_media_units_written, kTwo64 + 1000);
  EXPECT_U128_EQ(o.physical_media_units_read, 2 * kTwo64 + 2000);
  EXPECT_EQ(o.bad_user_nand_blocks_raw, 0x12345678ULL);  // the normalized value (99) not mixed in
  EXPECT_EQ(o.bad_system_nand_blocks_raw, 0x42u);
  EXPECT_EQ(o.xor_recovery_count, 7u);
  EXPECT_EQ(o.uncorrectable_read_errors, 8u);
  EXPECT_EQ(o.soft_ecc_errors, 9u);
  EXPECT_EQ(o.end_to_end_detected_errors, 10u);
  EXPECT_EQ(o.end_to_end_corrected_errors, 11u);
  EXPECT_EQ(o.system_data_percent_used, 12);
  EXPECT_EQ(o.refresh_counts, 0x00ABCDEF01234567ULL);
  EXPECT_EQ(o.user_data_erase_count_max, 5000u);
  EXPECT_EQ(o.user_data_erase_count_min, 4000u);
  EXPECT_EQ(o.thermal_throttling_count, 13);
  EXPECT_EQ(o.thermal_throttling_status, 2);
  EXPECT_U128_EQ(o.pcie_correctable_errors, 14);
  EXPECT_EQ(o.incomplete_shutdowns, 15u);
  EXPECT_EQ(o.free_blocks_pct, 16);
  EXPECT_EQ(o.capacitor_health_pct, 17);
  EXPECT_EQ(o.unaligned_io, 18u);
  EXPECT_EQ(o.security_version, 19u);
  EXPECT_U128_EQ(o.nuse, 20);
  EXPECT_U128_EQ(o.plp_start_count, 21);
  EXPECT_U128_EQ(o.endurance_estimate, 7'000'000'000'000'000ULL);
  EXPECT_EQ(o.log_page_version, 3);
}

TEST(DecodeOcpSmartLog, WrongGuidTruncatedAndGarbageAreDecodeErrors) {
  const auto wrong = fixture("ocp_smart_wrong_guid.bin");
  EXPECT_FALSE(has_ocp_smart_log_guid(wrong));
  const auto r = decode_ocp_smart_log(wrong);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, ErrorReason::decode);
  EXPECT_EQ(r.error().message,
            "OCP SMART log (C0h): log page GUID 0f0e0d0c0b0a09080706050403020100 is not the OCP GUID");

  const auto truncated = fixture("ocp_smart_truncated.bin");
  EXPECT_FALSE(has_ocp_smart_log_guid(truncated));
  EXPECT_EQ(decode_ocp_smart_log(truncated).error().message, "OCP SMART log (C0h): expected 512 bytes, got 256");

  EXPECT_EQ(decode_ocp_smart_log(fixture("garbage_512.bin")).error().reason, ErrorReason::decode);
  // A SMART page read through log C0h (a drive ignoring the LID) is not OCP.
  EXPECT_FALSE(decode_ocp_smart_log(fixture("smart_full.bin")).ok());
}

TEST(TemperatureThreshold, Cdw11SelectsSensorAndKind) {
  EXPECT_EQ(temperature_threshold_cdw11(0, ThresholdKind::over), 0x00000000u);
  EXPECT_EQ(temperature_threshold_cdw11(0, ThresholdKind::under), 0x00100000u);
  EXPECT_EQ(temperature_threshold_cdw11(1, ThresholdKind::over), 0x00010000u);
  EXPECT_EQ(temperature_threshold_cdw11(8, ThresholdKind::under), 0x00180000u);
}

TEST(TemperatureThreshold, Dword0KeepsTmpthOnly) {
  EXPECT_EQ(decode_temperature_threshold(343), 343);
  // Bits above 15 are reserved: a controller echoing TMPSEL/THSEL there must not leak in.
  EXPECT_EQ(decode_temperature_threshold(0x00180000u | 273u), 273);
}

TEST(HostThermalManagement, Dword0CarriesTmt1HighAndTmt2Low) {
  // A drive throttling lightly at 70 °C (343 K) and heavily at 75 °C (348 K).
  EXPECT_EQ(decode_host_thermal_management(0x0157015Cu), (HostThermalManagement{.tmt1_k = 343, .tmt2_k = 348}));
  // TMT2 disabled (0), TMT1 set; and a controller with both disabled.
  EXPECT_EQ(decode_host_thermal_management(0x01570000u), (HostThermalManagement{.tmt1_k = 343, .tmt2_k = 0}));
  EXPECT_EQ(decode_host_thermal_management(0u), (HostThermalManagement{}));
  // Bytes as the completion queue entry holds them (little-endian dword 0).
  const std::uint8_t cqe_dw0[4] = {0x5C, 0x01, 0x57, 0x01};
  std::uint32_t dw0 = 0;
  for (int i = 3; i >= 0; --i) dw0 = (dw0 << 8) | cqe_dw0[i];
  EXPECT_EQ(decode_host_thermal_management(dw0).tmt1_k, 343);
  EXPECT_EQ(decode_host_thermal_management(dw0).tmt2_k, 348);
}

// The field tables must agree with libnvme's own C layouts, written
// independently from the same specification.
template <typename S>
std::size_t offset_of(std::span<const FieldSpec<S>> table, const std::string& name) {
  for (const auto& f : table) {
    if (name == f.name) return f.offset;
  }
  ADD_FAILURE() << "no field " << name;
  return 0;
}

TEST(FieldTables, AgreeWithLibnvmeStructLayouts) {
  const auto smart = smart_log_fields();
  EXPECT_EQ(offset_of(smart, "Composite Temperature"), offsetof(nvme_smart_log, temperature));
  EXPECT_EQ(offset_of(smart, "Endurance Group Critical Warning Summary"),
            offsetof(nvme_smart_log, endu_grp_crit_warn_sumry));
  EXPECT_EQ(offset_of(smart, "Data Units Written"), offsetof(nvme_smart_log, data_units_written));
  EXPECT_EQ(offset_of(smart, "Number of Error Information Log Entries"), offsetof(nvme_smart_log, num_err_log_entries));
  EXPECT_EQ(offset_of(smart, "Warning Composite Temperature Time"), offsetof(nvme_smart_log, warning_temp_time));
  EXPECT_EQ(offset_of(smart, "Temperature Sensor 1"), offsetof(nvme_smart_log, temp_sensor));
  EXPECT_EQ(offset_of(smart, "Thermal Management Temperature 1 Transition Count"),
            offsetof(nvme_smart_log, thm_temp1_trans_count));
  EXPECT_EQ(offset_of(smart, "Total Time For Thermal Management Temperature 2"),
            offsetof(nvme_smart_log, thm_temp2_total_time));

  const auto ctrl = identify_controller_fields();
  EXPECT_EQ(offset_of(ctrl, "CNTLID"), offsetof(nvme_id_ctrl, cntlid));
  EXPECT_EQ(offset_of(ctrl, "VER"), offsetof(nvme_id_ctrl, ver));
  EXPECT_EQ(offset_of(ctrl, "OACS"), offsetof(nvme_id_ctrl, oacs));
  EXPECT_EQ(offset_of(ctrl, "LPA"), offsetof(nvme_id_ctrl, lpa));
  EXPECT_EQ(offset_of(ctrl, "ELPE"), offsetof(nvme_id_ctrl, elpe));
  EXPECT_EQ(offset_of(ctrl, "WCTEMP"), offsetof(nvme_id_ctrl, wctemp));
  EXPECT_EQ(offset_of(ctrl, "CCTEMP"), offsetof(nvme_id_ctrl, cctemp));
  EXPECT_EQ(offset_of(ctrl, "TNVMCAP"), offsetof(nvme_id_ctrl, tnvmcap));
  EXPECT_EQ(offset_of(ctrl, "HCTMA"), offsetof(nvme_id_ctrl, hctma));
  EXPECT_EQ(offset_of(ctrl, "MNTMT"), offsetof(nvme_id_ctrl, mntmt));
  EXPECT_EQ(offset_of(ctrl, "MXTMT"), offsetof(nvme_id_ctrl, mxtmt));
  EXPECT_EQ(offset_of(ctrl, "NN"), offsetof(nvme_id_ctrl, nn));

  const auto ns = identify_namespace_fields();
  EXPECT_EQ(offset_of(ns, "NUSE"), offsetof(nvme_id_ns, nuse));
}

TEST(FieldTables, EveryRowLiesInsideItsPageWithoutOverlap) {
  auto check = [](auto table, std::size_t page_bytes) {
    std::vector<int> owner(page_bytes, -1);
    for (std::size_t i = 0; i < table.size(); ++i) {
      const auto& f = table[i];
      ASSERT_LE(f.offset + f.width, page_bytes) << f.name;
      for (std::size_t b = f.offset; b < f.offset + f.width; ++b) {
        EXPECT_EQ(owner[b], -1) << f.name << " overlaps another field at byte " << b;
        owner[b] = static_cast<int>(i);
      }
    }
  };
  check(smart_log_fields(), kSmartLogBytes);
  check(identify_controller_fields(), kIdentifyBytes);
  check(identify_namespace_fields(), kIdentifyBytes);
  check(ocp_smart_log_fields(), kOcpSmartLogBytes - 16);  // GUID bytes are not a field
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
