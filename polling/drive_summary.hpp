#pragma once
// How a poller fills a DriveSummary (collectors/drive_summary.hpp), and how
// a soak target names one of the summaries.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analytics/wear.hpp"
#include "collectors/drive_summary.hpp"
#include "collectors/health.hpp"

namespace nvmond {

// NvmeProjectedWearoutImminent's judgement on the daemon's own view: the
// rated endurance is reached within 30 days at the 7-day write rate, and at
// least a day of history is behind that window.
bool wearout_imminent(const WearView& wear, WallTime now);

// `health`: the last poll's snapshot, null once a poll failed (its values
// would be stale); `throttling`: what the drive's thermal analytics concluded
// from that poll. The limits come from `info`, so they outlive a failed poll.
DriveSummary summarize_drive(const DriveInfo& info, bool up, const HealthSnapshot* health, bool throttling);

// The drive behind a soak target: "sim:X" is the [[sim]] drive whose name
// (via `sim_serial_by_name`) or serial is X; any other target is matched by
// device path.
std::optional<DriveSummary> drive_for_target(const std::vector<DriveSummary>& drives, const std::string& target,
                                             const std::map<std::string, std::string>& sim_serial_by_name);

}  // namespace nvmond
