#include "polling/drive_summary.hpp"

#include "collectors/nvme/self_test_log.hpp"
#include "collectors/sim_name.hpp"

namespace nvmond {

namespace {

// The results NvmeSelfTestFailed pages on: the drive's own diagnostics
// found it bad. Aborted tests say nothing about the drive.
bool self_test_failed(const std::optional<SelfTestLog>& log) {
  if (!log || log->results.empty()) return false;
  const std::string_view result = self_test_result_text(log->results.front().result());
  return result == "fatal_error" || result == "failed_segment_unknown" || result == "failed_segments";
}

}  // namespace

bool wearout_imminent(const WearView& wear, WallTime now) {
  const auto& recent = wear.windows[kRecentWindow];
  return wear.projected_wearout && *wear.projected_wearout - now < std::chrono::hours(24 * 30) &&
         recent.covered >= std::chrono::hours(24);
}

DriveSummary summarize_drive(const DriveInfo& info, bool up, const HealthSnapshot* health, bool throttling) {
  DriveSummary d;
  d.serial = info.serial;
  d.model = info.model;
  d.path = info.path;
  d.up = up;
  if (info.controller.wctemp_k != 0) d.warning_c = kelvin_to_celsius(info.controller.wctemp_k);
  d.self_test_supported = (info.controller.oacs & kOacsDeviceSelfTest) != 0;
  if (health == nullptr) return d;
  d.self_test = health->self_test;
  const SmartLog& s = health->smart;
  d.composite_c = kelvin_to_celsius(s.composite_temperature_k);
  d.percentage_used = s.percentage_used / 100.0;
  for (const auto& bit : kCriticalWarningNames) {
    if ((s.critical_warning & bit.mask) != 0) d.critical_warnings.emplace_back(bit.name);
  }
  d.throttling = throttling;
  d.link_degraded = health->pcie && health->pcie->degraded();
  if (info.controller.cctemp_k != 0 && s.composite_temperature_k >= info.controller.cctemp_k) {
    d.conditions.emplace_back(kTemperatureCritical);
  }
  if (self_test_failed(health->self_test)) d.conditions.emplace_back(kSelfTestFailed);
  if (health->ocp_recovery && health->ocp_recovery->panicked()) d.conditions.emplace_back(kFirmwarePanic);
  return d;
}

std::optional<DriveSummary> drive_for_target(const std::vector<DriveSummary>& drives, const std::string& target,
                                             const std::map<std::string, std::string>& sim_serial_by_name) {
  std::string serial, path;
  if (auto key = sim_key(target)) {
    serial = *key;
    if (auto it = sim_serial_by_name.find(serial); it != sim_serial_by_name.end()) serial = it->second;
  } else {
    path = target;
  }
  for (const auto& d : drives) {
    if ((!serial.empty() && d.serial == serial) || (!path.empty() && d.path == path)) {
      return d;
    }
  }
  return std::nullopt;
}

}  // namespace nvmond
