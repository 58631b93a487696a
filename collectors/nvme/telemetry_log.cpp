#include "collectors/nvme/telemetry_log.hpp"

#include <fmt/core.h>

#include <array>

namespace nvmond {

namespace {

// NVMe Base Specification 2.0, figure "Telemetry Controller-Initiated Log"
// (the host-initiated log shares it). Reserved bytes 1..4, 14..15 and
// 20..380 are not read; nor is the Reason Identifier (384..511), which is
// vendor data and stays in the saved bytes. Byte 380 is Telemetry
// Host-Initiated Data Available only in the 07h log.
constexpr std::array kTelemetryHeaderFields = {
    field<&TelemetryHeader::log_id>("Log Identifier", 0, 1),
    field<&TelemetryHeader::ieee_oui>("IEEE OUI Identifier", 5, 3),
    field<&TelemetryHeader::area1_last_block>("Telemetry Data Area 1 Last Block", 8, 2),
    field<&TelemetryHeader::area2_last_block>("Telemetry Data Area 2 Last Block", 10, 2),
    field<&TelemetryHeader::area3_last_block>("Telemetry Data Area 3 Last Block", 12, 2),
    field<&TelemetryHeader::area4_last_block>("Telemetry Data Area 4 Last Block", 16, 4),
    field<&TelemetryHeader::host_generation>("Telemetry Host-Initiated Data Generation Number", 381, 1),
    field<&TelemetryHeader::controller_available>("Telemetry Controller-Initiated Data Available", 382, 1),
    field<&TelemetryHeader::controller_generation>("Telemetry Controller-Initiated Data Generation Number", 383, 1),
};

}  // namespace

std::span<const FieldSpec<TelemetryHeader>> telemetry_header_fields() { return kTelemetryHeaderFields; }

Result<TelemetryHeader> decode_telemetry_header(std::span<const std::uint8_t> page, std::uint8_t log_id) {
  if (page.size() < kTelemetryHeaderBytes) {
    return Error{ErrorReason::decode, fmt::format("telemetry log ({:02X}h): header needs {} bytes, got {}", log_id,
                                                  kTelemetryHeaderBytes, page.size())};
  }
  TelemetryHeader h;
  apply_fields(telemetry_header_fields(), page.first(kTelemetryHeaderBytes), h);
  if (h.log_id != log_id) {
    return Error{ErrorReason::decode,
                 fmt::format("telemetry log ({:02X}h): the page says it is log {:02X}h", log_id, h.log_id)};
  }
  return h;
}

}  // namespace nvmond
