#pragma once
// How long a worker waiting for its only I/O in flight watches the ring
// before it sleeps in the kernel.
//
// At queue depth 1 the device sits idle from each completion until the
// worker has woken up and submitted the next I/O, so a sleeping worker adds
// its own wake-up to every I/O's latency: the completion's wake-up of a
// sleeping thread, and on a VM the halt exit of its idle vCPU. A drive
// qualification tool wants the drive's latency, not the host's wake-up; a
// short spin on the ring's flags removes that wake-up (docs/performance.md).
//
// Bounded twice: each wait spins at most `cap`, and a spin that ran out (the
// device is slower than the cap, or the completion's work needs this very
// CPU) makes the next 2^k waits sleep at once, k counting consecutive misses
// up to kMaxBackoffShift. A device that never completes within the cap
// therefore costs at most cap / 2^kMaxBackoffShift of CPU per I/O.
#include <cstdint>

#include "core/clock.hpp"

namespace nvmond {

class CompletionSpin {
 public:
  static constexpr unsigned kMaxBackoffShift = 10;

  // `cap` <= 0: never spin.
  explicit CompletionSpin(Duration cap) : cap_(cap) {}

  // The spin budget of the next wait: the cap, or 0 while backing off (each
  // call during a back-off uses up one of its waits).
  Duration budget();
  // How the spin that budget() allowed ended: the completion came within it,
  // or it ran out and the worker slept.
  void caught();
  void missed();

 private:
  Duration cap_;
  std::uint32_t skip_ = 0;   // waits left to sleep at once
  unsigned misses_ = 0;      // consecutive spins that ran out
};

}  // namespace nvmond
