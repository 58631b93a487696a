#pragma once
// Each workload worker on a CPU of its own choosing, while the host has CPUs
// to spare. On a VM, a worker left to the scheduler sleeps in io_uring_enter
// on one vCPU while the block layer's worker (a loop device's kworker, a
// driver's completion) runs on another, and every completion is then an
// inter-processor wake of an idle vCPU: measured on an idle 2-vCPU machine
// (loop device over tmpfs, 4 KiB random reads at QD1) that was p50 32 µs
// against 6.8 µs with the worker pinned (bench/RESULTS.md). On a busy host
// the same binding hurts: the worker cannot leave a CPU other tasks compete
// for, nor follow the loop device's worker to another: in interleaved QD1
// runs under other builds' load the bound worker's median read 0.44–1.13×
// fio's IOPS, the unbound one's 0.61–1.30× (better in 12 of 16).
#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

namespace nvmond {

// The CPUs this thread may run on (sched_getaffinity); empty when unknown.
std::vector<int> allowed_cpus();

// The CPU for worker `index`: the allowed CPUs in order, starting with the
// one the job starts on (`start_cpu`, or the first when it is not allowed),
// one worker each, round-robin when there are more workers than CPUs.
std::optional<int> worker_cpu(unsigned index, const std::vector<int>& allowed, int start_cpu);

// Binds the calling thread to `cpu`; false when the kernel refuses (a cpuset
// that changed, a CPU gone offline): the worker then runs unpinned.
bool pin_current_thread(int cpu);

// Lets the calling thread run on every CPU of `cpus` again.
bool release_current_thread(const std::vector<int>& cpus);

// Whether `allowed` CPUs leave room for a bound worker at a host load of
// `load` (the 1-minute load average, runnable tasks): half a CPU at least
// stays free, so a job's own workers and the block layer's threads fit.
bool cpus_to_spare(double load, std::size_t allowed);

// The host's 1-minute load average (/proc/loadavg); nullopt when unreadable.
std::optional<double> host_load();

// Asks the scheduler for `slice` of CPU per turn for the calling thread
// (EEVDF's custom slice, sched_attr::sched_runtime, Linux 6.12+; the kernel
// takes 0.1-100 ms), keeping its nice value. A worker at low queue depth runs
// for microseconds between sleeps; with the default slice (1.4 ms here) each
// of its wake-ups on a busy CPU waits for the running task's slice to end,
// and that wait is reported as the I/O's latency. A shorter slice gives the
// thread earlier deadlines, not a larger share of the CPU. Threads under
// another policy (SCHED_BATCH, SCHED_IDLE, real-time) are left as they are;
// false when the kernel refuses or the thread was left alone.
bool request_short_slice(std::chrono::nanoseconds slice);

// One worker's binding, kept only while the host has CPUs to spare: bound to
// its CPU when it does, free on every allowed CPU when it does not. Owned and
// used by the worker's own thread.
class CpuPlacement {
 public:
  // `cpu`: the worker's CPU (worker_cpu), nullopt for a worker never bound.
  CpuPlacement(std::optional<int> cpu, std::vector<int> allowed) : cpu_(cpu), allowed_(std::move(allowed)) {}
  // Reads the host's load and binds or frees the calling thread to match.
  void revisit();
  // The decision for a given load (revisit() without the file read).
  void apply(double load);
  bool bound() const { return bound_; }

 private:
  std::optional<int> cpu_;
  std::vector<int> allowed_;
  bool bound_ = false;
};

}  // namespace nvmond
