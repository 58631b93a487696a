#pragma once
// How the kernel names an NVMe namespace's nodes: "nvme<C>n<N>" for its block
// device and "ng<C>n<N>" for its generic (passthrough) character device, C the
// controller's instance and N the namespace's. Partitions ("nvme0n1p1") and
// the hidden per-path nodes of multipath ("nvme0c1n1") are not namespaces.
//
// Matched by hand rather than with <regex>: two std::regex uses were a third
// of the machine code of the libraries that held them, compiled on every
// build.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>

namespace nvmond {

inline constexpr std::string_view kNvmeBlockPrefix = "nvme";
inline constexpr std::string_view kNvmeGenericPrefix = "ng";

// The node's controller part, PREFIX and its digits ("nvme0" of "nvme0n1"),
// when `name` is exactly PREFIX, digits, 'n', digits; nullopt otherwise.
inline std::optional<std::string_view> nvme_namespace_controller(std::string_view name, std::string_view prefix) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  const auto controller_end = std::find_if_not(name.begin() + prefix.size(), name.end(), is_digit);
  if (controller_end == name.begin() + prefix.size() || controller_end == name.end() || *controller_end != 'n') {
    return std::nullopt;
  }
  const auto namespace_begin = controller_end + 1;
  if (namespace_begin == name.end() || !std::all_of(namespace_begin, name.end(), is_digit)) return std::nullopt;
  return name.substr(0, static_cast<std::size_t>(controller_end - name.begin()));
}

}  // namespace nvmond
