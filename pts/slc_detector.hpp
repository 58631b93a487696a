#pragma once
// SLC cache detection over per-round write throughput: the cache is spent
// where throughput falls below drop_fraction × the first round's and stays
// there for drop_rounds rounds. Pure.
#include <cstddef>
#include <optional>
#include <span>

#include "pts/plan.hpp"

namespace nvmond {

// Index of the first dropped round, once the drop has lasted long enough.
std::optional<std::size_t> detect_slc_drop(std::span<const double> bytes_per_second, const SlcDetection& rule);

}  // namespace nvmond
