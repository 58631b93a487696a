#include "collectors/nvme/persistent_event_log.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "collectors/nvme/decode.hpp"

namespace nvmond {

namespace {

// NVMe Base Specification 2.0, figure "Persistent Event Log Header".
// Reserved bytes 1..3, 17 and 378..479 are not read; SN, MN and SUBNQN are
// strings (kHeaderStrings).
constexpr std::array kHeaderFields = {
    field<&PelHeader::log_id>("Log Identifier", 0, 1),
    field<&PelHeader::total_events>("Total Number of Events", 4, 4),
    field<&PelHeader::total_log_length>("Total Log Length", 8, 8),
    field<&PelHeader::log_revision>("Log Revision", 16, 1),
    field<&PelHeader::header_length>("Log Header Length", 18, 2),
    field<&PelHeader::timestamp, &PelTimestamp::raw>("Timestamp", 20, 8),
    field<&PelHeader::power_on_hours>("Power on Hours", 28, 16),
    field<&PelHeader::power_cycle_count>("Power Cycle Count", 44, 8),
    field<&PelHeader::vendor_id>("PCI Vendor ID", 52, 2),
    field<&PelHeader::subsystem_vendor_id>("PCI Subsystem Vendor ID", 54, 2),
    field<&PelHeader::generation>("Generation Number", 372, 2),
    field<&PelHeader::reporting_context>("Reporting Context Information", 374, 4),
    element<&PelHeader::supported_events, 0>("Supported Events Bitmap 127:0", 480, 16),
    element<&PelHeader::supported_events, 1>("Supported Events Bitmap 255:128", 496, 16),
};

struct HeaderString {
  std::string PelHeader::*member;
  std::size_t offset;
  std::size_t width;
};
constexpr HeaderString kHeaderStrings[] = {
    {&PelHeader::serial, 56, 20},
    {&PelHeader::model, 76, 40},
    {&PelHeader::subnqn, 116, 256},
};

// Figure "Persistent Event Log Event Format": the header's fixed part.
// Reserved bytes 16..19 are not read.
constexpr std::array kEventHeaderFields = {
    field<&PelEventHeader::type>("Event Type", 0, 1),
    field<&PelEventHeader::type_revision>("Event Type Revision", 1, 1),
    field<&PelEventHeader::header_length>("Event Header Length", 2, 1),
    field<&PelEventHeader::header_additional_info>("Event Header Additional Info", 3, 1),
    field<&PelEventHeader::controller_id>("Controller Identifier", 4, 2),
    field<&PelEventHeader::timestamp, &PelTimestamp::raw>("Event Timestamp", 6, 8),
    field<&PelEventHeader::port_id>("Port Identifier", 14, 2),
    field<&PelEventHeader::vendor_info_length>("Vendor Specific Information Length", 20, 2),
    field<&PelEventHeader::event_length>("Event Length", 22, 2),
};

// Event data layouts, offsets from the start of the event data.
constexpr std::array kFirmwareCommitFields = {
    field<&PelFirmwareCommit::old_revision>("Old Firmware Revision", 0, 8),
    field<&PelFirmwareCommit::new_revision>("New Firmware Revision", 8, 8),
    field<&PelFirmwareCommit::commit_action>("FW Commit Action", 16, 1),
    field<&PelFirmwareCommit::slot>("FW Slot", 17, 1),
    field<&PelFirmwareCommit::status_code_type>("Status Code Type for Firmware Commit Command", 18, 1),
    field<&PelFirmwareCommit::status_code>("Status Returned for Firmware Commit Command", 19, 1),
    field<&PelFirmwareCommit::vendor_result>("Vendor Assigned Firmware Commit Result Code", 20, 2),
};
constexpr std::size_t kFirmwareCommitBytes = 24;

constexpr std::array kTimestampChangeFields = {
    field<&PelTimestampChange::previous, &PelTimestamp::raw>("Previous Timestamp", 0, 8),
    field<&PelTimestampChange::ms_since_reset>("Milliseconds Since Reset", 8, 8),
};
constexpr std::size_t kTimestampChangeBytes = 16;

// Firmware revision, then the first Controller Reset Information descriptor.
constexpr std::array kPowerOnResetFields = {
    field<&PelPowerOnReset::firmware_revision>("Firmware Revision", 0, 8),
    field<&PelPowerOnReset::controller_id>("Controller ID", 8 + 0, 2),
    field<&PelPowerOnReset::firmware_activation>("Firmware Activation", 8 + 2, 1),
    field<&PelPowerOnReset::operation_in_progress>("Operation in Progress", 8 + 3, 1),
    field<&PelPowerOnReset::power_cycle_count>("Controller Power Cycle", 8 + 16, 4),
    field<&PelPowerOnReset::power_on_ms>("Power on milliseconds", 8 + 20, 8),
    field<&PelPowerOnReset::controller_timestamp, &PelTimestamp::raw>("Controller Timestamp", 8 + 28, 8),
};
constexpr std::size_t kPowerOnResetBytes = 8 + kPelResetDescriptorBytes;

constexpr std::array kHardwareErrorFields = {
    field<&PelHardwareError::code>("NVM Subsystem Hardware Error Event Code", 0, 2),
};
constexpr std::size_t kHardwareErrorBytes = 4;

constexpr std::array kThermalExcursionFields = {
    field<&PelThermalExcursion::over_celsius>("Over Temperature", 0, 1),
    field<&PelThermalExcursion::threshold_celsius>("Threshold", 1, 1),
};
constexpr std::size_t kThermalExcursionBytes = 2;

constexpr std::array<std::string_view, kPelTypeLabelCount> kTypeLabels = {
    "firmware_commit",   "hardware_error",   "other", "power_on_reset", "smart_snapshot",
    "thermal_excursion", "timestamp_change",
};

std::string header_string(std::span<const std::uint8_t> page, std::size_t offset, std::size_t width) {
  std::string out;
  for (std::size_t i = offset; i < offset + width && page[i] != 0; ++i) {
    const char c = static_cast<char>(page[i]);
    out += c >= 0x20 && c < 0x7f ? c : '?';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// FNV-1a: stable across builds and machines, which the stored state needs.
std::uint64_t fingerprint(std::span<const std::uint8_t> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const auto b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

template <typename T>
PelEventData decode_data(std::span<const FieldSpec<T>> table, std::size_t size, std::span<const std::uint8_t> data) {
  if (data.size() < size) return std::monostate{};
  T out;
  apply_fields(table, data, out);
  return out;
}

PelEventData decode_event_data(std::uint8_t type, std::span<const std::uint8_t> data) {
  switch (static_cast<PelEventType>(type)) {
    case PelEventType::smart_snapshot: {
      if (data.size() < kSmartLogBytes) return std::monostate{};
      auto smart = decode_smart_log(data.first(kSmartLogBytes));
      if (!smart) return std::monostate{};
      return PelSmartSnapshot{*smart};
    }
    case PelEventType::firmware_commit: return decode_data(pel_firmware_commit_fields(), kFirmwareCommitBytes, data);
    case PelEventType::timestamp_change: return decode_data(pel_timestamp_change_fields(), kTimestampChangeBytes, data);
    case PelEventType::power_on_reset: {
      auto out = decode_data(pel_power_on_reset_fields(), kPowerOnResetBytes, data);
      if (auto* reset = std::get_if<PelPowerOnReset>(&out)) {
        reset->controllers = (data.size() - 8) / kPelResetDescriptorBytes;
      }
      return out;
    }
    case PelEventType::hardware_error: return decode_data(pel_hardware_error_fields(), kHardwareErrorBytes, data);
    case PelEventType::thermal_excursion:
      return decode_data(pel_thermal_excursion_fields(), kThermalExcursionBytes, data);
    default: return std::monostate{};
  }
}

std::string firmware_text(std::uint64_t revision) {
  std::string out;
  for (int i = 0; i < 8; ++i) {
    const char c = static_cast<char>((revision >> (8 * i)) & 0xffu);
    if (c == 0) break;
    out += c >= 0x20 && c < 0x7f ? c : '?';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.empty() ? "-" : out;
}

const char* type_name(std::uint8_t type) {
  switch (type) {
    case 0x01: return "SMART/Health log snapshot";
    case 0x02: return "firmware commit";
    case 0x03: return "timestamp change";
    case 0x04: return "power-on or reset";
    case 0x05: return "NVM subsystem hardware error";
    case 0x06: return "change namespace";
    case 0x07: return "format NVM start";
    case 0x08: return "format NVM completion";
    case 0x09: return "sanitize start";
    case 0x0A: return "sanitize completion";
    case 0x0B: return "set feature";
    case 0x0C: return "telemetry log create";
    case 0x0D: return "thermal excursion";
    case 0xDE: return "vendor specific";
    case 0xDF: return "TCG defined";
    default: return nullptr;
  }
}

}  // namespace

std::span<const FieldSpec<PelHeader>> pel_header_fields() { return kHeaderFields; }
std::span<const FieldSpec<PelEventHeader>> pel_event_header_fields() { return kEventHeaderFields; }
std::span<const FieldSpec<PelFirmwareCommit>> pel_firmware_commit_fields() { return kFirmwareCommitFields; }
std::span<const FieldSpec<PelTimestampChange>> pel_timestamp_change_fields() { return kTimestampChangeFields; }
std::span<const FieldSpec<PelPowerOnReset>> pel_power_on_reset_fields() { return kPowerOnResetFields; }
std::span<const FieldSpec<PelHardwareError>> pel_hardware_error_fields() { return kHardwareErrorFields; }
std::span<const FieldSpec<PelThermalExcursion>> pel_thermal_excursion_fields() { return kThermalExcursionFields; }

Result<PelHeader> decode_pel_header(std::span<const std::uint8_t> page) {
  if (page.size() < kPelHeaderBytes) {
    return Error{ErrorReason::decode, fmt::format("persistent event log (0Dh): expected at least {} bytes, got {}",
                                                  kPelHeaderBytes, page.size())};
  }
  PelHeader out;
  apply_fields(pel_header_fields(), page, out);
  if (out.log_id != kPersistentEventLogId) {
    return Error{ErrorReason::decode, fmt::format("persistent event log (0Dh): log identifier is {:02X}h", out.log_id)};
  }
  for (const auto& s : kHeaderStrings) out.*s.member = header_string(page, s.offset, s.width);
  return out;
}

Result<PersistentEventLog> decode_persistent_event_log(std::span<const std::uint8_t> page) {
  auto header = decode_pel_header(page);
  if (!header) return header.error();
  PersistentEventLog log;
  log.header = std::move(*header);
  const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(page.size(), log.header.total_log_length));
  std::size_t offset = kPelHeaderBytes;
  while (log.events.size() < log.header.total_events) {
    if (offset + kPelEventHeaderBytes > end) {
      log.truncated = true;
      break;
    }
    PelEvent event;
    apply_fields(pel_event_header_fields(), page.subspan(offset, kPelEventHeaderBytes), event.header);
    const auto& h = event.header;
    const std::size_t header_bytes = std::size_t{h.header_length} + 3;
    const std::size_t record = header_bytes + h.event_length;
    // A header shorter than its own fixed fields, vendor information longer
    // than the event, or a record past what was read: nothing after it can
    // be found again.
    if (header_bytes < kPelEventHeaderBytes || h.vendor_info_length > h.event_length || offset + record > end) {
      log.truncated = true;
      break;
    }
    const auto bytes = page.subspan(offset, record);
    event.data = decode_event_data(h.type, bytes.subspan(header_bytes + h.vendor_info_length));
    event.fingerprint = fingerprint(bytes);
    log.events.push_back(std::move(event));
    offset += record;
  }
  return log;
}

std::string_view pel_type_label(std::uint8_t type) {
  switch (static_cast<PelEventType>(type)) {
    case PelEventType::smart_snapshot: return "smart_snapshot";
    case PelEventType::firmware_commit: return "firmware_commit";
    case PelEventType::timestamp_change: return "timestamp_change";
    case PelEventType::power_on_reset: return "power_on_reset";
    case PelEventType::hardware_error: return "hardware_error";
    case PelEventType::thermal_excursion: return "thermal_excursion";
    default: return "other";
  }
}

std::span<const std::string_view> pel_type_labels() { return kTypeLabels; }

std::string describe_pel_event(const PelEvent& event) {
  const auto& h = event.header;
  const char* name = type_name(h.type);
  const std::string what = name ? name : fmt::format("event type {:02X}h", h.type);
  return std::visit(
      [&](const auto& d) -> std::string {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, PelSmartSnapshot>) {
          return fmt::format("{}: critical warning {:02X}h, composite {} K, {}% used, {} media errors", what,
                             d.smart.critical_warning, d.smart.composite_temperature_k, d.smart.percentage_used,
                             to_double(d.smart.media_errors));
        } else if constexpr (std::is_same_v<T, PelFirmwareCommit>) {
          return fmt::format("{}: {} -> {} (slot {}, action {}, status SCT {:X}h SC {:02X}h)", what,
                             firmware_text(d.old_revision), firmware_text(d.new_revision), d.slot, d.commit_action,
                             d.status_code_type, d.status_code);
        } else if constexpr (std::is_same_v<T, PelTimestampChange>) {
          return fmt::format("{}: from {} ms (origin {}) to {} ms (origin {})", what, d.previous.milliseconds(),
                             d.previous.origin(), h.timestamp.milliseconds(), h.timestamp.origin());
        } else if constexpr (std::is_same_v<T, PelPowerOnReset>) {
          return fmt::format("{}: firmware {}, controller {} power cycle {}, {} controller(s)", what,
                             firmware_text(d.firmware_revision), d.controller_id, d.power_cycle_count, d.controllers);
        } else if constexpr (std::is_same_v<T, PelHardwareError>) {
          return fmt::format("{}: code {:04X}h", what, d.code);
        } else if constexpr (std::is_same_v<T, PelThermalExcursion>) {
          return fmt::format("{}: {} °C over the {} °C threshold", what, d.over_celsius, d.threshold_celsius);
        } else {
          return fmt::format("{} ({} bytes)", what, h.event_length);
        }
      },
      event.data);
}

}  // namespace nvmond
