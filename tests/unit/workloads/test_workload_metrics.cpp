#include "workloads/workload_metrics.hpp"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "workloads/target_serial.hpp"

namespace nvmond {
namespace {

RunSnapshot sample_run() {
  RunSnapshot s;
  s.job = "wsat";
  s.running = true;
  RunSnapshot::Op& w = s.op[1];
  w.ops = 3;
  w.bytes = 3 * 4096;
  w.errors = 1;
  w.iops = 1500;
  w.bytes_per_second = 1500 * 4096;
  for (std::uint64_t ns : {15'000ULL, 150'000ULL, 3'000'000ULL}) w.latency.record(ns);
  w.interval_latency.record(150'000);
  return s;
}

const prometheus::MetricFamily& family(const std::vector<prometheus::MetricFamily>& fs,
                                       const std::string& name) {
  for (const auto& f : fs) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no family " + name);
}

TEST(WorkloadMetrics, HistogramHasCumulativeBucketsUpToInf) {
  std::vector<RunSnapshot> runs{sample_run()};
  auto fs = render_workload_metrics(runs);
  const auto& h = family(fs, "nvmond_workload_latency_seconds");
  ASSERT_EQ(h.metric.size(), 2u);  // read and write
  const auto& write = h.metric[1];
  EXPECT_EQ(write.label[1].value, "write");
  EXPECT_EQ(write.histogram.sample_count, 3u);
  EXPECT_NEAR(write.histogram.sample_sum, 3.165e-3, 1e-9);
  const auto& b = write.histogram.bucket;
  ASSERT_EQ(b.size(), workload_latency_buckets().size() + 1);
  EXPECT_TRUE(std::isinf(b.back().upper_bound));
  EXPECT_EQ(b.back().cumulative_count, 3u);
  for (std::size_t i = 1; i < b.size(); ++i) EXPECT_GE(b[i].cumulative_count, b[i - 1].cumulative_count);
  auto at = [&](double le) {
    for (const auto& x : b) {
      if (std::abs(x.upper_bound - le) < le * 1e-9) return x.cumulative_count;
    }
    return std::uint64_t{999};
  };
  EXPECT_EQ(at(1e-5), 0u);
  EXPECT_EQ(at(2e-5), 1u);
  EXPECT_EQ(at(2e-4), 2u);
  EXPECT_EQ(at(5e-3), 3u);
}

TEST(WorkloadMetrics, QuantileGaugesOnlyForOpsWithSamplesInTheInterval) {
  std::vector<RunSnapshot> runs{sample_run()};
  auto fs = render_workload_metrics(runs);
  const auto& q = family(fs, "nvmond_workload_latency_quantile_seconds");
  ASSERT_EQ(q.metric.size(), workload_latency_quantiles().size());
  EXPECT_EQ(q.metric[0].label[2].name, "quantile");
  EXPECT_EQ(q.metric[0].label[2].value, "0.5");
  EXPECT_NEAR(q.metric[0].gauge.value, 150e-6, 150e-6 * 1e-3);
}

TEST(WorkloadMetrics, ExpositionText) {
  std::vector<RunSnapshot> runs{sample_run()};
  const std::string text = prometheus::TextSerializer().Serialize(render_workload_metrics(runs));
  for (const char* line : {
           "nvmond_workload_ops_total{workload=\"wsat\",op=\"write\"} 3\n",
           "nvmond_workload_bytes_total{workload=\"wsat\",op=\"write\"} 12288\n",
           "nvmond_workload_errors_total{workload=\"wsat\",op=\"write\"} 1\n",
           "nvmond_workload_iops{workload=\"wsat\",op=\"write\"} 1500\n",
           "nvmond_workload_throughput_bytes_per_second{workload=\"wsat\",op=\"write\"} 6144000\n",
           "nvmond_workload_latency_seconds_bucket{workload=\"wsat\",op=\"write\",le=\"+Inf\"} 3\n",
           "nvmond_workload_latency_seconds_count{workload=\"wsat\",op=\"write\"} 3\n",
           "nvmond_workload_running{workload=\"wsat\"} 1\n",
           "# TYPE nvmond_workload_ops_total counter\n",
           "# TYPE nvmond_workload_latency_seconds histogram\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n" << text;
  }
}

// `job` and `instance` are the target labels Prometheus attaches to every
// scraped series: a workload series carrying either would clash with them
// (renamed to exported_job, or overwritten with honor_labels).
TEST(WorkloadMetrics, NoSeriesCarriesAPrometheusTargetLabel) {
  std::vector<RunSnapshot> runs{sample_run()};
  const auto fams = render_workload_metrics(runs);
  std::size_t named = 0;
  for (const auto& f : fams) {
    for (const auto& m : f.metric) {
      for (const auto& l : m.label) {
        EXPECT_NE(l.name, "job") << f.name;
        EXPECT_NE(l.name, "instance") << f.name;
      }
      ASSERT_FALSE(m.label.empty()) << f.name;
      EXPECT_EQ(m.label[0].name, "workload") << f.name;
      EXPECT_EQ(m.label[0].value, "wsat") << f.name;
      ++named;
    }
  }
  EXPECT_GT(named, 0u);
}

TEST(WorkloadMetrics, EverySeriesCarriesTheDriveSerialWhenKnown) {
  RunSnapshot run = sample_run();
  run.serial = "SIM-DC";
  std::vector<RunSnapshot> runs{run, sample_run()};
  runs[1].job = "file-job";
  for (const auto& f : render_workload_metrics(runs)) {
    for (const auto& m : f.metric) {
      const bool is_dc = m.label[0].value == "wsat";
      int serials = 0;
      for (const auto& l : m.label) {
        if (l.name == "serial") {
          ++serials;
          EXPECT_EQ(l.value, "SIM-DC") << f.name;
        }
      }
      EXPECT_EQ(serials, is_dc ? 1 : 0) << f.name;  // never serial=""
    }
  }
}

TEST(TargetSerial, SimTargetsNameTheirSerialAndBlockDevicesReadSysfs) {
  EXPECT_EQ(target_serial("sim:SIM-C"), "SIM-C");
  const auto root = std::filesystem::temp_directory_path() / ("nvmond-serial-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "class/block/null/device");
  std::ofstream(root / "class/block/null/device/serial") << "S4EWNX0R123456      \n";
  EXPECT_EQ(target_serial("/dev/null", root.string()), "S4EWNX0R123456");
  EXPECT_EQ(target_serial("/tmp", root.string()), "");  // not a device
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace nvmond
