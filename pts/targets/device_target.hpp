#pragma once
// A real block device or file as a PTS target: elements run through the
// workload runner (io_uring, O_DIRECT), writes only where the safety guard
// allows them; health and temperature come from the NVMe controller (the
// Device boundary) when the target is an NVMe namespace (/dev/nvmeXnY), and
// are absent otherwise (a loop device or a file has no SMART log).
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "collectors/device.hpp"
#include "pts/target.hpp"
#include "workloads/runner.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

class DeviceTarget final : public TestTarget {
 public:
  // `guard` must outlive the target. `open_namespace` says which NVMe
  // namespace `path` is, if any (empty: none is). `engines` makes each
  // element's engines: given, so that the target depends on the runner's
  // seam alone and not on which engines there are (engines/registry.hpp).
  // Fails when the size cannot be read.
  static Result<std::unique_ptr<DeviceTarget>> open(const std::string& path, const SafetyGuard& guard,
                                                    const NamespaceOpener& open_namespace, EngineFactory engines);

  TargetRecord identity() const override { return identity_; }
  bool simulated() const override { return false; }
  // The guard's verdict on the descriptor opened once for the whole run.
  std::optional<Error> check_destructive() const override { return refusal_; }
  Result<PurgeRecord> purge() override;
  Result<Measurement> run(const Element& e, std::uint64_t range_bytes, std::optional<std::uint64_t> max_bytes,
                          const SequentialCursor& from) override;
  // Waits `d` of real time with no I/O in flight, or until stop().
  std::optional<Error> idle(Duration d) override;
  std::optional<SmartRecord> health() override;
  // An NVMe namespace's controller: Identify VWC, then Get Features 06h;
  // any other target cannot tell.
  WriteCacheState write_cache() override;
  std::optional<Error> set_write_cache(bool enabled) override;
  WallTime now() const override { return std::chrono::system_clock::now(); }
  void stop() override;
  void restart() override;

 private:
  DeviceTarget(std::string path, const SafetyGuard& guard, EngineFactory engines)
      : path_(std::move(path)), guard_(guard), engines_(std::move(engines)) {}
  std::string path_;
  const SafetyGuard& guard_;
  EngineFactory engines_;
  TargetRecord identity_;
  // Opened and approved once by the guard; every element, and the purge, use
  // it. Holding it also holds a block device's O_EXCL claim for the whole
  // run: nothing can mount it between rounds, and no round races the kernel's
  // asynchronous release of the previous round's io_uring.
  UniqueFd fd_;
  std::optional<Error> refusal_;
  std::optional<NvmeNamespace> nvme_;  // nullopt unless an NVMe namespace
  std::mutex mu_;
  std::condition_variable stopped_cv_;  // wakes an idle() at stop()
  JobRunner* running_ = nullptr;        // guarded by mu_
  bool stopped_ = false;                // guarded by mu_
};

// Jobs for an element: the runner's spec for `range_bytes` of the target,
// a sequential element's workers starting at `from`.
JobSpec element_job(const Element& e, const std::string& path, std::uint64_t range_bytes,
                    std::optional<std::uint64_t> max_bytes, const SequentialCursor& from = {});

}  // namespace nvmond
