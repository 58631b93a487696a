#pragma once
// Telemetry logs for the capture tests: drivelog's (when a capture is due,
// the archive, the recorder) and the Fleet's, end to end
// (tests/unit/polling/test_fleet_telemetry.cpp), which save and compare the
// same bytes.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "collectors/telemetry.hpp"

namespace nvmond::test::telemetry_logs {

inline TelemetryHeader header(std::uint8_t generation, bool available = true) {
  TelemetryHeader h;
  h.log_id = 0x08;
  h.area1_last_block = 2;
  h.area2_last_block = 4;
  h.area3_last_block = 8;
  h.controller_available = available ? 1 : 0;
  h.controller_generation = generation;
  return h;
}

// A log through data area 3 whose every byte tells where it is.
inline TelemetryLog log_of(std::uint8_t generation, std::size_t bytes = 0) {
  TelemetryLog log;
  log.header = header(generation);
  log.data_area = 3;
  log.bytes.resize(bytes != 0 ? bytes : log.header.bytes_through(3));
  for (std::size_t i = 0; i < log.bytes.size(); ++i) log.bytes[i] = static_cast<std::uint8_t>(i * 7 + generation);
  log.bytes[0] = 0x08;
  return log;
}

inline std::vector<std::uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace nvmond::test::telemetry_logs
