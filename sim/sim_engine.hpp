#pragma once
// IoEngine over a simulated drive (sim/drive_model.hpp), so a
// workload heats, fills and wears the same model the simulated Device reports.
//
// Timing: commands are served one at a time in submission order (the model's
// service time is the drive's occupancy); each completes at
// start + service + access_latency. The engine keeps its own simulated time:
// with a ManualClock (to_real() == 0) it jumps straight to the next completion,
// so hours of workload run in seconds of CPU; with a system or accelerated
// clock it sleeps the real equivalent (to_real) of each wait, keeping pace
// with the clock. The model is advanced to each command's start.
//
// Each worker's engine serialises its own commands; several workers on one
// drive therefore see up to `threads` times its single-queue throughput.
#include <memory>
#include <string>
#include <vector>

#include "sim/drive_model.hpp"
#include "workloads/io_engine.hpp"

namespace nvmond {

class SimEngine final : public IoEngine {
 public:
  // `model` may be null (setup then fails naming the serial). `clock` must
  // outlive the engine.
  SimEngine(std::shared_ptr<DriveModel> model, const Clock& clock, std::string serial);

  std::string_view name() const override { return "sim"; }
  bool touches_real_media() const override { return false; }
  EngineTime time_base() const override { return EngineTime::clock; }
  std::optional<Error> setup(const EngineSetup& setup) override;
  std::uint64_t target_size() const override;
  bool queue(IoUnit& unit) override;
  std::optional<Error> commit() override;
  Result<std::size_t> reap(std::size_t min, Duration max_wait, std::span<IoCompletion> out) override;
  std::int64_t now_ns() const override { return now_; }
  void idle(Duration d) override;

 private:
  struct InFlight {
    std::int64_t done_ns;
    IoUnit* unit;
  };
  void wait_until(std::int64_t t);

  std::shared_ptr<DriveModel> model_;
  const Clock& clock_;
  std::string serial_;
  bool manual_ = false;
  std::int64_t now_ = 0;  // simulated ns since the clock's epoch
  std::int64_t busy_until_ = 0;
  std::uint64_t last_end_ = ~0ULL;  // sequential detection
  std::size_t capacity_ = 0;
  std::vector<IoUnit*> queued_;
  std::vector<InFlight> inflight_;
};

}  // namespace nvmond
