#pragma once
// Renders live workload runs as Prometheus metric families. Pure: the same
// snapshots give the same families; the caller (the daemon's collectable)
// takes the snapshots, this does no locking and no I/O.
//
//   nvmond_workload_latency_seconds{workload,op}               histogram, since run start (running only)
//   nvmond_workload_interval_latency_seconds{workload,op,quantile}  summary: quantiles of the last
//                                                              interval, sum/count since start (running only)
//   nvmond_workload_ops_total{workload,op}                     counter
//   nvmond_workload_bytes_total{workload,op}                   counter
//   nvmond_workload_errors_total{workload,op}                  counter (I/O errors + verify failures)
//   nvmond_workload_iops{workload,op}                          gauge, last interval
//   nvmond_workload_throughput_bytes_per_second{workload,op}   gauge, last interval
//   nvmond_workload_running{workload}                          gauge, 1 while running
//
// Every series also carries `serial` (the target drive's, as on its nvme_*
// series) when the target is a drive. `workload` is the [[job]] name. It is deliberately not `job`: that is
// Prometheus's own target label (the scrape job), which would either rename
// ours to exported_job or, with honor_labels, be overwritten by it.
#include <prometheus/metric_family.h>

#include <span>
#include <vector>

#include "metrics/metric_set.hpp"
#include "workloads/run_result.hpp"

namespace nvmond {

// Upper bounds (seconds) of the latency histogram: 2^(k/16) for k in
// [kLatencyBucketLowestStep, kLatencyBucketHighestStep], 3.8 us to 10.4 s.
// histogram_quantile() interpolates inside the bucket that holds the true
// quantile, so it is off by at most the bucket's width: 2^(1/16) - 1 = 4.4 %
// (plus the recorder's 0.05 %). 2^(1/8) buckets were off by up to 7.8 % on
// the benchmark's runs.
inline constexpr int kLatencyBucketsPerOctave = 16;
inline constexpr int kLatencyBucketLowestStep = -18 * kLatencyBucketsPerOctave;
inline constexpr int kLatencyBucketHighestStep = 54;
const std::vector<double>& workload_latency_buckets();
// Quantiles of the summary: 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999.
const std::vector<double>& workload_latency_quantiles();

// `h` as cumulative Prometheus buckets on workload_latency_buckets() plus +Inf.
std::vector<prometheus::ClientMetric::Bucket> latency_buckets_of(const LatencyHistogram& h);
// What PromQL's histogram_quantile(q, …) answers for these cumulative buckets
// (linear interpolation inside the bucket holding rank q*count); NaN when empty.
double histogram_quantile(double q, std::span<const prometheus::ClientMetric::Bucket> buckets);

// Label name carrying the workload's ([[job]]) name on every workload series.
inline constexpr const char* kWorkloadLabel = "workload";
// The labels every series of `run` starts with: workload, then serial when
// the target is a drive (an empty serial would be a series of its own).
Labels workload_labels(const RunSnapshot& run);

std::vector<prometheus::MetricFamily> render_workload_metrics(std::span<const RunSnapshot> runs);

}  // namespace nvmond
