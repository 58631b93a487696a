#include "polling/cpu_gate.hpp"

#include <algorithm>

#include "workloads/cpu_pinning.hpp"

namespace nvmond {

std::ptrdiff_t CpuGate::polling_slots() {
  return std::max<std::ptrdiff_t>(1, static_cast<std::ptrdiff_t>(allowed_cpus().size()) / 2);
}

void CpuGate::acquire() {
  std::unique_lock lock(mu_);
  freed_.wait(lock, [this] { return free_ > 0; });
  --free_;
}

void CpuGate::release() {
  {
    std::lock_guard lock(mu_);
    ++free_;
  }
  freed_.notify_one();
}

CpuGate& CpuGate::polling() {
  static CpuGate gate(polling_slots());
  return gate;
}

}  // namespace nvmond
