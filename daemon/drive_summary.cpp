#include "daemon/drive_summary.hpp"

#include <map>

#include "collectors/sim_name.hpp"
#include "metrics/samples.hpp"

namespace nvmond {

std::vector<DriveSummary> summarize_drives(const std::vector<prometheus::MetricFamily>& families) {
  std::map<std::string, DriveSummary> by_serial;
  for (const auto& f : families) {
    for (const auto& m : f.metric) {
      const std::string serial = label_of(m, "serial");
      if (serial.empty()) continue;
      const double v = value_of(f, m);
      if (f.name == "nvme_device_info") {
        DriveSummary& d = by_serial[serial];
        d.model = label_of(m, "model");
        d.path = label_of(m, "path");
      } else if (f.name == "nvme_up") {
        by_serial[serial].up = v == 1;
      } else if (f.name == "nvme_temperature_celsius" && label_of(m, "sensor") == "composite") {
        by_serial[serial].composite_c = v;
      } else if (f.name == "nvme_temperature_limit_celsius" && label_of(m, "limit") == "warning") {
        by_serial[serial].warning_c = v;
      } else if (f.name == "nvme_percentage_used_ratio") {
        by_serial[serial].percentage_used = v;
      } else if (f.name == "nvme_critical_warning" && v != 0) {
        by_serial[serial].critical_warnings.push_back(label_of(m, "bit"));
      } else if (f.name == "nvme_thermal_throttling") {
        by_serial[serial].throttling = v != 0;
      }
    }
  }
  std::vector<DriveSummary> out;
  for (auto& [serial, d] : by_serial) {
    d.serial = serial;
    out.push_back(std::move(d));
  }
  return out;
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
