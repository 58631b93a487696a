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
// Bounded three ways. Each wait spins at most `cap`, and within it at most
// kBudgetFactor times the recent time to a caught completion (an average
// over the spins that caught one; doubled by each spin that ran out, so a
// device that became slower is followed up to the cap): a completion that is
// not coming soon is not waited for long. And a spin that failed makes the
// next 2^k - 1 waits sleep at once. A spin fails when it ran out, or when
// the worker lost its CPU to another task during it (the completion's own
// work, or anything else, needed that CPU: a spinning worker must not stand
// in its way). k goes up by one with each failure, down by one with each
// spin that caught its completion, and stays within 0..kMaxBackoffShift:
// where most spins fail, spinning fades to one wait in 2^kMaxBackoffShift,
// costing at most cap / 2^kMaxBackoffShift of CPU per I/O; where most catch
// it, it stays on.
#include <cstdint>

#include "core/clock.hpp"

namespace nvmond {

class CompletionSpin {
 public:
  static constexpr unsigned kMaxBackoffShift = 10;
  static constexpr int kBudgetFactor = 3;

  // `cap` <= 0: never spin.
  explicit CompletionSpin(Duration cap) : cap_(cap), typical_(cap) {}

  // The spin budget of the next wait: min(cap, kBudgetFactor x the recent
  // time to a caught completion), or 0 while backing off (each call during a
  // back-off uses up one of its waits).
  Duration budget();
  // How the spin that budget() allowed ended: the completion came `after`
  // its start with the CPU kept throughout; the budget ran out; or the
  // worker lost its CPU to another task (the worker then sleeps).
  void caught(Duration after);
  void ran_out();
  void lost_cpu();

 private:
  void failed();

  Duration cap_;
  Duration typical_;        // recent time from a spin's start to its completion
  std::uint32_t skip_ = 0;  // waits left to sleep at once
  unsigned shift_ = 0;      // k: back-off after a failure is 2^k - 1 waits
};

}  // namespace nvmond
