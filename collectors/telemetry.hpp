#pragma once
// The Telemetry Controller-Initiated log (Log ID 08h) as plain data: its
// 512-byte header decoded, and a whole log as the drive returned it. The
// data areas are the vendor's own format: nvmond keeps them as bytes for
// the vendor's tools and decodes only the header.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.hpp"

namespace nvmond {

// The log is counted in 512-byte blocks; block 0 is the header.
inline constexpr std::uint64_t kTelemetryBlockBytes = 512;
// Data areas 1..3 are what a host may read without first setting Extended
// Telemetry Data Area 4 Supported in Host Behavior Support (nvmond never
// sets features it does not need): area 4 is never read.
inline constexpr unsigned kTelemetryMaxDataArea = 3;

struct TelemetryHeader {
  std::uint8_t log_id = 0;             // 08h (07h for the host-initiated log)
  std::uint32_t ieee_oui = 0;          // the vendor whose format the data areas are in
  std::uint16_t area1_last_block = 0;  // Telemetry Data Area 1 Last Block
  std::uint16_t area2_last_block = 0;
  std::uint16_t area3_last_block = 0;
  std::uint32_t area4_last_block = 0;
  std::uint8_t host_generation = 0;        // Telemetry Host-Initiated Data Generation Number
  std::uint8_t controller_available = 0;   // Telemetry Controller-Initiated Data Available
  std::uint8_t controller_generation = 0;  // Telemetry Controller-Initiated Data Generation Number

  // 1h: the controller has saved internal state (other values are reserved).
  bool data_available() const { return controller_available == 1; }
  // Bytes of the log from its start through data area `area` (1..3), the
  // header included. An empty area ends where the one before it does; a
  // last block smaller than an earlier area's is taken as that area's end.
  std::uint64_t bytes_through(unsigned area) const {
    std::uint64_t last = 0;
    const std::uint16_t blocks[] = {area1_last_block, area2_last_block, area3_last_block};
    for (unsigned a = 1; a <= std::min(area, kTelemetryMaxDataArea); ++a) {
      last = std::max<std::uint64_t>(last, blocks[a - 1]);
    }
    return (last + 1) * kTelemetryBlockBytes;
  }
  bool operator==(const TelemetryHeader&) const = default;
};

// One capture: the header, which data areas were read (1..`data_area`), and
// the bytes from offset 0 (header included), as the drive returned them.
struct TelemetryLog {
  TelemetryHeader header;
  unsigned data_area = 0;
  std::vector<std::uint8_t> bytes;
};

// What one poll read of the log: the header, and on the polls that asked
// for the whole log, the capture or why it failed.
struct TelemetryPoll {
  TelemetryHeader header;
  std::optional<TelemetryLog> capture;
  std::optional<Error> capture_error;
};

}  // namespace nvmond
