// run.json's drive.latency_monitor: the drive's OCP latency monitor count
// over the run beside the run's own I/Os over the same threshold.
#include <gtest/gtest.h>

#include "pts/run.hpp"
#include "runmodel/round_record.hpp"
#include "runmodel/run_json.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

SmartRecord monitor(double threshold_s, std::uint64_t reads, std::uint64_t writes) {
  SmartRecord s;
  s.time = "2026-01-01T00:00:00Z";
  s.latency_monitor_threshold_s = threshold_s;
  s.latency_monitor_reads = reads;
  s.latency_monitor_writes = writes;
  return s;
}

// 1 at 4 ms (bucket (2, 5] ms), 3 in (5, 10] ms, 2 in (10, 20] ms, 1 above 10 s.
RoundRecord round_with_latencies() {
  RoundRecord r;
  const auto& bounds = histogram_bounds();
  r.histogram.assign(bounds.size() + 1, 0);
  auto bucket_up_to = [&](double s) {
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      if (bounds[i] >= s * (1 - 1e-9)) return i;
    }
    return bounds.size();
  };
  r.histogram[bucket_up_to(0.005)] += 1;
  r.histogram[bucket_up_to(0.010)] += 3;
  r.histogram[bucket_up_to(0.020)] += 2;
  r.histogram.back() += 1;
  return r;
}

nlohmann::json drive_of(const RunHeader& h, const std::vector<RoundRecord>& rounds) {
  return run_json(make_run(TestPlan{}, h, RunStatus{}, rounds)).at("drive");
}

TEST(RunLatencyMonitor, DriveCountOverTheRunBesideTheHostsOverTheSameThreshold) {
  RunHeader h;
  h.smart_before = monitor(0.005, 100, 40);
  h.smart_after = monitor(0.005, 103, 45);
  const auto d = drive_of(h, {round_with_latencies()});
  ASSERT_TRUE(d.contains("latency_monitor")) << d.dump();
  const auto& lm = d.at("latency_monitor");
  EXPECT_DOUBLE_EQ(lm.at("threshold_s").get<double>(), 0.005);
  EXPECT_EQ(lm.at("drive_ios").get<std::uint64_t>(), 8u);
  // 5 ms is a histogram bound: the host's count is exact.
  EXPECT_EQ(lm.at("host_ios_min").get<std::uint64_t>(), 6u);
  EXPECT_EQ(lm.at("host_ios_max").get<std::uint64_t>(), 6u);
}

TEST(RunLatencyMonitor, AThresholdInsideABucketGivesTheHostsRange) {
  RunHeader h;
  h.smart_before = monitor(0.030, 0, 0);
  h.smart_after = monitor(0.030, 0, 1);
  const auto lm = drive_of(h, {round_with_latencies()}).at("latency_monitor");
  // 30 ms lies in (20, 50] ms, which is empty: at least and at most the one above 10 s.
  EXPECT_EQ(lm.at("host_ios_min").get<std::uint64_t>(), 1u);
  EXPECT_EQ(lm.at("host_ios_max").get<std::uint64_t>(), 1u);
  h.smart_before = monitor(0.008, 0, 0);
  h.smart_after = monitor(0.008, 0, 0);
  const auto in_bucket = drive_of(h, {round_with_latencies()}).at("latency_monitor");
  EXPECT_EQ(in_bucket.at("host_ios_min").get<std::uint64_t>(), 3u);  // (10, 20] ms and above 10 s
  EXPECT_EQ(in_bucket.at("host_ios_max").get<std::uint64_t>(), 6u);  // with (5, 10] ms
}

TEST(RunLatencyMonitor, LeftOutWithoutAMonitorOrWhenItWasResetOrRetuned) {
  RunHeader h;
  EXPECT_FALSE(drive_of(h, {round_with_latencies()}).contains("latency_monitor"));
  h.smart_before = monitor(0.005, 100, 40);
  h.smart_after = monitor(0.005, 10, 0);  // re-enabled during the run: counts restarted
  EXPECT_FALSE(drive_of(h, {round_with_latencies()}).contains("latency_monitor"));
  h.smart_after = monitor(0.010, 200, 50);  // threshold changed
  EXPECT_FALSE(drive_of(h, {round_with_latencies()}).contains("latency_monitor"));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
