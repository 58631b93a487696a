#pragma once
// Each workload worker on a CPU of its own choosing. On a VM, a worker left
// to the scheduler sleeps in io_uring_enter on one vCPU while the block
// layer's worker (a loop device's kworker, a driver's completion) runs on
// another, and every completion is then an inter-processor wake of an idle
// vCPU: measured on this 2-vCPU machine (loop device over tmpfs, 4 KiB
// random reads at QD1) that was p50 32 µs against 6.8 µs with the worker
// pinned, and fio's 10 µs (bench/RESULTS.md).
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

}  // namespace nvmond
