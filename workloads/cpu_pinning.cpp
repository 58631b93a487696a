#include "workloads/cpu_pinning.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include <algorithm>
#include <cerrno>
#include <cstdio>

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

bool release_current_thread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  if (CPU_COUNT(&set) == 0) return false;
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

bool cpus_to_spare(double load, std::size_t allowed) { return load + 0.5 <= static_cast<double>(allowed); }

namespace {
// The kernel's struct sched_attr (linux/sched/types.h clashes with glibc's
// <sched.h>, and glibc before 2.41 has no sched_setattr wrapper).
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};
}  // namespace

bool request_short_slice(std::chrono::nanoseconds slice) {
  if (sched_getscheduler(0) != SCHED_OTHER) return false;
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
  if (errno != 0) return false;
  SchedAttr a{};
  a.size = sizeof(a);
  a.sched_policy = SCHED_OTHER;
  a.sched_nice = nice;
  a.sched_runtime = static_cast<std::uint64_t>(slice.count());
  return syscall(SYS_sched_setattr, 0, &a, 0) == 0;
}

std::optional<double> host_load() {
  std::FILE* f = std::fopen("/proc/loadavg", "re");
  if (f == nullptr) return std::nullopt;
  double load = 0;
  const bool ok = std::fscanf(f, "%lf", &load) == 1;
  std::fclose(f);
  if (!ok) return std::nullopt;
  return load;
}

void CpuPlacement::revisit() {
  if (!cpu_) return;
  // Unreadable load: keep the binding the worker was given.
  apply(host_load().value_or(0.0));
}

void CpuPlacement::apply(double load) {
  if (!cpu_) return;
  const bool want = cpus_to_spare(load, allowed_.size());
  if (want == bound_) return;
  if (want) bound_ = pin_current_thread(*cpu_);
  else if (release_current_thread(allowed_)) bound_ = false;
}

}  // namespace nvmond
