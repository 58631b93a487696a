#pragma once
// Decoders from raw NVMe pages (as the controller returned them, little-endian)
// to the plain structs of collectors/health.hpp. Pure functions: the libnvme
// backend and the fixture tests go through the same code.
//
// A page of the wrong size is Error{ErrorReason::decode, "<page>: expected N bytes, got M"};
// any byte pattern of the right size decodes without undefined behaviour, and
// pages with an impossible content (non-ASCII serial, bad LBA format, wrong
// OCP GUID) are Error{ErrorReason::decode, ...} too.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collectors/health.hpp"
#include "collectors/nvme/field_table.hpp"
#include "core/result.hpp"

namespace nvmond {

inline constexpr std::size_t kSmartLogBytes = 512;
inline constexpr std::size_t kOcpSmartLogBytes = 512;
inline constexpr std::size_t kIdentifyBytes = 4096;
inline constexpr std::uint8_t kOcpSmartLogId = 0xC0;

// OCP SMART / Health Information Extended log page GUID
// AFD514C9-7C6F-4F9C-A4F2-BFEA2810AFC5, stored little-endian at bytes 496..511.
inline constexpr u128 kOcpSmartLogGuid = (static_cast<u128>(0xAFD514C97C6F4F9CULL) << 64) | 0xA4F2BFEA2810AFC5ULL;

// SMART / Health Information log (02h), NVMe 1.4, 512 bytes.
Result<SmartLog> decode_smart_log(std::span<const std::uint8_t> page);

// Identify Controller (CNS 01h), 4096 bytes. SN/MN/FR must be printable ASCII
// (they become label values); trailing spaces are trimmed.
Result<ControllerIdentity> decode_identify_controller(std::span<const std::uint8_t> page);

// Identify Namespace (CNS 00h), 4096 bytes. lba_bytes comes from the LBA
// format FLBAS selects; an LBA data size outside 2^9..2^31 is an error.
Result<NamespaceIdentity> decode_identify_namespace(std::span<const std::uint8_t> page, std::uint32_t nsid);

// Identify Active Namespace ID list (CNS 02h), 4096 bytes: the NSIDs in
// order, up to the first zero entry.
Result<std::vector<std::uint32_t>> decode_namespace_list(std::span<const std::uint8_t> page);

// True when the page is 512 bytes long and carries the OCP C0 GUID. Lets the
// backend tell "this drive's C0 is vendor-specific, not OCP" from a bad read.
bool has_ocp_smart_log_guid(std::span<const std::uint8_t> page);

// OCP Datacenter NVMe SSD SMART / Health Information Extended log (C0h),
// 512 bytes, GUID-checked: the fields of bytes 0..191 always, later ones
// when the page's Log Page Version says its layout has them.
Result<OcpSmartLog> decode_ocp_smart_log(std::span<const std::uint8_t> page);

// The C0 fields a log page version added, in version order: a page of
// version V is decoded with every group whose `since` is at most V.
struct OcpFieldGroup {
  std::uint16_t since;
  std::span<const FieldSpec<OcpSmartLog>> fields;
};
std::span<const OcpFieldGroup> ocp_smart_log_revisions();
// The first version whose groups this decoder knows no more of: a page of a
// later version is decoded as this one (its new fields are not read).
inline constexpr std::uint16_t kOcpSmartLogNewestKnownVersion = 6;

// Temperature Threshold feature (FID 04h): which threshold a Get Features
// command selects (CDW11 TMPSEL bits 19:16, THSEL bits 21:20).
enum class ThresholdKind : std::uint8_t { over = 0, under = 1 };
// sensor 0 is the composite temperature, 1..8 the temperature sensors.
std::uint32_t temperature_threshold_cdw11(unsigned sensor, ThresholdKind kind);
// The threshold in Kelvin from the completion's dword 0 (TMPTH, bits 15:0).
std::uint16_t decode_temperature_threshold(std::uint32_t cdw0);

// Host Controlled Thermal Management feature (FID 10h) from the completion's
// dword 0: TMT1 in bits 31:16, TMT2 in bits 15:0, Kelvin (0: disabled).
HostThermalManagement decode_host_thermal_management(std::uint32_t cdw0);

// The field tables behind the decoders (for tests and documentation).
std::span<const FieldSpec<SmartLog>> smart_log_fields();
std::span<const FieldSpec<ControllerIdentity>> identify_controller_fields();
std::span<const FieldSpec<NamespaceIdentity>> identify_namespace_fields();
std::span<const FieldSpec<OcpSmartLog>> ocp_smart_log_fields();

}  // namespace nvmond
