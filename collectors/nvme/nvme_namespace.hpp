#pragma once
// Finds the controller behind an NVMe namespace block device, for the PTS
// targets: /dev/nvme0n1 is namespace `nsid` (from sysfs) of /dev/nvme0,
// reached through a LibnvmeDevice like every poll.
#include <chrono>
#include <optional>
#include <string>

#include "collectors/device.hpp"

namespace nvmond {

// nullopt unless `path` is a block device named nvmeXnY. Reads only its
// stat() and sysfs; the controller is opened on its first command.
// `command_timeout` bounds each health command, as for LibnvmeDevice.
std::optional<NvmeNamespace> open_nvme_namespace(const std::string& path, std::chrono::milliseconds command_timeout);

}  // namespace nvmond
