#include "collectors/nvme/nvme_namespace.hpp"

#include <sys/stat.h>

#include <charconv>
#include <fstream>

#include "collectors/nvme/libnvme_device.hpp"
#include "collectors/nvme_name.hpp"

namespace nvmond {

namespace {

// The namespace's id as the kernel knows it: nvmeXnY's Y is an instance
// number, not necessarily the NSID.
std::optional<std::uint32_t> sysfs_nsid(const std::string& block_name) {
  std::ifstream in("/sys/block/" + block_name + "/nsid");
  std::string text;
  std::getline(in, text);
  std::uint32_t nsid = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), nsid);
  if (ec != std::errc{} || end != text.data() + text.size() || nsid == 0) return std::nullopt;
  return nsid;
}

}  // namespace

std::optional<NvmeNamespace> open_nvme_namespace(const std::string& path, std::chrono::milliseconds command_timeout) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return std::nullopt;
  const std::string name = path.substr(path.rfind('/') + 1);
  const auto controller = nvme_namespace_controller(name, kNvmeBlockPrefix);
  if (!controller) return std::nullopt;
  NvmeNamespace ns;
  ns.controller = std::make_unique<LibnvmeDevice>("/dev/" + std::string(*controller), command_timeout);
  ns.nsid = sysfs_nsid(name);
  return ns;
}

}  // namespace nvmond
