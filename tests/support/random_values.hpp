#pragma once
// Random inputs for the exposition oracle tests: doubles that exercise every
// way a value is written (NaN, infinities, signed zero, integers, rounded
// digits beyond 2^53, any bit pattern, tiny and huge magnitudes) and label
// text with every character the format escapes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace nvmond::test {

inline double any_double(std::mt19937_64& rng) {
  switch (rng() % 9) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return (rng() & 1) ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    case 2: return static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000);
    case 3: return (rng() & 1) ? 0.0 : -0.0;
    case 4: return std::ldexp(static_cast<double>(rng() % 1000000), -static_cast<int>(rng() % 60));
    case 5: return static_cast<double>(rng());  // beyond 2^53: rounded digits
    case 6: {
      double v;
      const std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);  // any bit pattern, subnormals included
      return v;
    }
    case 7: return std::uniform_real_distribution<double>(-1e-3, 1e-3)(rng);
    default: return std::uniform_real_distribution<double>(0, 1e21)(rng);
  }
}

inline std::string any_text(std::mt19937_64& rng) {
  static constexpr char kChars[] = "ab_Z09 \\\"\n{}=,#\t";
  std::string s;
  const auto n = rng() % 8;
  for (std::size_t i = 0; i < n; ++i) s += kChars[rng() % (sizeof kChars - 1)];
  return s;
}

}  // namespace nvmond::test
