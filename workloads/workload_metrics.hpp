#pragma once
// Renders live workload runs as Prometheus metric families. Pure: the same
// snapshots give the same families; the caller (the daemon's collectable)
// takes the snapshots, this does no locking and no I/O.
//
//   nvmond_workload_latency_seconds{job,op}               histogram, since run start
//   nvmond_workload_latency_quantile_seconds{job,op,quantile}  gauge, last interval
//   nvmond_workload_ops_total{job,op}                     counter
//   nvmond_workload_bytes_total{job,op}                   counter
//   nvmond_workload_errors_total{job,op}                  counter (I/O errors + verify failures)
//   nvmond_workload_iops{job,op}                          gauge, last interval
//   nvmond_workload_throughput_bytes_per_second{job,op}   gauge, last interval
//   nvmond_workload_running{job}                          gauge, 1 while running
#include <prometheus/metric_family.h>

#include <span>
#include <vector>

#include "workloads/run_result.hpp"

namespace nvmond {

// Upper bounds (seconds) of the latency histogram: 1-2-5 steps from 10 us to 10 s.
const std::vector<double>& workload_latency_buckets();
// Quantiles published as gauges: 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999.
const std::vector<double>& workload_latency_quantiles();

std::vector<prometheus::MetricFamily> render_workload_metrics(std::span<const RunSnapshot> runs);

}  // namespace nvmond
