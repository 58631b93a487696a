#include "workloads/completion_spin.hpp"

#include <algorithm>

namespace nvmond {

Duration CompletionSpin::budget() {
  if (cap_.count() <= 0) return Duration(0);
  if (skip_ > 0) {
    --skip_;
    return Duration(0);
  }
  return cap_;
}

void CompletionSpin::caught() { misses_ = 0; }

void CompletionSpin::missed() {
  misses_ = std::min(misses_ + 1, kMaxBackoffShift);
  skip_ = 1u << misses_;
}

}  // namespace nvmond
