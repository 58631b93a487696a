#include "workloads/cpu_pinning.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

namespace nvmond {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {};
  std::vector<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

std::optional<int> worker_cpu(unsigned index, const std::vector<int>& allowed, int start_cpu) {
  if (allowed.empty()) return std::nullopt;
  const auto start = std::find(allowed.begin(), allowed.end(), start_cpu);
  const std::size_t first = start == allowed.end() ? 0 : static_cast<std::size_t>(start - allowed.begin());
  return allowed[(first + index) % allowed.size()];
}

bool pin_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

}  // namespace nvmond
