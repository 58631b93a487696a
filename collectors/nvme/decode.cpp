#include "collectors/nvme/decode.hpp"

#include <fmt/core.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace nvmond {

namespace {

// Byte offsets and widths: NVMe Base Specification 1.4, figure "SMART / Health
// Information Log Page". Reserved ranges (7..31, 232..511) are not read.
constexpr std::array kSmartFields = {
    field<&SmartLog::critical_warning>("Critical Warning", 0, 1),
    field<&SmartLog::composite_temperature_k>("Composite Temperature", 1, 2),
    field<&SmartLog::available_spare_pct>("Available Spare", 3, 1),
    field<&SmartLog::available_spare_threshold_pct>("Available Spare Threshold", 4, 1),
    field<&SmartLog::percentage_used>("Percentage Used", 5, 1),
    field<&SmartLog::endurance_group_critical_warning>("Endurance Group Critical Warning Summary", 6, 1),
    field<&SmartLog::data_units_read>("Data Units Read", 32, 16),
    field<&SmartLog::data_units_written>("Data Units Written", 48, 16),
    field<&SmartLog::host_read_commands>("Host Read Commands", 64, 16),
    field<&SmartLog::host_write_commands>("Host Write Commands", 80, 16),
    field<&SmartLog::controller_busy_minutes>("Controller Busy Time", 96, 16),
    field<&SmartLog::power_cycles>("Power Cycles", 112, 16),
    field<&SmartLog::power_on_hours>("Power On Hours", 128, 16),
    field<&SmartLog::unsafe_shutdowns>("Unsafe Shutdowns", 144, 16),
    field<&SmartLog::media_errors>("Media and Data Integrity Errors", 160, 16),
    field<&SmartLog::error_log_entries>("Number of Error Information Log Entries", 176, 16),
    field<&SmartLog::thermal, &SmartThermalCounters::warning_minutes>("Warning Composite Temperature Time", 192, 4),
    field<&SmartLog::thermal, &SmartThermalCounters::critical_minutes>("Critical Composite Temperature Time", 196, 4),
    element<&SmartLog::sensor_temperature_k, 0>("Temperature Sensor 1", 200, 2),
    element<&SmartLog::sensor_temperature_k, 1>("Temperature Sensor 2", 202, 2),
    element<&SmartLog::sensor_temperature_k, 2>("Temperature Sensor 3", 204, 2),
    element<&SmartLog::sensor_temperature_k, 3>("Temperature Sensor 4", 206, 2),
    element<&SmartLog::sensor_temperature_k, 4>("Temperature Sensor 5", 208, 2),
    element<&SmartLog::sensor_temperature_k, 5>("Temperature Sensor 6", 210, 2),
    element<&SmartLog::sensor_temperature_k, 6>("Temperature Sensor 7", 212, 2),
    element<&SmartLog::sensor_temperature_k, 7>("Temperature Sensor 8", 214, 2),
    field<&SmartLog::thermal, &SmartThermalCounters::tmt1_transitions>(
        "Thermal Management Temperature 1 Transition Count", 216, 4),
    field<&SmartLog::thermal, &SmartThermalCounters::tmt2_transitions>(
        "Thermal Management Temperature 2 Transition Count", 220, 4),
    field<&SmartLog::thermal, &SmartThermalCounters::tmt1_seconds>("Total Time For Thermal Management Temperature 1",
                                                                   224, 4),
    field<&SmartLog::thermal, &SmartThermalCounters::tmt2_seconds>("Total Time For Thermal Management Temperature 2",
                                                                   228, 4),
};

// NVMe 1.4, Identify Controller data structure. SN/MN/FR are strings, below.
constexpr std::array kControllerFields = {
    field<&ControllerIdentity::vid>("VID", 0, 2),           field<&ControllerIdentity::ssvid>("SSVID", 2, 2),
    field<&ControllerIdentity::cntlid>("CNTLID", 78, 2),    field<&ControllerIdentity::version>("VER", 80, 4),
    field<&ControllerIdentity::oacs>("OACS", 256, 2),       field<&ControllerIdentity::lpa>("LPA", 261, 1),
    field<&ControllerIdentity::elpe>("ELPE", 262, 1),       field<&ControllerIdentity::wctemp_k>("WCTEMP", 266, 2),
    field<&ControllerIdentity::cctemp_k>("CCTEMP", 268, 2), field<&ControllerIdentity::tnvmcap>("TNVMCAP", 280, 16),
    field<&ControllerIdentity::hctma>("HCTMA", 322, 2),     field<&ControllerIdentity::mntmt_k>("MNTMT", 324, 2),
    field<&ControllerIdentity::mxtmt_k>("MXTMT", 326, 2),   field<&ControllerIdentity::nn>("NN", 516, 4),
    field<&ControllerIdentity::vwc>("VWC", 525, 1),
};

struct StringField {
  const char* name;
  std::size_t offset;
  std::size_t width;
  std::string ControllerIdentity::*member;
};
constexpr std::array kControllerStrings = {
    StringField{"SN", 4, 20, &ControllerIdentity::serial},
    StringField{"MN", 24, 40, &ControllerIdentity::model},
    StringField{"FR", 64, 8, &ControllerIdentity::firmware},
};

// NVMe 1.4, Identify Namespace data structure.
constexpr std::array kNamespaceFields = {
    field<&NamespaceIdentity::nsze>("NSZE", 0, 8),
    field<&NamespaceIdentity::ncap>("NCAP", 8, 8),
    field<&NamespaceIdentity::nuse>("NUSE", 16, 8),
};
constexpr std::size_t kNlbafOffset = 25;
constexpr std::size_t kFlbasOffset = 26;
constexpr std::size_t kLbaFormatsOffset = 128;  // 64 entries of 4 bytes: MS(2) LBADS(1) RP(1)
constexpr std::size_t kLbaFormatCount = 64;

// OCP Datacenter NVMe SSD Specification 2.0, SMART / Health Information
// Extended Log (C0h). Normalized values and version fields are not read.
constexpr std::array kOcpFields = {
    field<&OcpSmartLog::physical_media_units_written>("Physical Media Units Written", 0, 16),
    field<&OcpSmartLog::physical_media_units_read>("Physical Media Units Read", 16, 16),
    field<&OcpSmartLog::bad_user_nand_blocks_raw>("Bad User NAND Blocks (raw)", 32, 6),
    field<&OcpSmartLog::bad_system_nand_blocks_raw>("Bad System NAND Blocks (raw)", 40, 6),
    field<&OcpSmartLog::xor_recovery_count>("XOR Recovery Count", 48, 8),
    field<&OcpSmartLog::uncorrectable_read_errors>("Uncorrectable Read Error Count", 56, 8),
    field<&OcpSmartLog::soft_ecc_errors>("Soft ECC Error Count", 64, 8),
    field<&OcpSmartLog::end_to_end_detected_errors>("End to End Detected Errors", 72, 4),
    field<&OcpSmartLog::end_to_end_corrected_errors>("End to End Corrected Errors", 76, 4),
    field<&OcpSmartLog::system_data_percent_used>("System Data % Used", 80, 1),
    field<&OcpSmartLog::refresh_counts>("Refresh Counts", 81, 7),
    field<&OcpSmartLog::user_data_erase_count_max>("Maximum User Data Erase Count", 88, 4),
    field<&OcpSmartLog::user_data_erase_count_min>("Minimum User Data Erase Count", 92, 4),
    field<&OcpSmartLog::thermal_throttling_count>("Number of Thermal Throttling Events", 96, 1),
    field<&OcpSmartLog::thermal_throttling_status>("Current Throttling Status", 97, 1),
    field<&OcpSmartLog::pcie_correctable_errors>("PCIe Correctable Error Count", 104, 8),
    field<&OcpSmartLog::incomplete_shutdowns>("Incomplete Shutdowns", 112, 4),
    field<&OcpSmartLog::free_blocks_pct>("% Free Blocks", 120, 1),
    field<&OcpSmartLog::capacitor_health_pct>("Capacitor Health", 128, 2),
    field<&OcpSmartLog::unaligned_io>("Unaligned I/O", 136, 8),
    field<&OcpSmartLog::security_version>("Security Version Number", 144, 8),
    field<&OcpSmartLog::nuse>("Total NUSE", 152, 8),
    field<&OcpSmartLog::plp_start_count>("PLP Start Count", 160, 16),
    field<&OcpSmartLog::endurance_estimate>("Endurance Estimate", 176, 16),
    field<&OcpSmartLog::log_page_version>("Log Page Version", 494, 2),
};
constexpr std::size_t kOcpGuidOffset = 496;

// The fields later log page versions added. Offsets: the OCP Datacenter NVMe
// SSD Specification's C0h table; which version brought which field follows
// how nvme-cli's ocp plugin (plugins/ocp/ocp-smart-extended-log.h and
// ocp-print-stdout.c) reads the page, so both tools show the same fields.
constexpr std::array kOcpFieldsV2 = {
    field<&OcpSmartLog::dssd_errata_version>("Errata Version Field", 98, 1),
    field<&OcpSmartLog::dssd_point_version>("Point Version Field", 99, 2),
    field<&OcpSmartLog::dssd_minor_version>("Minor Version Field", 101, 2),
    field<&OcpSmartLog::dssd_major_version>("Major Version Field", 103, 1),
    field<&OcpSmartLog::nvme_base_errata_version>("NVMe Base Errata Version", 130, 1),
    field<&OcpSmartLog::pcie_link_retraining_count>("PCIe Link Retraining Count", 192, 8),
    field<&OcpSmartLog::power_state_change_count>("Power State Change Count", 200, 8),
};
constexpr std::array kOcpFieldsV4 = {
    field<&OcpSmartLog::nvme_command_set_errata_version>("NVMe Command Set Errata Version", 131, 1),
    field<&OcpSmartLog::lowest_permitted_firmware_revision>("Lowest Permitted Firmware Revision", 208, 8),
};
constexpr std::array kOcpFieldsV5 = {
    field<&OcpSmartLog::nvme_over_pcie_errata_version>("NVMe Over PCIe Errata Version", 132, 1),
    field<&OcpSmartLog::nvme_mi_errata_version>("NVMe-MI Errata Version", 133, 1),
    field<&OcpSmartLog::total_media_dies>("Total Media Dies", 216, 2),
    field<&OcpSmartLog::total_die_failure_tolerance>("Total Die Failure Tolerance", 218, 2),
    field<&OcpSmartLog::media_dies_offline>("Media Dies Offline", 220, 2),
    field<&OcpSmartLog::max_temperature_recorded_c>("Max Temperature Recorded", 222, 1),
    field<&OcpSmartLog::nand_average_erase_count>("NAND Average Erase Count", 224, 8),
    field<&OcpSmartLog::command_timeouts>("Command Timeouts", 232, 4),
    field<&OcpSmartLog::system_area_program_failures_raw>("System Area Program Fail Count (raw)", 236, 4),
    field<&OcpSmartLog::system_area_program_failures_normalized>("System Area Program Fail Count (normalized)", 240, 1),
    field<&OcpSmartLog::system_area_uncorrectable_reads_raw>("System Area Uncorrectable Read Count (raw)", 244, 4),
    field<&OcpSmartLog::system_area_uncorrectable_reads_normalized>("System Area Uncorrectable Read Count (normalized)",
                                                                    248, 1),
    field<&OcpSmartLog::system_area_erase_failures_raw>("System Area Erase Fail Count (raw)", 252, 4),
    field<&OcpSmartLog::system_area_erase_failures_normalized>("System Area Erase Fail Count (normalized)", 256, 1),
    field<&OcpSmartLog::max_peak_power_capability>("Max Peak Power Capability", 260, 2),
    field<&OcpSmartLog::current_max_average_power>("Current Max Average Power", 262, 2),
    field<&OcpSmartLog::lifetime_power_consumed>("Lifetime Power Consumed", 264, 6),
};
constexpr std::array kOcpFieldsV6 = {
    field<&OcpSmartLog::form_factor>("Form Factor", 223, 1),
    field<&OcpSmartLog::die_in_use_bad_nand_blocks_raw>("Die In Use Bad NAND Blocks (raw)", 358, 6),
};
constexpr std::array kOcpRevisions = {
    OcpFieldGroup{2, kOcpFieldsV2},
    OcpFieldGroup{4, kOcpFieldsV4},
    OcpFieldGroup{5, kOcpFieldsV5},
    OcpFieldGroup{kOcpSmartLogNewestKnownVersion, kOcpFieldsV6},
};

Error decode_error(std::string message) { return Error{ErrorReason::decode, std::move(message)}; }

std::optional<Error> check_size(std::string_view page_name, std::span<const std::uint8_t> page, std::size_t expected) {
  if (page.size() == expected) return std::nullopt;
  return decode_error(fmt::format("{}: expected {} bytes, got {}", page_name, expected, page.size()));
}

// ASCII fields are space padded; some firmware pads with NULs instead.
std::string_view trim(std::string_view s) {
  constexpr std::string_view kPad(" \0", 2);
  const auto first = s.find_first_not_of(kPad);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kPad) - first + 1);
}

