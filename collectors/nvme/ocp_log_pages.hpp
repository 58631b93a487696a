#pragma once
// The OCP Datacenter NVMe SSD logs beside C0: Latency Monitor (C3h) and
// Error Recovery (C1h). Pure decoders, like decode.hpp, so the libnvme
// backend and the fixture tests read pages alike.
//
// Vendors reuse the C0h..C4h identifiers for their own layouts: a page is
// OCP's only when its last 16 bytes carry the OCP GUID of that log. A page
// of the wrong size or with another GUID is Error{ErrorReason::decode}; any
// byte pattern decodes without undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "collectors/health.hpp"
#include "collectors/nvme/field_table.hpp"
#include "collectors/ocp_page_logs.hpp"
#include "core/result.hpp"
#include "core/u128.hpp"

namespace nvmond {

inline constexpr std::uint8_t kOcpErrorRecoveryLogId = 0xC1;
inline constexpr std::uint8_t kOcpLatencyMonitorLogId = 0xC3;
inline constexpr std::size_t kOcpLogPageBytes = 512;
inline constexpr std::size_t kOcpLogGuidOffset = 496;

// Latency Monitor log GUID 85D45E58-D4E6-4370-9C6C-84D08CC07A92 and Error
// Recovery log GUID 5A1983BA-3DFD-4DAB-AE34-30FE2131D944, stored
// little-endian at bytes 496..511.
inline constexpr u128 kOcpLatencyMonitorGuid = (static_cast<u128>(0x85D45E58D4E64370ULL) << 64) | 0x9C6C84D08CC07A92ULL;
inline constexpr u128 kOcpErrorRecoveryGuid = (static_cast<u128>(0x5A1983BA3DFD4DABULL) << 64) | 0xAE3430FE2131D944ULL;

// What DeviceReader::read_ocp_log asks for to read each of them.
inline constexpr OcpLogPage kOcpLatencyMonitorPage{kOcpLatencyMonitorLogId, kOcpLogPageBytes, kOcpLatencyMonitorGuid,
                                                   "OCP latency monitor (C3h)"};
inline constexpr OcpLogPage kOcpErrorRecoveryPage{kOcpErrorRecoveryLogId, kOcpLogPageBytes, kOcpErrorRecoveryGuid,
                                                  "OCP error recovery (C1h)"};

// Unsupported Requirements log (C5h), 4096 bytes: a 16-bit count at byte
// 0, up to 253 requirement IDs of 16 bytes each from byte 16, the Log Page
// Version at 4078 and GUID C7BB98B7-D032-4863-BB2C-23990E9C722F at 4080.
inline constexpr OcpLogPage kOcpUnsupportedRequirementsPage{
    0xC5, 4096, (static_cast<u128>(0xC7BB98B7D0324863ULL) << 64) | 0xBB2C23990E9C722FULL,
    "OCP unsupported requirements (C5h)"};
// A count over the 253 IDs the page holds is Error{ErrorReason::decode}.
Result<OcpUnsupportedRequirementsLog> decode_ocp_unsupported_requirements_log(std::span<const std::uint8_t> page);

// True when the page is 512 bytes long and ends with `guid`.
bool has_ocp_guid(std::span<const std::uint8_t> page, u128 guid);
// True when the page is `spec.bytes` long and ends with its GUID.
bool has_ocp_guid(std::span<const std::uint8_t> page, const OcpLogPage& spec);

Result<OcpLatencyMonitorLog> decode_ocp_latency_monitor_log(std::span<const std::uint8_t> page);
Result<OcpErrorRecoveryLog> decode_ocp_error_recovery_log(std::span<const std::uint8_t> page);

std::span<const FieldSpec<OcpLatencyMonitorLog>> ocp_latency_monitor_fields();
std::span<const FieldSpec<OcpErrorRecoveryLog>> ocp_error_recovery_fields();

// "controller_reset+pcie_function_level_reset", "none" when no bit is set;
// unknown bits read "bit6" and so on.
std::string ocp_reset_action_text(std::uint8_t bits);
// "format_nvm", ...; "other" for values the table does not name.
std::string_view ocp_recovery_action_text(std::uint8_t action);

}  // namespace nvmond
