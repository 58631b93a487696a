#pragma once
// What a workload run produced, as plain data: totals and latency per op type,
// errors with their offsets, a per-second timeline, and the live view that the
// metrics renderer reads while the run is going.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/io_op.hpp"
#include "core/result.hpp"
#include "workloads/io_engine.hpp"
#include "workloads/job_spec.hpp"
#include "workloads/latency_histogram.hpp"

namespace nvmond {

struct OpTotals : OpCounts {
  LatencyHistogram latency;  // completed I/Os only, nanoseconds
};

struct IoErrorRecord {
  IoOp op = IoOp::read;
  std::uint64_t offset = 0;  // bytes into the target
  std::uint32_t length = 0;
  int error = 0;  // errno, or 0 for a verify mismatch
  std::string what;
};

// One second of the run (engine time), per op type.
struct TimelineOp {
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  std::uint64_t latency_sum_ns = 0;
  double mean_latency_seconds() const {
    return ops ? static_cast<double>(latency_sum_ns) * 1e-9 / static_cast<double>(ops) : 0.0;
  }
};
struct TimelineSecond {
  std::array<TimelineOp, kIoOpCount> op{};
};

struct RunResult {
  std::string job;
  std::string target;
  std::string engine;
  std::optional<Error> failure;  // refused by the safety guard, or setup failed
  Duration elapsed{};            // engine time of the main phase (longest worker)
  std::array<OpTotals, kIoOpCount> op{};
  std::uint64_t short_ios = 0;               // partial transfers that were resubmitted
  std::vector<IoErrorRecord> error_samples;  // the first few of every worker
  std::uint64_t verified_blocks = 0;
  std::uint64_t verify_failures = 0;
  std::vector<TimelineSecond> timeline;
  // Sequential jobs: where each worker stopped, to start the next job there.
  SequentialCursor sequential_next;
  // Sequential jobs: the bytes each worker wrote, in worker order.
  std::vector<std::uint64_t> sequential_written;

  std::uint64_t total_errors() const { return op[0].errors + op[1].errors; }
  std::uint64_t total_ops() const { return op[0].ops + op[1].ops; }
};

// Live view of a run, rebuilt once per second by the runner. Cumulative
// histograms for the Prometheus histogram, the last interval's for quantile
// gauges and rates.
struct RunSnapshot {
  std::string job;
  std::string serial;  // drive of the target ("" for files): the `serial` label
  struct Op : OpCounts {
    LatencyHistogram latency;           // since the start
    LatencyHistogram interval_latency;  // last interval only
    double iops = 0;                    // last interval
    double bytes_per_second = 0;        // last interval
  };
  std::array<Op, kIoOpCount> op{};
  bool running = false;
  // The last interval behind iops/bytes_per_second, in engine time
  // (IoEngine::now_ns): its end and length, and how many intervals the run
  // has measured so far (a reader tells a new one from one it has seen).
  std::uint64_t intervals = 0;
  std::int64_t interval_end_ns = 0;
  EngineTime time_base = EngineTime::monotonic;  // what interval_end_ns counts
  Duration interval{};
};

}  // namespace nvmond
