#pragma once
// Runs one JobSpec: `threads` workers, each with its own engine (ring) keeping
// `queue_depth` I/Os in flight, until the runtime or byte budget is reached or
// stop() is called. The hot loop batches queue()+reap() into one engine call,
// allocates nothing and takes no lock: counters and latency recorders are
// single-writer atomics that the calling thread merges once per second into a
// RunSnapshot.
//
// verify = true: a write pass (the job's pattern, checksummed blocks), then
// hooks.after_write_pass (tests corrupt the target there), then a read pass
// over every block written that checks each block's checksum and offset.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "core/result.hpp"
#include "workloads/io_engine.hpp"
#include "workloads/job_spec.hpp"
#include "workloads/run_result.hpp"

namespace nvmond {

class SafetyGuard;

// Creates one engine per worker, on the thread that calls run() (engines
// create their queues in setup(), on the worker's own thread). An Error says
// why the job gets none (engines/registry.hpp: an unknown name, a job the
// engine cannot run), and fails the run with it.
using EngineFactory = std::function<Result<std::unique_ptr<IoEngine>>(const JobSpec&)>;

struct RunHooks {
  std::function<void()> after_write_pass;  // verify jobs: between the passes
};

class JobRunner {
 public:
  // `guard` opens and approves the target of every job, read or write, whose
  // engines touch real media (IoEngine::touches_real_media); the engines get
  // its descriptor, never the path. nullptr refuses every such job.
  // Referenced objects must outlive run().
  JobRunner(JobSpec spec, EngineFactory factory, const SafetyGuard* guard, RunHooks hooks = {});
  ~JobRunner();

  // Blocks until the job is done. Per-I/O errors are counted, never fatal; a
  // refused target or a failed setup is reported in RunResult::failure.
  RunResult run();
  // Before run(): do the job's I/O on `fd` (borrowed, must outlive run()), a
  // descriptor the guard already opened and approved for this target, instead
  // of asking the guard to open it again. A run of many jobs on one target
  // (a PTS test) opens and checks it once.
  void use_approved_target(int fd) { approved_fd_ = fd; }
  // Any thread: ask the workers to stop issuing and drain.
  void stop() { stop_.store(true, std::memory_order_relaxed); }
  // Any thread: the live view, at most about a second old.
  RunSnapshot snapshot() const;

  const JobSpec& spec() const { return spec_; }

 private:
  JobSpec spec_;
  EngineFactory factory_;
  const SafetyGuard* guard_;
  RunHooks hooks_;
  std::atomic<bool> stop_{false};
  int approved_fd_ = -1;
  mutable std::mutex snapshot_mu_;
  RunSnapshot snapshot_;
};

// Creates (or extends) a regular-file target to `size` bytes. No-op for block
// devices and for size 0.
std::optional<Error> prepare_file_target(const std::string& path, std::uint64_t size);

}  // namespace nvmond
