#pragma once
// The block format of verify jobs. Each block written starts with a 32-byte
// header: a magic number, the block's own offset, the run's seed and a
// checksum of the rest, which is seeded pseudo-random data. The read pass
// finds a block never written, one written to another offset (misdirected)
// and one whose data changed.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace nvmond {

inline constexpr std::size_t kVerifyHeader = 32;

inline void put64(std::byte* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
inline std::uint64_t get64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Fills `len` bytes at `p` with the block written at `offset` in the run of `seed`.
void fill_verify_block(std::byte* p, std::uint32_t len, std::uint64_t offset, std::uint64_t seed);

// nullptr when `p` holds the block written at `offset` in the run of `seed`;
// otherwise what is wrong with it (a static string).
const char* verify_block_problem(const std::byte* p, std::uint32_t len, std::uint64_t offset, std::uint64_t seed);

}  // namespace nvmond
