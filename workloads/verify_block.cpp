#include "workloads/verify_block.hpp"

#include "workloads/split_mix.hpp"

namespace nvmond {
namespace {

constexpr std::uint64_t kVerifyMagic = 0x5946495652444d56ULL;  // "VMDRVIFY"

std::uint64_t checksum(const std::byte* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

void fill_verify_block(std::byte* p, std::uint32_t len, std::uint64_t offset, std::uint64_t seed) {
  SplitMix gen{seed ^ offset};
  for (std::size_t i = kVerifyHeader; i + 8 <= len; i += 8) put64(p + i, gen.next());
  put64(p, kVerifyMagic);
  put64(p + 8, offset);
  put64(p + 16, seed);
  put64(p + 24, checksum(p + kVerifyHeader, len - kVerifyHeader));
}

const char* verify_block_problem(const std::byte* p, std::uint32_t len, std::uint64_t offset, std::uint64_t seed) {
  if (get64(p) != kVerifyMagic || get64(p + 16) != seed)
    return "verify: block header missing (never written or overwritten)";
  if (get64(p + 8) != offset) return "verify: block carries another offset (misdirected write)";
  if (get64(p + 24) != checksum(p + kVerifyHeader, len - kVerifyHeader)) return "verify: checksum mismatch";
  return nullptr;
}

}  // namespace nvmond
