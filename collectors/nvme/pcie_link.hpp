#pragma once
// A controller's PCIe link health, read from sysfs
// (<class>/nvmeN/device/current_link_speed, max_link_width, aer_dev_*): the
// text parsing is a pure function so it is tested on fixture text, and the
// reader takes the sysfs root so a test builds a fake tree.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "collectors/health.hpp"

namespace nvmond {

// The text of each attribute; nullopt when the file is absent (no AER on
// this kernel, a fabrics or virtual controller without a PCI function).
struct PcieLinkFiles {
  std::optional<std::string> current_link_speed;
  std::optional<std::string> max_link_speed;
  std::optional<std::string> current_link_width;
  std::optional<std::string> max_link_width;
  std::optional<std::string> aer_dev_correctable;
  std::optional<std::string> aer_dev_nonfatal;
  std::optional<std::string> aer_dev_fatal;
};

// "16.0 GT/s PCIe" (kernel 5.x and later), "8 GT/s" (older): GT/s.
// "Unknown", empty or anything else: nullopt.
std::optional<double> parse_link_speed_gts(std::string_view text);
// "4": lanes; 0 (what the kernel prints for a link it cannot read) and
// anything unparsable: nullopt.
std::optional<unsigned> parse_link_width(std::string_view text);
// The value of the line "<key> <n>" in an aer_dev_* file ("TOTAL_ERR_COR 3").
std::optional<std::uint64_t> parse_aer_total(std::string_view text, std::string_view key);

PcieLink parse_pcie_link(const PcieLinkFiles& files);

// Reads <sysfs_class_nvme>/<controller>/device/. nullopt when that
// directory has none of the link attributes: no PCIe link to speak of.
std::optional<PcieLink> read_pcie_link(const std::filesystem::path& sysfs_class_nvme, const std::string& controller);

}  // namespace nvmond
