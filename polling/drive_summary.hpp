#pragma once
// Each drive's health in a few numbers, made by its poller from the decoded
// health data whenever it publishes (PublishedMetrics::drives()), so nvmonctl
// and the soak scheduler never touch a device or wait on a poller, and what
// they see does not depend on how the metrics are named.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analytics/wear.hpp"
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
  // The other conditions that page critical (grafana/rules), named by the
  // constants below; the SMART bits, the link and the error log
  // have their fields above. Filled from the snapshot by summarize_drive and
  // from the analytics by the poller (PollObservation::conditions).
  std::vector<std::string> conditions = {};
  bool self_test_supported = false;     // Identify OACS bit 4
  std::optional<SelfTestLog> self_test = {};  // as last read; nullopt before the first read
};

// Names of DriveSummary::conditions, as `nvmonctl status` prints them.
inline constexpr const char* kTemperatureCritical = "temperature_critical";  // composite at or over CCTEMP
inline constexpr const char* kSelfTestFailed = "self_test_failed";          // the newest self-test failed
inline constexpr const char* kFirmwarePanic = "firmware_panic";             // OCP C1 reports a panic
inline constexpr const char* kWearoutImminent = "wearout_imminent";         // rated endurance within 30 days

// NvmeProjectedWearoutImminent's judgement on the daemon's own view: the
// rated endurance is reached within 30 days at the 7-day write rate, and at
// least a day of history is behind that window.
bool wearout_imminent(const WearView& wear, WallTime now);

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
