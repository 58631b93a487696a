#include "collectors/nvme/pcie_link.hpp"

#include <charconv>
#include <fstream>
#include <iterator>

namespace nvmond {

namespace {

std::string_view trim_space(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n") - first + 1);
}

template <typename T>
std::optional<T> parse_number(std::string_view s) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::optional<double> parse_link_speed_gts(std::string_view text) {
  text = trim_space(text);
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view unit = text.substr(space + 1);
  if (unit.substr(0, 4) != "GT/s") return std::nullopt;
  auto v = parse_number<double>(text.substr(0, space));
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

std::optional<unsigned> parse_link_width(std::string_view text) {
  auto v = parse_number<unsigned>(trim_space(text));
  if (!v || *v == 0) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_aer_total(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const auto eol = text.find('\n');
    const std::string_view line = trim_space(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ') {
      return parse_number<std::uint64_t>(trim_space(line.substr(key.size() + 1)));
    }
  }
  return std::nullopt;
}

PcieLink parse_pcie_link(const PcieLinkFiles& f) {
  PcieLink link;
  if (f.current_link_speed) link.current_speed_gts = parse_link_speed_gts(*f.current_link_speed);
  if (f.max_link_speed) link.max_speed_gts = parse_link_speed_gts(*f.max_link_speed);
  if (f.current_link_width) link.current_width = parse_link_width(*f.current_link_width);
  if (f.max_link_width) link.max_width = parse_link_width(*f.max_link_width);
  if (f.aer_dev_correctable) link.aer_correctable = parse_aer_total(*f.aer_dev_correctable, "TOTAL_ERR_COR");
  if (f.aer_dev_nonfatal) link.aer_nonfatal = parse_aer_total(*f.aer_dev_nonfatal, "TOTAL_ERR_NONFATAL");
  if (f.aer_dev_fatal) link.aer_fatal = parse_aer_total(*f.aer_dev_fatal, "TOTAL_ERR_FATAL");
  return link;
}

std::optional<PcieLink> read_pcie_link(const std::filesystem::path& sysfs_class_nvme, const std::string& controller) {
  const auto dir = sysfs_class_nvme / controller / "device";
  PcieLinkFiles f;
  f.current_link_speed = read_text(dir / "current_link_speed");
  f.max_link_speed = read_text(dir / "max_link_speed");
  f.current_link_width = read_text(dir / "current_link_width");
  f.max_link_width = read_text(dir / "max_link_width");
  if (!f.current_link_speed && !f.max_link_speed && !f.current_link_width && !f.max_link_width) {
    return std::nullopt;
  }
  f.aer_dev_correctable = read_text(dir / "aer_dev_correctable");
  f.aer_dev_nonfatal = read_text(dir / "aer_dev_nonfatal");
  f.aer_dev_fatal = read_text(dir / "aer_dev_fatal");
  return parse_pcie_link(f);
}

}  // namespace nvmond
