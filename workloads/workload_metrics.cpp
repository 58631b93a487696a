#include "workloads/workload_metrics.hpp"

#include <fmt/core.h>

#include <limits>

namespace nvmond {

const std::vector<double>& workload_latency_buckets() {
  static const std::vector<double> b = [] {
    std::vector<double> v;
    for (double decade = 1e-5; decade < 10.0; decade *= 10) {
      for (double m : {1.0, 2.0, 5.0}) v.push_back(decade * m);
    }
    v.push_back(10.0);
    return v;
  }();
  return b;
}

const std::vector<double>& workload_latency_quantiles() {
  static const std::vector<double> q{0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999};
  return q;
}

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// `serial` only when known: an empty label would be a series of its own.
std::vector<ClientMetric::Label> run_labels(const RunSnapshot& run) {
  std::vector<ClientMetric::Label> l{{kWorkloadLabel, run.job}};
  if (!run.serial.empty()) l.push_back({"serial", run.serial});
  return l;
}

std::vector<ClientMetric::Label> labels(const RunSnapshot& run, int op) {
  auto l = run_labels(run);
  l.push_back({"op", op_name(static_cast<IoOp>(op))});
  return l;
}

// One family per metric: a field accessor and the family's type and help.
struct Scalar {
  const char* name;
  const char* help;
  MetricType type;
  double (*value)(const RunSnapshot::Op&);
};

const Scalar kScalars[] = {
    {"nvmond_workload_ops_total", "I/Os completed by the workload.", MetricType::Counter,
     [](const RunSnapshot::Op& o) { return static_cast<double>(o.ops); }},
    {"nvmond_workload_bytes_total", "Bytes transferred by the workload.", MetricType::Counter,
     [](const RunSnapshot::Op& o) { return static_cast<double>(o.bytes); }},
    {"nvmond_workload_errors_total", "Failed I/Os and verify mismatches of the workload.",
     MetricType::Counter, [](const RunSnapshot::Op& o) { return static_cast<double>(o.errors); }},
    {"nvmond_workload_iops", "I/Os per second over the last interval.", MetricType::Gauge,
     [](const RunSnapshot::Op& o) { return o.iops; }},
    {"nvmond_workload_throughput_bytes_per_second", "Bytes per second over the last interval.",
     MetricType::Gauge, [](const RunSnapshot::Op& o) { return o.bytes_per_second; }},
};

}  // namespace

std::vector<MetricFamily> render_workload_metrics(std::span<const RunSnapshot> runs) {
  MetricFamily hist{"nvmond_workload_latency_seconds",
                    "Completion latency of workload I/Os since the run started.",
                    MetricType::Histogram, {}};
  MetricFamily quant{"nvmond_workload_latency_quantile_seconds",
                     "Latency quantiles of workload I/Os over the last interval.",
                     MetricType::Gauge, {}};
  MetricFamily running{"nvmond_workload_running", "1 while the workload is running.",
                       MetricType::Gauge, {}};
  std::vector<MetricFamily> scalars;
  for (const auto& s : kScalars) scalars.push_back(MetricFamily{s.name, s.help, s.type, {}});

  for (const auto& run : runs) {
    ClientMetric r;
    r.label = run_labels(run);
    r.gauge.value = run.running ? 1 : 0;
    running.metric.push_back(std::move(r));
    for (int op = 0; op < kIoOpCount; ++op) {
      const RunSnapshot::Op& o = run.op[op];
      ClientMetric h;
      h.label = labels(run, op);
      h.histogram.sample_count = o.latency.count();
      h.histogram.sample_sum = o.latency.sum_ns() * 1e-9;
      for (double le : workload_latency_buckets()) {
        h.histogram.bucket.push_back(
            {o.latency.count_at_or_below(static_cast<std::uint64_t>(le * 1e9)), le});
      }
      h.histogram.bucket.push_back({o.latency.count(), std::numeric_limits<double>::infinity()});
      hist.metric.push_back(std::move(h));

      if (o.interval_latency.count() > 0) {
        for (double q : workload_latency_quantiles()) {
          ClientMetric g;
          g.label = labels(run, op);
          g.label.push_back({"quantile", fmt::format("{}", q)});
          g.gauge.value = o.interval_latency.quantile(q) * 1e-9;
          quant.metric.push_back(std::move(g));
        }
      }
      for (std::size_t i = 0; i < scalars.size(); ++i) {
        ClientMetric m;
        m.label = labels(run, op);
        const double v = kScalars[i].value(o);
        if (kScalars[i].type == MetricType::Counter) m.counter.value = v;
        else m.gauge.value = v;
        scalars[i].metric.push_back(std::move(m));
      }
    }
  }
  std::vector<MetricFamily> out;
  out.push_back(std::move(hist));
  out.push_back(std::move(quant));
  for (auto& s : scalars) out.push_back(std::move(s));
  out.push_back(std::move(running));
  return out;
}

}  // namespace nvmond
