#pragma once
// Plain decoded data of the OCP Datacenter NVMe SSD logs beside C0: the
// Latency Monitor (C3h) and the Error Recovery log (C1h). Like health.hpp,
// the drive's own units; conversion happens at export.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/u128.hpp"

namespace nvmond {

// An OCP log page as DeviceReader::read_ocp_log asks for it: the pages
// differ only in these. Vendors reuse the C0h..C5h identifiers for their own
// layouts, so a page is OCP's only when its last 16 bytes are its GUID.
struct OcpLogPage {
  std::uint8_t id = 0;    // log identifier
  std::size_t bytes = 0;  // the whole page
  u128 guid = 0;          // little-endian in its last 16 bytes
  std::string_view name;  // "OCP latency monitor (C3h)": what error messages call it
};

// The command kinds the Latency Monitor counts, in label order.
enum class OcpLatencyOp : std::uint8_t { read, write, deallocate };
inline constexpr std::size_t kOcpLatencyOps = 3;
inline constexpr std::size_t kOcpLatencyBuckets = 4;
inline constexpr std::string_view kOcpLatencyOpNames[kOcpLatencyOps] = {"read", "write", "deallocate"};

// Latency Monitor log (C3h), 512 bytes, GUID-checked. Bucket b counts the
// commands whose latency was at or above threshold b and below threshold
// b + 1 (bucket 3: at or above threshold D): commands faster than
// threshold A are not counted at all.
struct OcpLatencyMonitorLog {
  std::uint8_t feature_status = 0;                  // bit 0: the monitor is enabled
  std::uint16_t active_bucket_timer = 0;            // units of 5 minutes
  std::uint16_t active_bucket_timer_threshold = 0;  // units of 5 minutes
  // Active Thresholds A..D as the drive stores them: threshold = 5 ms x (raw + 1).
  std::array<std::uint8_t, kOcpLatencyBuckets> active_threshold_raw{};
  std::uint16_t active_latency_config = 0;
  std::uint8_t active_latency_min_window = 0;  // units of 100 ms
  // Commands per bucket in the current window (reset when the Active
  // Bucket Timer reaches its threshold) and since the monitor was enabled.
  std::array<std::array<std::uint32_t, kOcpLatencyOps>, kOcpLatencyBuckets> active_bucket{};
  std::array<std::array<std::uint32_t, kOcpLatencyOps>, kOcpLatencyBuckets> static_bucket{};
  std::uint16_t log_page_version = 0;

  bool enabled() const { return (feature_status & 0x1u) != 0; }
  // Lower bound of bucket b in milliseconds: 5 .. 1280.
  unsigned threshold_ms(std::size_t bucket) const { return 5u * (active_threshold_raw[bucket] + 1u); }
  // Commands of `op` at or above threshold A since the monitor was enabled.
  std::uint64_t static_over_threshold(OcpLatencyOp op) const {
    std::uint64_t n = 0;
    for (const auto& b : static_bucket) n += b[static_cast<std::size_t>(op)];
    return n;
  }
  bool operator==(const OcpLatencyMonitorLog&) const = default;
};

// Error Recovery log (C1h), 512 bytes, GUID-checked: the panic the drive is
// in (if any) and what the host should do about it.
struct OcpErrorRecoveryLog {
  std::uint16_t panic_reset_wait_time_ms = 0;
  std::uint8_t panic_reset_action = 0;  // bit field, see kOcpResetActionNames
  std::uint8_t device_recovery_action_1 = 0;
  std::uint64_t panic_id = 0;  // 0: no panic
  std::uint32_t device_capabilities = 0;
  std::uint8_t vendor_specific_recovery_opcode = 0;
  std::uint32_t vendor_specific_command_cdw12 = 0;
  std::uint32_t vendor_specific_command_cdw13 = 0;
  std::uint8_t vendor_specific_command_timeout = 0;
  std::uint8_t device_recovery_action_2 = 0;
  std::uint8_t device_recovery_action_2_timeout = 0;
  std::uint8_t panic_count = 0;                      // panics over the drive's life, saturating
  std::array<std::uint64_t, 4> previous_panic_id{};  // N-1 .. N-4
  std::uint16_t log_page_version = 0;

  bool panicked() const { return panic_id != 0; }
  bool operator==(const OcpErrorRecoveryLog&) const = default;
};

// Bits of OcpErrorRecoveryLog::panic_reset_action, in bit order.
inline constexpr std::string_view kOcpResetActionNames[] = {
    "controller_reset", "subsystem_reset", "pcie_function_level_reset", "perst", "power_cycle", "pcie_hot_reset",
};
// Device Recovery Action values 0..5; anything else reads "other".
inline constexpr std::string_view kOcpRecoveryActionNames[] = {
    "none", "format_nvm", "vendor_command", "vendor_analysis", "device_replacement", "sanitize",
};

}  // namespace nvmond
