#include "pts/slc_detector.hpp"

namespace nvmond {

std::optional<std::size_t> detect_slc_drop(std::span<const double> bw, const SlcDetection& rule) {
  if (bw.empty()) return std::nullopt;
  const double limit = bw[0] * rule.drop_fraction;
  std::size_t run = 0;
  for (std::size_t i = 1; i < bw.size(); ++i) {
    run = bw[i] < limit ? run + 1 : 0;
    if (run >= static_cast<std::size_t>(rule.drop_rounds)) return i + 1 - run;
  }
  return std::nullopt;
}

}  // namespace nvmond
