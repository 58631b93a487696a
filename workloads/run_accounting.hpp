#pragma once
// A run's accounting: each worker counts into its own single-writer atomics
// (WorkerStats, read by the aggregating thread) and plain data handed back
// when it is done (WorkerOutput); the runner merges them into the live
// RunSnapshot once a second and into the RunResult at the end.
#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workloads/io_engine.hpp"
#include "workloads/latency_histogram.hpp"
#include "workloads/run_result.hpp"

namespace nvmond {

// Per-worker counters: written by the worker only, read by the aggregator.
struct WorkerStats {
  std::array<LatencyRecorder, kIoOpCount> latency;
  std::array<std::atomic<std::uint64_t>, kIoOpCount> ops{};
  std::array<std::atomic<std::uint64_t>, kIoOpCount> bytes{};
  std::array<std::atomic<std::uint64_t>, kIoOpCount> errors{};
  std::atomic<std::int64_t> now_ns{0};
};

// What a worker hands back when it is done (plain data, read after join).
struct WorkerOutput {
  std::optional<Error> failure;
  std::int64_t main_elapsed_ns = 0;
  std::uint64_t short_ios = 0;
  std::vector<IoErrorRecord> error_samples;
  std::uint64_t verified_blocks = 0;
  std::uint64_t verify_failures = 0;
  std::vector<TimelineSecond> timeline;
  std::uint64_t sequential_next = 0;  // IoPlanner::sequential_next after the main pass
};

inline constexpr std::size_t kMaxErrorSamples = 32;

// A failed I/O (errno `err`, or 0 with `what` for a verify mismatch): counted,
// and kept with its offset while fewer than kMaxErrorSamples are.
void record_io_error(WorkerStats& stats, WorkerOutput& out, const IoUnit& u, int err, const char* what);

// A completed I/O: its latency, the counters and its second of the timeline.
void account_completion(WorkerStats& stats, WorkerOutput& out, const IoUnit& u, std::int64_t done_ns,
                        std::int64_t run_start_ns);

// Merges the workers' recorders into a live snapshot, with rates over the
// time since the previous call. One thread calls it.
class SnapshotAggregator {
 public:
  explicit SnapshotAggregator(const std::vector<std::unique_ptr<WorkerStats>>& stats) : stats_(stats) {}
  RunSnapshot take(const std::string& job, bool running);

 private:
  const std::vector<std::unique_ptr<WorkerStats>>& stats_;
  std::array<LatencyHistogram, kIoOpCount> previous_;
  std::array<std::uint64_t, kIoOpCount> prev_ops_{}, prev_bytes_{};
  std::int64_t prev_now_ = 0;
  std::uint64_t intervals_ = 0;  // measured so far (RunSnapshot::intervals)
  LatencyHistogram scratch_;
};

// The end of a run: the workers' totals and outputs into `result`.
void merge_into(RunResult& result, const std::vector<std::unique_ptr<WorkerStats>>& stats,
                std::vector<WorkerOutput>& outputs);

}  // namespace nvmond
