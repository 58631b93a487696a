#include "workloads/workload_metrics.hpp"

#include <fmt/core.h>

#include <cmath>
#include <limits>

namespace nvmond {

const std::vector<double>& workload_latency_buckets() {
  static const std::vector<double> b = [] {
    std::vector<double> v;
    for (int k = kLatencyBucketLowestStep; k <= kLatencyBucketHighestStep; ++k) {
      v.push_back(std::exp2(static_cast<double>(k) / kLatencyBucketsPerOctave));
    }
    return v;
  }();
  return b;
}

double histogram_quantile(double q, std::span<const prometheus::ClientMetric::Bucket> buckets) {
  if (buckets.empty() || !std::isinf(buckets.back().upper_bound)) return std::nan("");
  const auto total = static_cast<double>(buckets.back().cumulative_count);
  if (total == 0) return std::nan("");
  const double rank = q * total;
  std::size_t i = 0;
  while (i + 1 < buckets.size() && static_cast<double>(buckets[i].cumulative_count) < rank) ++i;
  // Prometheus returns the highest finite bound for ranks in the +Inf bucket.
  if (i + 1 == buckets.size()) return buckets.size() > 1 ? buckets[i - 1].upper_bound : 0.0;
  const double lo = i == 0 ? 0.0 : buckets[i - 1].upper_bound;
  const double below = i == 0 ? 0.0 : static_cast<double>(buckets[i - 1].cumulative_count);
  const double in = static_cast<double>(buckets[i].cumulative_count) - below;
  if (in == 0) return buckets[i].upper_bound;
  return lo + (buckets[i].upper_bound - lo) * (rank - below) / in;
}

std::vector<prometheus::ClientMetric::Bucket> latency_buckets_of(const LatencyHistogram& h) {
  static const std::vector<std::uint64_t> bounds_ns = [] {
    std::vector<std::uint64_t> v;
    for (double le : workload_latency_buckets()) v.push_back(static_cast<std::uint64_t>(le * 1e9));
    return v;
  }();
  std::vector<std::uint64_t> counts(bounds_ns.size());
  h.counts_at_or_below(bounds_ns, counts);
  std::vector<prometheus::ClientMetric::Bucket> out;
  out.reserve(counts.size() + 1);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    out.push_back({counts[i], workload_latency_buckets()[i]});
  }
  out.push_back({h.count(), std::numeric_limits<double>::infinity()});
  return out;
}

const std::vector<double>& workload_latency_quantiles() {
  static const std::vector<double> q{0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999};
  return q;
}

Labels workload_labels(const RunSnapshot& run) {
  Labels l{{kWorkloadLabel, run.job}};
  if (!run.serial.empty()) l.push_back({"serial", run.serial});
  return l;
}

namespace {

using prometheus::ClientMetric;

Labels labels(const RunSnapshot& run, int op) {
  return with(workload_labels(run), "op", op_name(static_cast<IoOp>(op)));
}

constexpr Family kLatency{"nvmond_workload_latency_seconds", Family::histogram,
                          "Latency of workload I/Os (queue to completion) since the run started; "
                          "buckets 2^(1/16) apart, while the workload runs."};
constexpr Family kIntervalLatency{"nvmond_workload_interval_latency_seconds", Family::summary,
                                  "Latency of workload I/Os (queue to completion): quantiles over the last "
                                  "interval (within 0.05 %), sum and count since the run started."};
constexpr Family kRunning{"nvmond_workload_running", Family::gauge, "1 while the workload is running."};

// One family per counter or rate of an op, and how to read it.
struct Scalar {
  Family family;
  double (*value)(const RunSnapshot::Op&);
};

const Scalar kScalars[] = {
    {{"nvmond_workload_ops_total", Family::counter, "I/Os completed by the workload."},
     [](const RunSnapshot::Op& o) { return static_cast<double>(o.ops); }},
    {{"nvmond_workload_bytes_total", Family::counter, "Bytes transferred by the workload."},
     [](const RunSnapshot::Op& o) { return static_cast<double>(o.bytes); }},
    {{"nvmond_workload_errors_total", Family::counter, "Failed I/Os and verify mismatches of the workload."},
     [](const RunSnapshot::Op& o) { return static_cast<double>(o.errors); }},
    {{"nvmond_workload_iops", Family::gauge, "I/Os per second over the last interval."},
     [](const RunSnapshot::Op& o) { return o.iops; }},
    {{"nvmond_workload_throughput_bytes_per_second", Family::gauge, "Bytes per second over the last interval."},
     [](const RunSnapshot::Op& o) { return o.bytes_per_second; }},
};

// The fine layout costs ~200 series per op: only running workloads carry it.
void add_latency(MetricSet& out, const RunSnapshot& run, int op) {
  const RunSnapshot::Op& o = run.op[op];
  ClientMetric h;
  h.label = labels(run, op);
  h.histogram.sample_count = o.latency.count();
  h.histogram.sample_sum = o.latency.sum_ns() * 1e-9;
  h.histogram.bucket = latency_buckets_of(o.latency);
  out.add_series(kLatency, std::move(h));

  ClientMetric q;
  q.label = labels(run, op);
  q.summary.sample_count = o.latency.count();
  q.summary.sample_sum = o.latency.sum_ns() * 1e-9;
  if (o.interval_latency.count() > 0) {
    for (double quantile : workload_latency_quantiles()) {
      q.summary.quantile.push_back({quantile, o.interval_latency.quantile(quantile) * 1e-9});
    }
  }
  out.add_series(kIntervalLatency, std::move(q));
}

}  // namespace

std::vector<prometheus::MetricFamily> render_workload_metrics(std::span<const RunSnapshot> runs) {
  MetricSet out(MetricSet::Order::as_declared);
  out.declare(kLatency);
  out.declare(kIntervalLatency);
  for (const auto& s : kScalars) out.declare(s.family);
  out.declare(kRunning);
  for (const auto& run : runs) {
    out.add(kRunning, workload_labels(run), run.running ? 1 : 0);
    for (int op = 0; op < kIoOpCount; ++op) {
      if (run.running) add_latency(out, run, op);
      for (const auto& s : kScalars) out.add(s.family, labels(run, op), s.value(run.op[op]));
    }
  }
  return out.take();
}

}  // namespace nvmond
