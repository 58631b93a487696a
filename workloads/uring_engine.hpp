#pragma once
// io_uring engine (liburing 2.3): one ring per worker thread, O_DIRECT,
// registered buffers, file and ring descriptor, batched submit+wait in one
// io_uring_enter.
// Uses SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them (6.1+): the
// completion work then runs in our own io_uring_enter, not as interrupts of
// the worker, which saves CPU per I/O. With TASKRUN_FLAG the kernel also
// flags pending completion work in the ring, which a spinning worker can see
// without a system call (completion_spin.hpp).
#include <liburing.h>

#include "workloads/completion_spin.hpp"
#include "workloads/io_engine.hpp"
#include "workloads/job_spec.hpp"

namespace nvmond {

struct UringOptions {
  bool register_buffers = true;
  bool register_files = true;
  bool defer_taskrun = true;
  // Longest spin for the completion of the only I/O in flight before
  // sleeping (completion_spin.hpp); 0: always sleep.
  Duration completion_spin{0};
};

// How the waits that could spin ended, for tests and diagnostics.
struct SpinCounts {
  std::uint64_t caught = 0;    // the completion came within the spin
  std::uint64_t ran_out = 0;   // it did not: the worker slept
  std::uint64_t lost_cpu = 0;  // another task took the worker's CPU during the spin
};

class UringEngine final : public IoEngine {
 public:
  explicit UringEngine(UringOptions options = {}) : options_(options), spin_(options.completion_spin) {}
  ~UringEngine() override;
  UringEngine(const UringEngine&) = delete;
  UringEngine& operator=(const UringEngine&) = delete;

  std::string_view name() const override { return "io_uring"; }
  std::optional<Error> setup(const EngineSetup& setup) override;
  std::uint64_t target_size() const override { return size_; }
  bool queue(IoUnit& unit) override;
  std::optional<Error> commit() override;
  Result<std::size_t> reap(std::size_t min, Duration max_wait, std::span<IoCompletion> out) override;
  std::int64_t now_ns() const override;
  void idle(Duration d) override;

  SpinCounts spin_counts() const { return spin_counts_; }

 private:
  int submit_and_spin(Duration max_wait);
  int submit_and_wait(std::size_t min, Duration max_wait);

  UringOptions options_;
  CompletionSpin spin_;
  SpinCounts spin_counts_;
  bool taskrun_flag_ = false;  // the kernel flags pending completion work (IORING_SQ_TASKRUN)
  unsigned inflight_ = 0;      // queued and not yet reaped
  long preemptions_ = 0;       // the worker's involuntary switches when last read
  io_uring ring_{};
  bool ring_ready_ = false;
  int fd_ = -1;
  bool fixed_file_ = false;
  bool fixed_buffers_ = false;
  std::uint64_t size_ = 0;
  std::string target_;
};

// The engine a job with engine = "io_uring" runs on, with the job's options.
std::unique_ptr<IoEngine> make_uring_engine(const JobSpec& spec);

}  // namespace nvmond
