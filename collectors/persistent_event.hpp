#pragma once
// The Persistent Event Log (Log ID 0Dh) as plain data: its header and the
// events nvmond decodes, each kept with its type and length when it does
// not. Raw values as the drive wrote them; the accessors mask. Decoded by
// collectors/nvme/persistent_event_log.hpp, produced directly by the
// simulated drive.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "collectors/health.hpp"
#include "core/u128.hpp"

namespace nvmond {

// The event types of NVMe 2.0, figure "Persistent Event Log Event Type".
enum class PelEventType : std::uint8_t {
  smart_snapshot = 0x01,
  firmware_commit = 0x02,
  timestamp_change = 0x03,
  power_on_reset = 0x04,
  hardware_error = 0x05,
  change_namespace = 0x06,
  format_start = 0x07,
  format_completion = 0x08,
  sanitize_start = 0x09,
  sanitize_completion = 0x0A,
  set_feature = 0x0B,
  telemetry_created = 0x0C,
  thermal_excursion = 0x0D,
};

// An 8-byte NVMe timestamp (Set Features Timestamp layout): milliseconds in
// bits 47:0, Synch in bit 48, Timestamp Origin in bits 51:49.
struct PelTimestamp {
  std::uint64_t raw = 0;
  std::uint64_t milliseconds() const { return raw & 0xFFFF'FFFF'FFFFull; }
  // 0: milliseconds since the last controller reset; 1: since the Unix
  // epoch, set by a host with Set Features Timestamp.
  std::uint8_t origin() const { return static_cast<std::uint8_t>((raw >> 49) & 0x7u); }
  // The controller stopped counting for a while (a low-power state): the
  // value may lag real time.
  bool stopped() const { return ((raw >> 48) & 0x1u) != 0; }
  bool host_set() const { return origin() == 1; }
  bool operator==(const PelTimestamp&) const = default;
};

struct PelHeader {
  std::uint8_t log_id = 0;
  std::uint32_t total_events = 0;      // TNEV
  std::uint64_t total_log_length = 0;  // TLL, bytes, header included
  std::uint8_t log_revision = 0;
  std::uint16_t header_length = 0;  // LHL
  PelTimestamp timestamp;           // the controller's, when the context was established
  u128 power_on_hours = 0;
  std::uint64_t power_cycle_count = 0;
  std::uint16_t vendor_id = 0;
  std::uint16_t subsystem_vendor_id = 0;
  std::string serial;
  std::string model;
  std::string subnqn;
  std::uint16_t generation = 0;            // changes when the log is cleared
  std::uint32_t reporting_context = 0;     // RCI: port and reporting-controller fields
  std::array<u128, 2> supported_events{};  // bit N: event type N is supported

  bool supports(std::uint8_t event_type) const {
    return ((supported_events[event_type / 128] >> (event_type % 128)) & 1u) != 0;
  }
};

struct PelEventHeader {
  std::uint8_t type = 0;
  std::uint8_t type_revision = 0;
  std::uint8_t header_length = 0;  // EHL: header bytes after this field
  std::uint8_t header_additional_info = 0;
  std::uint16_t controller_id = 0;
  PelTimestamp timestamp;
  std::uint16_t port_id = 0;
  std::uint16_t vendor_info_length = 0;  // VSIL
  std::uint16_t event_length = 0;        // EL: vendor information and event data
};

// 01h: the SMART / Health log as the drive saw it then.
struct PelSmartSnapshot {
  SmartLog smart;
};
// 02h.
struct PelFirmwareCommit {
  std::uint64_t old_revision = 0;  // 8 ASCII bytes, little-endian in the integer
  std::uint64_t new_revision = 0;
  std::uint8_t commit_action = 0;
  std::uint8_t slot = 0;
  std::uint8_t status_code_type = 0;
  std::uint8_t status_code = 0;
  std::uint16_t vendor_result = 0;
};
// 03h: the event's own timestamp is the new value.
struct PelTimestampChange {
  PelTimestamp previous;
  std::uint64_t ms_since_reset = 0;
};
// 04h: the firmware running after the reset and the first controller's
// reset information (one descriptor per controller follows; a fleet drive
// has one).
struct PelPowerOnReset {
  std::uint64_t firmware_revision = 0;
  std::size_t controllers = 0;  // descriptors the event holds
  std::uint16_t controller_id = 0;
  std::uint8_t firmware_activation = 0;
  std::uint8_t operation_in_progress = 0;
  std::uint32_t power_cycle_count = 0;
  std::uint64_t power_on_ms = 0;
  PelTimestamp controller_timestamp;
};
// 05h.
struct PelHardwareError {
  std::uint16_t code = 0;
};
// 0Dh: the threshold crossed and by how much, both °C.
struct PelThermalExcursion {
  std::uint8_t over_celsius = 0;
  std::uint8_t threshold_celsius = 0;
  double peak_celsius() const { return static_cast<double>(threshold_celsius) + over_celsius; }
};

using PelEventData = std::variant<std::monostate, PelSmartSnapshot, PelFirmwareCommit, PelTimestampChange,
                                  PelPowerOnReset, PelHardwareError, PelThermalExcursion>;

struct PelEvent {
  PelEventHeader header;
  // monostate: a type nvmond does not decode, or event data shorter than
  // its type's layout (kept as type and length).
  PelEventData data;
  // Identifies the event within its generation of the log: a hash of its
  // record's bytes (header with timestamp, vendor information, data).
  std::uint64_t fingerprint = 0;
};

struct PersistentEventLog {
  PelHeader header;
  std::vector<PelEvent> events;  // oldest first, as the drive keeps them
  // The records ran past the log's end or their own length (a record cut
  // short, a header shorter than the layout): the events before it are kept.
  bool truncated = false;
};

}  // namespace nvmond
