#include "daemon/drive_summary.hpp"

#include "collectors/sim_name.hpp"

namespace nvmond {

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
  return d;
}

std::optional<DriveThermal> drive_for_target(const std::vector<DriveSummary>& drives, const std::string& target,
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
      return DriveThermal{d.serial, d.composite_c, d.warning_c, d.throttling};
    }
  }
  return std::nullopt;
}

}  // namespace nvmond
