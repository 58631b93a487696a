#include "workloads/target_serial.hpp"

#include <filesystem>
#include <fstream>

#include "collectors/sim_name.hpp"

namespace nvmond {

std::string target_serial(const std::string& target, const std::string& sysfs_root) {
  if (auto serial = sim_key(target)) return *serial;
  std::error_code ec;
  // Follows /dev/disk/by-id links to the kernel's name.
  const auto dev = std::filesystem::canonical(target, ec);
  if (ec || dev.parent_path() != "/dev") return {};
  std::ifstream in(sysfs_root + "/class/block/" + dev.filename().string() + "/device/serial");
  std::string serial;
  std::getline(in, serial);
  while (!serial.empty() && (serial.back() == ' ' || serial.back() == '\n')) serial.pop_back();
  return serial;
}

}  // namespace nvmond
