#pragma once
// io_uring engine (liburing 2.3): one ring per worker thread, O_DIRECT,
// registered buffers, file and ring descriptor, batched submit+wait in one
// io_uring_enter.
// Uses SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them (6.1+): the
// completion work then runs in our own io_uring_enter, not as interrupts of
// the worker, which saves CPU per I/O.
#include <liburing.h>

#include "workloads/io_engine.hpp"

namespace nvmond {

struct UringOptions {
  bool register_buffers = true;
  bool register_files = true;
  bool defer_taskrun = true;
};

class UringEngine final : public IoEngine {
 public:
  explicit UringEngine(UringOptions options = {}) : options_(options) {}
  ~UringEngine() override;
  UringEngine(const UringEngine&) = delete;
  UringEngine& operator=(const UringEngine&) = delete;

  std::string_view name() const override { return "io_uring"; }
  std::optional<Error> setup(const EngineSetup& setup) override;
  std::uint64_t target_size() const override { return size_; }
  bool queue(IoUnit& unit) override;
  std::optional<Error> commit() override;
  Result<std::size_t> reap(std::size_t min, Duration max_wait,
                           std::span<IoCompletion> out) override;
  std::int64_t now_ns() const override;
  void idle(Duration d) override;

 private:
  UringOptions options_;
  io_uring ring_{};
  bool ring_ready_ = false;
  int fd_ = -1;
  bool fixed_file_ = false;
  bool fixed_buffers_ = false;
  std::uint64_t size_ = 0;
  std::string target_;
};

}  // namespace nvmond
