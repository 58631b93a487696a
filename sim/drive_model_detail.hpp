#pragma once
// What several of DriveModel's files share (drive_model*.cpp only).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <nlohmann/json_fwd.hpp>

#include "collectors/health.hpp"

namespace nvmond::sim_detail {

inline constexpr std::uint64_t kNsPerHour = 3'600'000'000'000ULL;

inline std::uint16_t to_kelvin(double celsius) {
  double k = std::round(celsius_to_kelvin(celsius));
  return static_cast<std::uint16_t>(std::clamp(k, 0.0, 65535.0));
}

}  // namespace nvmond::sim_detail

namespace nvmond {
struct SimEventLog;
namespace sim_detail {
// The event log of the drive's state file (a state saved before the drive
// had one has no key: an empty log); DriveModel::save_state writes it.
void read_event_log(const nlohmann::json& j, SimEventLog& log);
}  // namespace sim_detail
}  // namespace nvmond
