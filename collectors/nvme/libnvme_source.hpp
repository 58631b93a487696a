#pragma once
// Discovery of real NVMe controllers and the operator's choice among them.
// Controllers are listed from sysfs (/sys/class/nvme/nvmeN, what libnvme's
// own scan reads) so the listing can be tested against a fake tree.
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/device.hpp"
#include "core/config_reader.hpp"

namespace nvmond {

// Which controllers nvmond watches. A drive's identity is its serial number;
// a path ("/dev/nvme0") is only stable until the next boot.
struct NvmeSelection {
  bool all = false;
  std::vector<std::string> serials;
  std::vector<std::string> paths;  // controller character devices, "/dev/nvmeN"
  bool selects(std::string_view path, std::string_view serial) const;
};

// Reads key `devices` of the [nvme] table: "all", or an array of strings where
// entries beginning with "/dev/" are controller paths (must be /dev/nvmeN) and
// the others serial numbers. Absent key: nothing selected. Anything else is a
// ConfigError with file:line:col. Does not call finish(): the caller reads the
// table's other keys.
NvmeSelection parse_nvme_selection(TableReader& nvme_table);

// One controller present now, as sysfs describes it.
struct NvmeController {
  std::string path;    // "/dev/nvme0"
  std::string name;    // "nvme0"
  std::string serial;  // trimmed
  std::string model;   // trimmed
};

// Controllers under `sysfs_class_nvme` (entries named nvmeN), sorted by N.
// Empty when the directory does not exist (no NVMe driver loaded).
std::vector<NvmeController> list_nvme_controllers(const std::filesystem::path& sysfs_class_nvme = "/sys/class/nvme");

class LibnvmeSource final : public DeviceSource {
 public:
  // `command_timeout` is passed to every LibnvmeDevice this source creates.
  LibnvmeSource(NvmeSelection selection, std::chrono::milliseconds command_timeout,
                std::filesystem::path sysfs_class_nvme = "/sys/class/nvme");

  // Selected controllers present now. Opens nothing: a LibnvmeDevice opens
  // its character device on first use.
  std::vector<DeviceHandle> scan() override;

 private:
  NvmeSelection selection_;
  std::chrono::milliseconds command_timeout_;
  std::filesystem::path sysfs_class_nvme_;
};

}  // namespace nvmond
