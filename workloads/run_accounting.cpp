#include "workloads/run_accounting.hpp"

#include <algorithm>
#include <cstring>

namespace nvmond {
namespace {

void bump(std::atomic<std::uint64_t>& a, std::uint64_t by) {
  a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace

void record_io_error(WorkerStats& stats, WorkerOutput& out, const IoUnit& u, int err, const char* what) {
  bump(stats.errors[static_cast<int>(u.op)], 1);
  if (out.error_samples.size() < kMaxErrorSamples) {
    out.error_samples.push_back(IoErrorRecord{u.op, u.offset, u.length, err, what ? what : std::strerror(err)});
  }
}

void account_completion(WorkerStats& stats, WorkerOutput& out, const IoUnit& u, std::int64_t done_ns,
                        std::int64_t run_start_ns) {
  const auto lat = static_cast<std::uint64_t>(std::max<std::int64_t>(0, done_ns - u.issue_ns));
  const int op = static_cast<int>(u.op);
  stats.latency[op].record(lat);
  bump(stats.ops[op], 1);
  bump(stats.bytes[op], u.total);
  const auto sec = static_cast<std::size_t>(std::max<std::int64_t>(0, done_ns - run_start_ns) / 1'000'000'000);
  if (sec >= out.timeline.size()) out.timeline.resize(sec + 1);  // once a second
  TimelineOp& t = out.timeline[sec].op[op];
  ++t.ops;
  t.bytes += u.total;
  t.latency_sum_ns += lat;
}

RunSnapshot SnapshotAggregator::take(const std::string& job, bool running) {
  RunSnapshot s;
  s.job = job;
  s.running = running;
  std::int64_t now = 0;
  for (const auto& st : stats_) now = std::max(now, st->now_ns.load(std::memory_order_relaxed));
  const double dt = prev_now_ > 0 ? static_cast<double>(now - prev_now_) * 1e-9 : 0.0;
  for (int op = 0; op < kIoOpCount; ++op) {
    RunSnapshot::Op& o = s.op[op];
    for (const auto& st : stats_) {
      st->latency[op].snapshot(scratch_);
      o.latency.merge(scratch_);
      o.ops += st->ops[op].load(std::memory_order_relaxed);
      o.bytes += st->bytes[op].load(std::memory_order_relaxed);
      o.errors += st->errors[op].load(std::memory_order_relaxed);
    }
    o.interval_latency = o.latency;
    o.interval_latency.subtract(previous_[op]);
    previous_[op] = o.latency;
    if (dt > 0) {
      o.iops = static_cast<double>(o.ops - prev_ops_[op]) / dt;
      o.bytes_per_second = static_cast<double>(o.bytes - prev_bytes_[op]) / dt;
    }
    prev_ops_[op] = o.ops;
    prev_bytes_[op] = o.bytes;
  }
  if (dt > 0) {
    s.intervals = ++intervals_;
    s.interval_end_ns = now;
    s.interval = Duration(now - prev_now_);
  } else {
    s.intervals = intervals_;
  }
  if (now > 0) prev_now_ = now;
  return s;
}

void merge_into(RunResult& result, const std::vector<std::unique_ptr<WorkerStats>>& stats,
                std::vector<WorkerOutput>& outputs) {
  LatencyHistogram scratch;
  for (int op = 0; op < kIoOpCount; ++op) {
    OpTotals& t = result.op[op];
    for (const auto& st : stats) {
      st->latency[op].snapshot(scratch);
      t.latency.merge(scratch);
      t.ops += st->ops[op].load();
      t.bytes += st->bytes[op].load();
      t.errors += st->errors[op].load();
    }
  }
  for (auto& o : outputs) {
    if (o.failure && !result.failure) result.failure = o.failure;
    result.elapsed = std::max(result.elapsed, Duration(o.main_elapsed_ns));
    result.short_ios += o.short_ios;
    result.verified_blocks += o.verified_blocks;
    result.verify_failures += o.verify_failures;
    for (auto& e : o.error_samples) result.error_samples.push_back(std::move(e));
    if (o.timeline.size() > result.timeline.size()) result.timeline.resize(o.timeline.size());
    for (std::size_t s = 0; s < o.timeline.size(); ++s) {
      for (int op = 0; op < kIoOpCount; ++op) {
        TimelineOp& dst = result.timeline[s].op[op];
        const TimelineOp& src = o.timeline[s].op[op];
        dst.ops += src.ops;
        dst.bytes += src.bytes;
        dst.latency_sum_ns += src.latency_sum_ns;
      }
    }
  }
}

}  // namespace nvmond
