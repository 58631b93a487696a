#pragma once
// How a simulated drive is named where a real drive has a path. The prefix is
// the same everywhere; what follows it depends on who names the drive:
//
//   as a Device (DriveInfo::path, the health series' `path`)   "sim:NAME"    its [[sim]] name
//   as a [[job]] target (engine = "sim")                       "sim:SERIAL"  its serial
//   as a [[soak]] / `nvmonctl test run` target                 "sim:X"       its name, its serial
//                                                                            or a built-in profile
//
// A job target names the serial because the workload series carry the
// drive's `serial` label; a device path names the [[sim]] table as a real
// drive's path names its node. Both stay as users configure them today.
#include <optional>
#include <string>
#include <string_view>

namespace nvmond {

inline constexpr std::string_view kSimPrefix = "sim:";

inline std::string sim_device_path(std::string_view name) { return std::string(kSimPrefix) + std::string(name); }
inline std::string sim_job_target(std::string_view serial) { return std::string(kSimPrefix) + std::string(serial); }

inline bool is_sim_target(std::string_view target) { return target.substr(0, kSimPrefix.size()) == kSimPrefix; }

// What follows "sim:" (a name, serial or profile, as above); nullopt for a
// target that is not a simulated drive.
inline std::optional<std::string> sim_key(std::string_view target) {
  if (!is_sim_target(target)) return std::nullopt;
  return std::string(target.substr(kSimPrefix.size()));
}

}  // namespace nvmond
