#pragma once
// SplitMix64: the runner's fast, seedable random stream (offsets, op mix,
// buffer contents, verify block data). Not for anything that must be secret.
#include <cstdint>

namespace nvmond {

struct SplitMix {
  __extension__ using uint128 = unsigned __int128;

  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) without division (Lemire).
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>((static_cast<uint128>(next()) * n) >> 64); }
};

}  // namespace nvmond
