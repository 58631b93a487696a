#pragma once
// The Persistent Event Log (Log ID 0Dh): its decoder and the names of its
// event types. Pure functions, like error_log.hpp, so the libnvme backend
// and the fixture tests read the log alike.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "collectors/nvme/field_table.hpp"
#include "collectors/persistent_event.hpp"
#include "core/result.hpp"

namespace nvmond {

inline constexpr std::uint8_t kPersistentEventLogId = 0x0D;
inline constexpr std::size_t kPelHeaderBytes = 512;
inline constexpr std::size_t kPelEventHeaderBytes = 24;
inline constexpr std::size_t kPelResetDescriptorBytes = 36;
// The most of the log nvmond reads. Events are kept oldest first and have
// no index to seek to, so a larger log is read up to here only.
inline constexpr std::size_t kMaxPersistentEventLogBytes = 4 << 20;

// NVMe 2.0, figures "Persistent Event Log Header" and "Persistent Event Log
// Event Format". `page` holds the header and as much of the log as was read
// (at most TLL bytes are looked at). A page shorter than the header, or
// whose log identifier is not 0Dh, is Error{decode}. Events are read from
// byte 512 up to TNEV of them; a record that runs past what was read, or
// whose lengths contradict each other, ends the walk (`truncated`) and every
// earlier event is kept.
Result<PersistentEventLog> decode_persistent_event_log(std::span<const std::uint8_t> page);

// The header alone (the first read of a context): the same checks.
Result<PelHeader> decode_pel_header(std::span<const std::uint8_t> page);

std::span<const FieldSpec<PelHeader>> pel_header_fields();
std::span<const FieldSpec<PelEventHeader>> pel_event_header_fields();
std::span<const FieldSpec<PelFirmwareCommit>> pel_firmware_commit_fields();
std::span<const FieldSpec<PelTimestampChange>> pel_timestamp_change_fields();
std::span<const FieldSpec<PelPowerOnReset>> pel_power_on_reset_fields();
std::span<const FieldSpec<PelHardwareError>> pel_hardware_error_fields();
std::span<const FieldSpec<PelThermalExcursion>> pel_thermal_excursion_fields();

// The `type` label: "smart_snapshot", "firmware_commit", "timestamp_change",
// "power_on_reset", "hardware_error", "thermal_excursion" for the decoded
// types, "other" for every other type (vendor and TCG ones included).
std::string_view pel_type_label(std::uint8_t type);
inline constexpr std::size_t kPelTypeLabelCount = 7;
// Every label pel_type_label gives, in a fixed order (metrics, state).
std::span<const std::string_view> pel_type_labels();

// One line for the log: "thermal excursion: 7 °C over the 80 °C threshold".
std::string describe_pel_event(const PelEvent& event);

}  // namespace nvmond
