#pragma once
// The Telemetry Controller-Initiated log (Log ID 08h): the decoder of its
// header. A pure function, like error_log.hpp, so the libnvme backend, the
// simulated drive's tests and the fixture tests read the header alike.
#include <cstddef>
#include <cstdint>
#include <span>

#include "collectors/nvme/field_table.hpp"
#include "collectors/telemetry.hpp"
#include "core/result.hpp"

namespace nvmond {

inline constexpr std::uint8_t kTelemetryHostLogId = 0x07;
inline constexpr std::uint8_t kTelemetryControllerLogId = 0x08;
inline constexpr std::size_t kTelemetryHeaderBytes = 512;
// Identify Controller LPA bit 3: the controller has the Telemetry
// Host-Initiated and Controller-Initiated logs.
inline constexpr std::uint8_t kLpaTelemetry = 1u << 3;
// The most a capture reads: data area 3 at its largest last block.
inline constexpr std::uint64_t kMaxTelemetryLogBytes = (std::uint64_t{0xFFFF} + 1) * kTelemetryBlockBytes;

// NVMe 2.0, figure "Telemetry Controller-Initiated Log". `page` holds at
// least the 512-byte header (else Error{decode}); a log identifier other
// than `log_id` is Error{decode} (a drive answering with another page).
Result<TelemetryHeader> decode_telemetry_header(std::span<const std::uint8_t> page,
                                                std::uint8_t log_id = kTelemetryControllerLogId);
std::span<const FieldSpec<TelemetryHeader>> telemetry_header_fields();

}  // namespace nvmond
