// The simulated drive's Telemetry Controller-Initiated log (08h): its header
// and its bytes, derived from power-on time (no state of their own).
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "sim/drive_model.hpp"

namespace nvmond {

namespace {

void put_le(std::vector<std::uint8_t>& out, std::size_t offset, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// The header's bytes at the offsets of NVMe 2.0's figure "Telemetry
// Controller-Initiated Log" (the decoder's field table is checked against
// these bytes in the daemon's telemetry tests).
void write_header(std::vector<std::uint8_t>& out, const TelemetryHeader& h, const std::string& reason) {
  put_le(out, 0, h.log_id, 1);
  put_le(out, 5, h.ieee_oui, 3);
  put_le(out, 8, h.area1_last_block, 2);
  put_le(out, 10, h.area2_last_block, 2);
  put_le(out, 12, h.area3_last_block, 2);
  put_le(out, 16, h.area4_last_block, 4);
  put_le(out, 381, h.host_generation, 1);
  put_le(out, 382, h.controller_available, 1);
  put_le(out, 383, h.controller_generation, 1);
  std::memcpy(out.data() + 384, reason.data(), std::min<std::size_t>(reason.size(), 128));
}

}  // namespace

std::uint64_t DriveModel::telemetry_captures_locked() const {
  const auto interval_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(spec_.telemetry_interval).count();
  if (interval_ns <= 0) return 0;
  return static_cast<std::uint64_t>(c_.power_on_ns / static_cast<u128>(interval_ns));
}

TelemetryHeader DriveModel::telemetry_header_locked() const {
  const std::uint64_t captures = telemetry_captures_locked();
  TelemetryHeader h;
  h.log_id = 0x08;
  h.ieee_oui = kSimTelemetryOui;
  h.area1_last_block = kSimTelemetryAreaLastBlock[0];
  h.area2_last_block = kSimTelemetryAreaLastBlock[1];
  h.area3_last_block = kSimTelemetryAreaLastBlock[2];
  h.controller_available = captures > 0 ? 1 : 0;
  h.controller_generation = static_cast<std::uint8_t>(captures & 0xFFu);
  return h;
}

TelemetryHeader DriveModel::telemetry_header() const {
  std::lock_guard lock(mu_);
  return telemetry_header_locked();
}

TelemetryLog DriveModel::telemetry_log(unsigned data_area) const {
  std::lock_guard lock(mu_);
  TelemetryLog log;
  log.header = telemetry_header_locked();
  log.data_area = std::clamp(data_area, 1u, kTelemetryMaxDataArea);
  log.bytes.assign(static_cast<std::size_t>(log.header.bytes_through(log.data_area)), 0);
  write_header(log.bytes, log.header, fmt::format("sim {} capture {}", spec_.serial, telemetry_captures_locked()));
  // Every data block starts with what it is, then a pattern of its number.
  for (std::size_t block = 1; block * kTelemetryBlockBytes < log.bytes.size(); ++block) {
    auto* at = log.bytes.data() + block * kTelemetryBlockBytes;
    const std::string tag =
        fmt::format("SIMTELEMETRY {} gen {} block {}", spec_.serial, log.header.controller_generation, block);
    for (std::size_t i = 0; i < kTelemetryBlockBytes; ++i) at[i] = static_cast<std::uint8_t>(block * 31 + i);
    std::memcpy(at, tag.data(), std::min<std::size_t>(tag.size(), kTelemetryBlockBytes));
  }
  return log;
}

}  // namespace nvmond
