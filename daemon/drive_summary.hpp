#pragma once
// Each drive's health in a few numbers, read back from the families the
// pollers published (what a scrape sees), so nvmonctl and the soak
// scheduler never touch a device or wait on a poller.
#include <prometheus/metric_family.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedule/soak_scheduler.hpp"

namespace nvmond {

struct DriveSummary {
  std::string serial, model, path;
  bool up = false;
  std::optional<double> composite_c, warning_c, percentage_used;
  std::vector<std::string> critical_warnings;  // bits set
  bool throttling = false;
};

// Drives with a serial, sorted by serial.
std::vector<DriveSummary> summarize_drives(const std::vector<prometheus::MetricFamily>& families);

// The scheduler's view of the drive behind a soak target: "sim:X" is the
// [[sim]] drive whose name (via `sim_serial_by_name`) or serial is X; any
// other target is matched by device path.
std::optional<DriveThermal> drive_for_target(const std::vector<DriveSummary>& drives, const std::string& target,
                                             const std::map<std::string, std::string>& sim_serial_by_name);

}  // namespace nvmond
