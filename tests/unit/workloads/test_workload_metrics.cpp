#include "workloads/workload_metrics.hpp"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tests/support/running_workload.hpp"
#include "tests/support/samples.hpp"
#include "workloads/target_serial.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

RunSnapshot sample_run() { return test::running_workload("wsat"); }

TEST(WorkloadMetrics, HistogramHasCumulativeBucketsUpToInf) {
  std::vector<RunSnapshot> runs{sample_run()};
  auto fs = render_workload_metrics(runs);
  const auto* h = test::family(fs, "nvmond_workload_latency_seconds");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->metric.size(), 2u);  // read and write
  const auto& write = h->metric[1];
  EXPECT_EQ(write.label[1].value, "write");
  EXPECT_EQ(write.histogram.sample_count, 3u);
  EXPECT_NEAR(write.histogram.sample_sum, 3.165e-3, 1e-9);
  const auto& b = write.histogram.bucket;
  ASSERT_EQ(b.size(), workload_latency_buckets().size() + 1);
  EXPECT_TRUE(std::isinf(b.back().upper_bound));
  EXPECT_EQ(b.back().cumulative_count, 3u);
  // Every finite bucket counts exactly the samples at or below its bound.
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {
    std::uint64_t expected = 0;
    for (double v : {15e-6, 150e-6, 3e-3}) expected += v <= b[i].upper_bound ? 1 : 0;
    EXPECT_EQ(b[i].cumulative_count, expected) << b[i].upper_bound;
  }
}

TEST(WorkloadMetrics, BucketsAreASixteenthOfAnOctaveApartFromFourMicrosecondsToTenSeconds) {
  const auto& b = workload_latency_buckets();
  EXPECT_LE(b.front(), 4e-6);
  EXPECT_GE(b.back(), 10.0);
  for (std::size_t i = 1; i < b.size(); ++i) EXPECT_NEAR(b[i] / b[i - 1], std::exp2(1.0 / 16), 1e-12);
}

// The worst case for interpolation: every sample just above a bucket's lower
// bound, so histogram_quantile() reads the middle or the top of the bucket.
TEST(WorkloadMetrics, HistogramQuantileIsWithinFivePercentEvenWhenSamplesHugABound) {
  const auto& bounds = workload_latency_buckets();
  for (std::size_t i = 10; i + 1 < bounds.size(); i += 37) {
    LatencyHistogram h;
    const auto ns = static_cast<std::uint64_t>(bounds[i] * 1e9 * 1.001);
    for (int k = 0; k < 1000; ++k) h.record(ns);
    const auto b = latency_buckets_of(h);
    for (double q : {0.5, 0.99, 0.999}) {
      EXPECT_NEAR(histogram_quantile(q, b) / (static_cast<double>(ns) * 1e-9), 1.0, 0.05) << bounds[i] << " " << q;
    }
  }
}

TEST(WorkloadMetrics, SummaryCarriesTheIntervalsQuantilesAndTheRunsSumAndCount) {
  std::vector<RunSnapshot> runs{sample_run()};
  auto fs = render_workload_metrics(runs);
  const auto* s = test::family(fs, "nvmond_workload_interval_latency_seconds");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->type, prometheus::MetricType::Summary);
  ASSERT_EQ(s->metric.size(), 2u);
  EXPECT_TRUE(s->metric[0].summary.quantile.empty());  // no reads in the interval
  const auto& w = s->metric[1].summary;
  EXPECT_EQ(w.sample_count, 3u);
  EXPECT_NEAR(w.sample_sum, 3.165e-3, 1e-9);
  ASSERT_EQ(w.quantile.size(), workload_latency_quantiles().size());
  EXPECT_EQ(w.quantile[0].quantile, 0.5);
  EXPECT_NEAR(w.quantile[0].value, 150e-6, 150e-6 * 1e-3);
}

TEST(WorkloadMetrics, FinishedWorkloadsDropTheirLatencySeries) {
  RunSnapshot run = sample_run();
  run.running = false;
  std::vector<RunSnapshot> runs{run};
  for (const auto& f : render_workload_metrics(runs)) {
    EXPECT_NE(f.name, "nvmond_workload_latency_seconds");
    EXPECT_NE(f.name, "nvmond_workload_interval_latency_seconds");
  }
}

TEST(WorkloadMetrics, HistogramQuantileInterpolatesAsPrometheusDoes) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<prometheus::ClientMetric::Bucket> b{{0, 1.0}, {10, 2.0}, {10, 4.0}, {12, inf}};
  EXPECT_DOUBLE_EQ(histogram_quantile(0.5, b), 1.6);   // rank 6 of 12: 6/10 into (1, 2]
  EXPECT_DOUBLE_EQ(histogram_quantile(0.99, b), 4.0);  // in +Inf: the highest finite bound
  EXPECT_TRUE(std::isnan(histogram_quantile(0.5, std::vector<prometheus::ClientMetric::Bucket>{{0, inf}})));
}

// A long-tailed latency distribution (log-normal around 25 us, as on a loop
// device): the fine buckets put histogram_quantile within 5 % of the exact
// p99 and p99.9.
TEST(WorkloadMetrics, HistogramQuantileOfAFineLayoutIsWithinFivePercentAtTheTail) {
  LatencyHistogram h;
  std::uint64_t s = 12345;
  for (int i = 0; i < 200'000; ++i) {
    double g = 0;  // sum of 4 uniforms: a cheap bell curve
    for (int k = 0; k < 4; ++k) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      g += static_cast<double>(s >> 11) / 9007199254740992.0;
    }
    h.record(static_cast<std::uint64_t>(25'000.0 * std::exp((g - 2.0) * 1.2)));
  }
  const auto b = latency_buckets_of(h);
  for (double q : {0.99, 0.999}) {
    const double exact = h.quantile(q) * 1e-9;
    EXPECT_NEAR(histogram_quantile(q, b) / exact, 1.0, 0.05) << q;
  }
}

TEST(WorkloadMetrics, ExpositionText) {
  std::vector<RunSnapshot> runs{sample_run()};
  const std::string text = prometheus::TextSerializer().Serialize(render_workload_metrics(runs));
  for (const char* line :
       {"nvmond_workload_ops_total{workload=\"wsat\",op=\"write\"} 3\n",
        "nvmond_workload_bytes_total{workload=\"wsat\",op=\"write\"} 12288\n",
        "nvmond_workload_errors_total{workload=\"wsat\",op=\"write\"} 1\n",
        "nvmond_workload_iops{workload=\"wsat\",op=\"write\"} 1500\n",
        "nvmond_workload_throughput_bytes_per_second{workload=\"wsat\",op=\"write\"} 6144000\n",
        "nvmond_workload_latency_seconds_bucket{workload=\"wsat\",op=\"write\",le=\"+Inf\"} 3\n",
        "nvmond_workload_latency_seconds_count{workload=\"wsat\",op=\"write\"} 3\n",
        "nvmond_workload_running{workload=\"wsat\"} 1\n", "# TYPE nvmond_workload_ops_total counter\n",
        "# TYPE nvmond_workload_latency_seconds histogram\n",
        "# TYPE nvmond_workload_interval_latency_seconds summary\n",
        "nvmond_workload_interval_latency_seconds{workload=\"wsat\",op=\"write\",quantile=\"0.5\"} ",
        "nvmond_workload_interval_latency_seconds_count{workload=\"wsat\",op=\"write\"} 3\n"}) {
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

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
