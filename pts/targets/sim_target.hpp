#pragma once
// A simulated drive as a PTS target. Time is the drive model's own: each
// element steps the model in slices of simulated time, as fast as the model
// computes, so a 10-hour WSAT takes seconds of CPU (`nvmonctl test run`).
// Paced by a clock (the daemon's), a slice waits until that clock reaches
// its end, so the drive the daemon polls and the soak live on one timeline
// (an accelerated clock still speeds the whole soak up) and a soak does not
// monopolise the model and the store.
//
// One slice (100 ms of drive time, shorter for short elements): the model's
// service time per command of each kind and size gives the throughput
// X = min(1 / mean service, N / (mean service + access latency)) with
// N = threads × queue depth in flight (the drive serves one command at a
// time), capped by a rate limit; that many commands are accounted on the
// model (heat, SLC, wear, GC, and which LBAs hold valid data: a sequential
// element writes on from where it started, wrapping in its range; a random
// one spreads its writes over the range or its zones) and each is recorded
// at the latency Little's law gives: the queueing wait N / X - (service +
// access) plus its own service and access time. The drive has no per-command jitter, so latency
// quantiles spread only as its state (throttling, GC, SLC) changes.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <memory>

#include "sim/drive_model.hpp"
#include "pts/target.hpp"

namespace nvmond {

class SimTarget final : public TestTarget {
 public:
  explicit SimTarget(std::shared_ptr<DriveModel> model, const Clock* pace = nullptr);

  TargetRecord identity() const override;
  bool simulated() const override { return true; }
  std::optional<Error> check_destructive() const override { return std::nullopt; }
  Result<PurgeRecord> purge() override;
  // A sequential element's stream goes on from `from` (one stream).
  Result<Measurement> run(const Element& e, std::uint64_t range_bytes, std::optional<std::uint64_t> max_bytes,
                          const SequentialCursor& from) override;
  // run() with the sequential stream starting `sequential_offset` bytes into
  // the range (wrapping at its end): where a sequential cursor carried across
  // element runs comes in.
  Result<Measurement> run_from(const Element& e, std::uint64_t range_bytes, std::optional<std::uint64_t> max_bytes,
                               std::uint64_t sequential_offset);
  // The model's time moves on by `d` with no host I/O (paced: as the clock
  // reaches it), so its idle-time garbage collection runs.
  std::optional<Error> idle(Duration d) override;
  std::optional<SmartRecord> health() override;
  // The drive model keeps no data in a volatile cache: every write it
  // accepts is on its media, so every profile is write-cache-disabled.
  WriteCacheState write_cache() override { return {false, "simulated drive: the model has no volatile write cache"}; }
  // Paced, the run's time is the daemon's clock: the model trails it until a
  // run advances it (the poller moves it only on its polls).
  WallTime now() const override { return pace_ != nullptr ? std::max(model_->now(), pace_->wall()) : model_->now(); }
  void stop() override;
  void restart() override { stop_.store(false); }
  std::string checkpoint() const override { return model_->save_state(); }
  std::optional<Error> restore(const std::string& state) override;

 private:
  // Waits until the pacing clock reaches `t` or stop(); false when stopped.
  bool wait_for_clock(WallTime t);

  std::shared_ptr<DriveModel> model_;
  const Clock* pace_;
  // Until the executor hands run() the stage's sequential cursor, this target
  // keeps one: where its last sequential element's stream ended, in bytes
  // into that element's range, so that preconditioning in rounds covers the
  // range. A purge resets it. Not in the checkpoint: a resumed run's stream
  // restarts at the range's first byte.
  std::atomic<bool> stop_{false};
  std::mutex pace_mu_;
  std::condition_variable pace_cv_;
};

}  // namespace nvmond
