#pragma once
// Renders live workload runs as Prometheus metric families. Pure: the same
// snapshots give the same families; the caller (the daemon's collectable)
// takes the snapshots, this does no locking and no I/O.
//
//   nvmond_workload_latency_seconds{workload,op}               histogram, since run start
//   nvmond_workload_latency_quantile_seconds{workload,op,quantile}  gauge, last interval
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

#include "workloads/run_result.hpp"

namespace nvmond {

// Upper bounds (seconds) of the latency histogram: 1-2-5 steps from 10 us to 10 s.
const std::vector<double>& workload_latency_buckets();
// Quantiles published as gauges: 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999.
const std::vector<double>& workload_latency_quantiles();

// Label name carrying the workload's ([[job]]) name on every workload series.
inline constexpr const char* kWorkloadLabel = "workload";

std::vector<prometheus::MetricFamily> render_workload_metrics(std::span<const RunSnapshot> runs);

}  // namespace nvmond