bool printable_ascii(std::string_view s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

std::span<const FieldSpec<SmartLog>> smart_log_fields() { return kSmartFields; }
std::span<const FieldSpec<ControllerIdentity>> identify_controller_fields() { return kControllerFields; }
std::span<const FieldSpec<NamespaceIdentity>> identify_namespace_fields() { return kNamespaceFields; }
std::span<const FieldSpec<OcpSmartLog>> ocp_smart_log_fields() { return kOcpFields; }
std::span<const OcpFieldGroup> ocp_smart_log_revisions() { return kOcpRevisions; }

Result<SmartLog> decode_smart_log(std::span<const std::uint8_t> page) {
  if (auto e = check_size("SMART log (02h)", page, kSmartLogBytes)) return *e;
  SmartLog out;
  apply_fields(smart_log_fields(), page, out);
  return out;
}

Result<ControllerIdentity> decode_identify_controller(std::span<const std::uint8_t> page) {
  if (auto e = check_size("identify controller", page, kIdentifyBytes)) return *e;
  ControllerIdentity out;
  apply_fields(identify_controller_fields(), page, out);
  for (const auto& f : kControllerStrings) {
    const std::string_view raw(reinterpret_cast<const char*>(page.data() + f.offset), f.width);
    const std::string_view text = trim(raw);
    if (!printable_ascii(text)) {
      return decode_error(fmt::format("identify controller: {} is not printable ASCII", f.name));
    }
    out.*f.member = std::string(text);
  }
  return out;
}

Result<NamespaceIdentity> decode_identify_namespace(std::span<const std::uint8_t> page, std::uint32_t nsid) {
  if (auto e = check_size("identify namespace", page, kIdentifyBytes)) return *e;
  NamespaceIdentity out;
  out.nsid = nsid;
  apply_fields(identify_namespace_fields(), page, out);
  const unsigned nlbaf = page[kNlbafOffset];  // zero-based count of LBA formats
  const unsigned flbas = page[kFlbasOffset];
  unsigned index = flbas & 0x0fu;
  // NVMe 2.0: with more than 16 formats, FLBAS bits 6:5 are the index's upper bits.
  if (nlbaf >= 16) index |= ((flbas >> 5) & 0x3u) << 4;
  if (index > nlbaf || index >= kLbaFormatCount) {
    return decode_error(
        fmt::format("identify namespace {}: FLBAS selects LBA format {} of {}", nsid, index, nlbaf + 1));
  }
  const unsigned lbads = page[kLbaFormatsOffset + 4 * index + 2];
  if (lbads < 9 || lbads > 31) {
    return decode_error(
        fmt::format("identify namespace {}: LBA format {} has invalid data size 2^{}", nsid, index, lbads));
  }
  out.lba_bytes = 1u << lbads;
  out.lba_format = static_cast<std::uint8_t>(index);
  return out;
}

Result<std::vector<std::uint32_t>> decode_namespace_list(std::span<const std::uint8_t> page) {
  if (auto e = check_size("active namespace list", page, kIdentifyBytes)) return *e;
  std::vector<std::uint32_t> out;
  for (std::size_t off = 0; off < page.size(); off += 4) {
    const auto nsid = static_cast<std::uint32_t>(read_le(page, off, 4));
    if (nsid == 0) break;
    out.push_back(nsid);
  }
  return out;
}

bool has_ocp_smart_log_guid(std::span<const std::uint8_t> page) {
  return page.size() == kOcpSmartLogBytes && read_le(page, kOcpGuidOffset, 16) == kOcpSmartLogGuid;
}

Result<OcpSmartLog> decode_ocp_smart_log(std::span<const std::uint8_t> page) {
  if (auto e = check_size("OCP SMART log (C0h)", page, kOcpSmartLogBytes)) return *e;
  if (!has_ocp_smart_log_guid(page)) {
    return decode_error(fmt::format("OCP SMART log (C0h): log page GUID {:016x}{:016x} is not the OCP GUID",
                                    static_cast<std::uint64_t>(read_le(page, kOcpGuidOffset + 8, 8)),
                                    static_cast<std::uint64_t>(read_le(page, kOcpGuidOffset, 8))));
  }
  OcpSmartLog out;
  apply_fields(ocp_smart_log_fields(), page, out);
  for (const auto& group : ocp_smart_log_revisions()) {
    if (out.log_page_version >= group.since) apply_fields(group.fields, page, out);
  }
  return out;
}

std::uint32_t temperature_threshold_cdw11(unsigned sensor, ThresholdKind kind) {
  return ((static_cast<std::uint32_t>(kind) & 0x3u) << 20) | ((sensor & 0xfu) << 16);
}

std::uint16_t decode_temperature_threshold(std::uint32_t cdw0) { return static_cast<std::uint16_t>(cdw0 & 0xffffu); }

HostThermalManagement decode_host_thermal_management(std::uint32_t cdw0) {
  return {.tmt1_k = static_cast<std::uint16_t>(cdw0 >> 16), .tmt2_k = static_cast<std::uint16_t>(cdw0 & 0xffffu)};
}

}  // namespace nvmond
