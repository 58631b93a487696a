#include "workloads/completion_spin.hpp"

#include <algorithm>

namespace nvmond {

Duration CompletionSpin::budget() {
  if (cap_.count() <= 0) return Duration(0);
  if (skip_ > 0) {
    --skip_;
    return Duration(0);
  }
  return std::min(cap_, typical_ * kBudgetFactor);
}

void CompletionSpin::caught(Duration after) {
  typical_ += (after - typical_) / 8;
  if (shift_ > 0) --shift_;
}

void CompletionSpin::ran_out() {
  typical_ = std::min(cap_, typical_ * 2);
  failed();
}

void CompletionSpin::lost_cpu() { failed(); }

void CompletionSpin::failed() {
  shift_ = std::min(shift_ + 1, kMaxBackoffShift);
  skip_ = (1u << shift_) - 1;
}

}  // namespace nvmond
