#pragma once
// How many drives' poll analytics run at once. Every drive is polled at the
// same instant of a tick (the history's group commit counts on it), so at
// 256 drives a tick made 256 worker threads runnable together, and a scrape
// arriving then had one thread's share of the CPU among them. Through the
// gate at most half the CPUs the daemon may run on (at least one) do the
// per-poll work of analytics, history and rendering; the rest stay free for
// scrapes and the event loop. Device commands are not gated: a hung drive
// must never hold up the others.
#include <cstddef>
#include <semaphore>

namespace nvmond {

class CpuGate {
 public:
  explicit CpuGate(std::ptrdiff_t slots) : slots_(slots) {}
  CpuGate(const CpuGate&) = delete;
  CpuGate& operator=(const CpuGate&) = delete;

  // The gate every DevicePoller's observer goes through.
  static CpuGate& polling();
  // Half the CPUs this process may run on, at least one.
  static std::ptrdiff_t polling_slots();

  class Pass {
   public:
    explicit Pass(CpuGate& gate) : gate_(gate) { gate_.slots_.acquire(); }
    ~Pass() { gate_.slots_.release(); }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    CpuGate& gate_;
  };

 private:
  std::counting_semaphore<> slots_;
};

}  // namespace nvmond
