#include "daemon/cpu_gate.hpp"

#include <algorithm>

#include "workloads/cpu_pinning.hpp"

namespace nvmond {

std::ptrdiff_t CpuGate::polling_slots() {
  return std::max<std::ptrdiff_t>(1, static_cast<std::ptrdiff_t>(allowed_cpus().size()) / 2);
}

CpuGate& CpuGate::polling() {
  static CpuGate gate(polling_slots());
  return gate;
}

}  // namespace nvmond
