#pragma once
// NVMe log pages carry 128-bit little-endian counters (data units, commands,
// power-on hours...). GCC/Clang's unsigned __int128 holds them exactly; the
// __extension__ keeps -Wpedantic quiet about the non-ISO type.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace nvmond {

__extension__ using u128 = unsigned __int128;

// Exact decimal rendering (printf has no %u128).
std::string to_string(u128 v);

// Nearest double; Prometheus samples are float64 anyway.
inline double to_double(u128 v) { return static_cast<double>(v); }

// Little-endian unsigned read of `width` (1..16) bytes at `offset`. The caller
// guarantees the span is long enough: decoders check the page size first.
u128 read_le(std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t width);

}  // namespace nvmond
