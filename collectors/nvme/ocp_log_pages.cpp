#include "collectors/nvme/ocp_log_pages.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

namespace nvmond {

namespace {

// OCP Datacenter NVMe SSD Specification, "Latency Monitor Log Page" (C3h);
// nvme-cli's plugins/ocp/ocp-nvme.h lays the page out alike. Each bucket
// holds four 32-bit counters: reserved, deallocate, write, read. The
// timestamps, measured latencies and debug-log fields are not read.
constexpr std::array kLatencyMonitorFields = {
    field<&OcpLatencyMonitorLog::feature_status>("Feature Status", 0, 1),
    field<&OcpLatencyMonitorLog::active_bucket_timer>("Active Bucket Timer", 2, 2),
    field<&OcpLatencyMonitorLog::active_bucket_timer_threshold>("Active Bucket Timer Threshold", 4, 2),
    element<&OcpLatencyMonitorLog::active_threshold_raw, 0>("Active Threshold A", 6, 1),
    element<&OcpLatencyMonitorLog::active_threshold_raw, 1>("Active Threshold B", 7, 1),
    element<&OcpLatencyMonitorLog::active_threshold_raw, 2>("Active Threshold C", 8, 1),
    element<&OcpLatencyMonitorLog::active_threshold_raw, 3>("Active Threshold D", 9, 1),
    field<&OcpLatencyMonitorLog::active_latency_config>("Active Latency Configuration", 10, 2),
    field<&OcpLatencyMonitorLog::active_latency_min_window>("Active Latency Minimum Window", 12, 1),
    cell<&OcpLatencyMonitorLog::active_bucket, 0, 0>("Active Bucket Counter 0 Read", 44, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 0, 1>("Active Bucket Counter 0 Write", 40, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 0, 2>("Active Bucket Counter 0 Deallocate", 36, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 1, 0>("Active Bucket Counter 1 Read", 60, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 1, 1>("Active Bucket Counter 1 Write", 56, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 1, 2>("Active Bucket Counter 1 Deallocate", 52, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 2, 0>("Active Bucket Counter 2 Read", 76, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 2, 1>("Active Bucket Counter 2 Write", 72, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 2, 2>("Active Bucket Counter 2 Deallocate", 68, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 3, 0>("Active Bucket Counter 3 Read", 92, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 3, 1>("Active Bucket Counter 3 Write", 88, 4),
    cell<&OcpLatencyMonitorLog::active_bucket, 3, 2>("Active Bucket Counter 3 Deallocate", 84, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 0, 0>("Static Bucket Counter 0 Read", 252, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 0, 1>("Static Bucket Counter 0 Write", 248, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 0, 2>("Static Bucket Counter 0 Deallocate", 244, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 1, 0>("Static Bucket Counter 1 Read", 268, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 1, 1>("Static Bucket Counter 1 Write", 264, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 1, 2>("Static Bucket Counter 1 Deallocate", 260, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 2, 0>("Static Bucket Counter 2 Read", 284, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 2, 1>("Static Bucket Counter 2 Write", 280, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 2, 2>("Static Bucket Counter 2 Deallocate", 276, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 3, 0>("Static Bucket Counter 3 Read", 300, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 3, 1>("Static Bucket Counter 3 Write", 296, 4),
    cell<&OcpLatencyMonitorLog::static_bucket, 3, 2>("Static Bucket Counter 3 Deallocate", 292, 4),
    field<&OcpLatencyMonitorLog::log_page_version>("Log Page Version", 494, 2),
};

// OCP Datacenter NVMe SSD Specification, "Error Recovery Log Page" (C1h).
constexpr std::array kErrorRecoveryFields = {
    field<&OcpErrorRecoveryLog::panic_reset_wait_time_ms>("Panic Reset Wait Time", 0, 2),
    field<&OcpErrorRecoveryLog::panic_reset_action>("Panic Reset Action", 2, 1),
    field<&OcpErrorRecoveryLog::device_recovery_action_1>("Device Recovery Action 1", 3, 1),
    field<&OcpErrorRecoveryLog::panic_id>("Panic ID", 4, 8),
    field<&OcpErrorRecoveryLog::device_capabilities>("Device Capabilities", 12, 4),
    field<&OcpErrorRecoveryLog::vendor_specific_recovery_opcode>("Vendor Specific Recovery Opcode", 16, 1),
    field<&OcpErrorRecoveryLog::vendor_specific_command_cdw12>("Vendor Specific Command CDW12", 20, 4),
    field<&OcpErrorRecoveryLog::vendor_specific_command_cdw13>("Vendor Specific Command CDW13", 24, 4),
    field<&OcpErrorRecoveryLog::vendor_specific_command_timeout>("Vendor Specific Command Timeout", 28, 1),
    field<&OcpErrorRecoveryLog::device_recovery_action_2>("Device Recovery Action 2", 29, 1),
    field<&OcpErrorRecoveryLog::device_recovery_action_2_timeout>("Device Recovery Action 2 Timeout", 30, 1),
    field<&OcpErrorRecoveryLog::panic_count>("Panic Count", 31, 1),
    element<&OcpErrorRecoveryLog::previous_panic_id, 0>("Previous Panic ID N-1", 32, 8),
    element<&OcpErrorRecoveryLog::previous_panic_id, 1>("Previous Panic ID N-2", 40, 8),
    element<&OcpErrorRecoveryLog::previous_panic_id, 2>("Previous Panic ID N-3", 48, 8),
    element<&OcpErrorRecoveryLog::previous_panic_id, 3>("Previous Panic ID N-4", 56, 8),
    field<&OcpErrorRecoveryLog::log_page_version>("Log Page Version", 494, 2),
};

std::optional<Error> check_ocp_page(const char* name, std::span<const std::uint8_t> page, u128 guid) {
  if (page.size() != kOcpLogPageBytes) {
    return Error{ErrorReason::decode,
                 fmt::format("{}: expected {} bytes, got {}", name, kOcpLogPageBytes, page.size())};
  }
  if (!has_ocp_guid(page, guid)) {
    return Error{ErrorReason::decode, fmt::format("{}: log page GUID {:016x}{:016x} is not the OCP GUID", name,
                                                  static_cast<std::uint64_t>(read_le(page, kOcpLogGuidOffset + 8, 8)),
                                                  static_cast<std::uint64_t>(read_le(page, kOcpLogGuidOffset, 8)))};
  }
  return std::nullopt;
}

}  // namespace

bool has_ocp_guid(std::span<const std::uint8_t> page, u128 guid) {
  return has_ocp_guid(page, OcpLogPage{0, kOcpLogPageBytes, guid, {}});
}

bool has_ocp_guid(std::span<const std::uint8_t> page, const OcpLogPage& spec) {
  return spec.bytes >= 16 && page.size() == spec.bytes && read_le(page, spec.bytes - 16, 16) == spec.guid;
}

std::span<const FieldSpec<OcpLatencyMonitorLog>> ocp_latency_monitor_fields() { return kLatencyMonitorFields; }
std::span<const FieldSpec<OcpErrorRecoveryLog>> ocp_error_recovery_fields() { return kErrorRecoveryFields; }

Result<OcpLatencyMonitorLog> decode_ocp_latency_monitor_log(std::span<const std::uint8_t> page) {
  if (auto e = check_ocp_page("OCP latency monitor log (C3h)", page, kOcpLatencyMonitorGuid)) return *e;
  OcpLatencyMonitorLog out;
  apply_fields(ocp_latency_monitor_fields(), page, out);
  return out;
}

Result<OcpErrorRecoveryLog> decode_ocp_error_recovery_log(std::span<const std::uint8_t> page) {
  if (auto e = check_ocp_page("OCP error recovery log (C1h)", page, kOcpErrorRecoveryGuid)) return *e;
  OcpErrorRecoveryLog out;
  apply_fields(ocp_error_recovery_fields(), page, out);
  return out;
}

Result<OcpUnsupportedRequirementsLog> decode_ocp_unsupported_requirements_log(std::span<const std::uint8_t> page) {
  constexpr const char* kName = "OCP unsupported requirements log (C5h)";
  constexpr std::size_t kIdsOffset = 16, kIdBytes = 16, kMaxIds = 253, kVersionOffset = 4078;
  const OcpLogPage& spec = kOcpUnsupportedRequirementsPage;
  if (page.size() != spec.bytes) {
    return Error{ErrorReason::decode, fmt::format("{}: expected {} bytes, got {}", kName, spec.bytes, page.size())};
  }
  if (!has_ocp_guid(page, spec)) {
    return Error{ErrorReason::decode, fmt::format("{}: log page GUID is not the OCP GUID", kName)};
  }
  const auto count = static_cast<std::size_t>(read_le(page, 0, 2));
  if (count > kMaxIds) {
    return Error{ErrorReason::decode,
                 fmt::format("{}: {} unsupported requirements, over the {} the page holds", kName, count, kMaxIds)};
  }
  OcpUnsupportedRequirementsLog out;
  for (std::size_t i = 0; i < count; ++i) {
    const auto id = page.subspan(kIdsOffset + i * kIdBytes, kIdBytes);
    out.requirement_ids.emplace_back(id.begin(), std::find(id.begin(), id.end(), std::uint8_t{0}));
  }
  out.log_page_version = static_cast<std::uint16_t>(read_le(page, kVersionOffset, 2));
  return out;
}

std::string ocp_reset_action_text(std::uint8_t bits) {
  std::string out;
  for (unsigned b = 0; b < 8; ++b) {
    if ((bits & (1u << b)) == 0) continue;
    if (!out.empty()) out += '+';
    out += b < std::size(kOcpResetActionNames) ? std::string(kOcpResetActionNames[b]) : fmt::format("bit{}", b);
  }
  return out.empty() ? "none" : out;
}

std::string_view ocp_recovery_action_text(std::uint8_t action) {
  return action < std::size(kOcpRecoveryActionNames) ? kOcpRecoveryActionNames[action] : std::string_view{"other"};
}

}  // namespace nvmond
