#include "collectors/nvme/libnvme_source.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <system_error>

#include "collectors/nvme/libnvme_device.hpp"
#include "core/log.hpp"

namespace nvmond {

namespace {

constexpr std::string_view kDevPrefix = "/dev/";
constexpr std::string_view kUsage =
    "expected \"all\" or an array of serial numbers and controller paths (\"/dev/nvme0\")";

// "nvme12" -> 12; nullopt for "nvme-fabrics", "nvme0n1" and other entries.
std::optional<unsigned> controller_index(std::string_view name) {
  constexpr std::string_view kPrefix = "nvme";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view digits = name.substr(kPrefix.size());
  unsigned n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

std::string trim(std::string s) {
  constexpr std::string_view kSpace = " \t\n\r";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

std::string read_attribute(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return trim(std::move(line));
}

}  // namespace

bool NvmeSelection::selects(std::string_view path, std::string_view serial) const {
  if (all) return true;
  if (std::find(paths.begin(), paths.end(), path) != paths.end()) return true;
  return !serial.empty() && std::find(serials.begin(), serials.end(), serial) != serials.end();
}

NvmeSelection parse_nvme_selection(TableReader& nvme_table) {
  NvmeSelection out;
  const toml::node* node = nvme_table.node("devices");
  if (node == nullptr) return out;
  if (node->is_string()) {
    if (node->value<std::string>() != "all") nvme_table.fail("devices", std::string(kUsage));
    out.all = true;
    return out;
  }
  if (!node->is_array()) nvme_table.fail("devices", std::string(kUsage));
  for (const toml::node& entry : *node->as_array()) {
    const auto text = entry.value<std::string>();
    if (!entry.is_string() || !text) {
      throw ConfigError(nvme_table.file(), entry.source(),
                        "devices: expected a serial number or a controller path (\"/dev/nvme0\")");
    }
    const std::string value = *text;
    if (value.empty()) throw ConfigError(nvme_table.file(), entry.source(), "devices: empty entry");
    if (value.rfind(kDevPrefix, 0) == 0) {
      if (!controller_index(std::string_view(value).substr(kDevPrefix.size()))) {
        throw ConfigError(
            nvme_table.file(), entry.source(),
            "devices: \"" + value +
                "\" is not a controller path; expected /dev/nvmeN (not a namespace such as /dev/nvme0n1)");
      }
      out.paths.push_back(value);
    } else {
      out.serials.push_back(value);
    }
  }
  return out;
}

std::vector<NvmeController> list_nvme_controllers(const std::filesystem::path& sysfs_class_nvme) {
  std::vector<std::pair<unsigned, NvmeController>> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_class_nvme, ec)) {
    const std::string name = entry.path().filename().string();
    const auto index = controller_index(name);
    if (!index) continue;
    NvmeController c;
    c.name = name;
    c.path = std::string(kDevPrefix) + name;
    c.serial = read_attribute(entry.path() / "serial");
    c.model = read_attribute(entry.path() / "model");
    found.emplace_back(*index, std::move(c));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<NvmeController> out;
  out.reserve(found.size());
  for (auto& [index, c] : found) out.push_back(std::move(c));
  return out;
}

LibnvmeSource::LibnvmeSource(NvmeSelection selection, std::chrono::milliseconds command_timeout,
                             std::filesystem::path sysfs_class_nvme)
    : selection_(std::move(selection)),
      command_timeout_(command_timeout),
      sysfs_class_nvme_(std::move(sysfs_class_nvme)) {}

std::vector<DeviceHandle> LibnvmeSource::scan() {
  std::vector<DeviceHandle> out;
  for (const NvmeController& c : list_nvme_controllers(sysfs_class_nvme_)) {
    if (!selection_.selects(c.path, c.serial)) {
      log::debug("{}: serial {} not selected by [nvme] devices; skipped", c.name, c.serial);
      continue;
    }
    out.push_back(DeviceHandle{c.path, std::make_unique<LibnvmeDevice>(c.path, command_timeout_, sysfs_class_nvme_)});
  }
  return out;
}

}  // namespace nvmond
