#pragma once
// Each drive's health in a few numbers, made by its poller from the decoded
// health data whenever it publishes (PublishedMetrics::drives()), so nvmonctl
// and the soak scheduler never touch a device or wait on a poller, and what
// they see does not depend on how the metrics are named.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/health.hpp"
#include "schedule/soak_scheduler.hpp"

namespace nvmond {

struct DriveSummary {
  std::string serial, model, path;
  bool up = false;
  std::optional<double> composite_c, warning_c, percentage_used;  // celsius, ratio
  std::vector<std::string> critical_warnings;  // names of the bits set (kCriticalWarningNames)
  bool throttling = false;
  bool link_degraded = false;  // PCIe link trained below its maximum speed or width
  // Media and path entries of its error log counted so far; nullopt: unknown.
  std::optional<std::uint64_t> media_path_errors = {};
  bool self_test_supported = false;     // Identify OACS bit 4
  std::optional<SelfTestLog> self_test = {};  // as last read; nullopt before the first read
};

// `health`: the last poll's snapshot, null once a poll failed (its values
// would be stale); `throttling`: what the drive's thermal analytics concluded
// from that poll. The limits come from `info`, so they outlive a failed poll.
DriveSummary summarize_drive(const DriveInfo& info, bool up, const HealthSnapshot* health, bool throttling);

// The scheduler's view of the drive behind a soak target: "sim:X" is the
// [[sim]] drive whose name (via `sim_serial_by_name`) or serial is X; any
// other target is matched by device path.
std::optional<DriveThermal> drive_for_target(const std::vector<DriveSummary>& drives, const std::string& target,
                                             const std::map<std::string, std::string>& sim_serial_by_name);

}  // namespace nvmond
