#pragma once
// The serial of the drive a workload target lives on, so workload series
// carry the same `serial` label as the drive's health series and Grafana
// joins them. "sim:SERIAL" → SERIAL; an NVMe block device → its
// controller's serial from sysfs; a file or anything unknown → "".
#include <string>

namespace nvmond {

std::string target_serial(const std::string& target, const std::string& sysfs_root = "/sys");

}  // namespace nvmond
