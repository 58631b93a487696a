#pragma once
// How many drives' poll analytics run at once. Every drive is polled at the
// same instant of a tick (the history's group commit counts on it), so at
// 256 drives a tick would make 256 worker threads runnable together, and a
// scrape arriving then would get one thread's share of the CPU. Through the
// gate at most half the CPUs the daemon may run on (at least one) do the
// per-poll work of analytics, history and rendering; the rest stay free for
// scrapes and the event loop. Device commands are not gated: a hung drive
// must never hold up the others.
//
// A mutex and a condition, not std::counting_semaphore: libstdc++'s acquire
// spins through sched_yield calls before it sleeps, and a yielding waiter
// stays runnable, competing for the CPU the gate keeps free: with a tick's
// drives all waiting at once they would be about half of a drive-poll's
// system calls (measured with strace at 64 drives).
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace nvmond {

class CpuGate {
 public:
  explicit CpuGate(std::ptrdiff_t slots) : free_(slots) {}
  CpuGate(const CpuGate&) = delete;
  CpuGate& operator=(const CpuGate&) = delete;

  // The gate every DevicePoller's observer goes through.
  static CpuGate& polling();
  // Half the CPUs this process may run on, at least one.
  static std::ptrdiff_t polling_slots();

  class Pass {
   public:
    explicit Pass(CpuGate& gate) : gate_(gate) { gate_.acquire(); }
    ~Pass() { gate_.release(); }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    CpuGate& gate_;
  };

 private:
  void acquire();
  void release();

  std::mutex mu_;
  std::condition_variable freed_;
  std::ptrdiff_t free_;
};

}  // namespace nvmond
