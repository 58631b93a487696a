#include "core/u128.hpp"

#include <algorithm>

namespace nvmond {

std::string to_string(u128 v) {
  if (v == 0) return "0";
  std::string out;
  while (v != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

u128 read_le(std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t width) {
  u128 v = 0;
  for (std::size_t i = width; i-- > 0;) v = (v << 8) | bytes[offset + i];
  return v;
}

}  // namespace nvmond
