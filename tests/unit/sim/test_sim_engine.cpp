// A workload on a simulated drive: simulated time, wear and heat.
#include "sim/sim_engine.hpp"

#include <gtest/gtest.h>

#include "collectors/sim_name.hpp"
#include "tests/support/jobs.hpp"
#include "workloads/runner.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

std::shared_ptr<DriveModel> drive(const ManualClock& clock) {
  SimDriveSpec spec = sim_profile("datacenter");
  spec.name = "d0";
  spec.serial = "SIM0";
  return std::make_shared<DriveModel>(spec, clock.wall());
}

JobSpec sim_job() {
  JobSpec j = test::one_size_job("sim", "sim", sim_job_target("SIM0"), 0, 128 * 1024);
  j.pattern = AccessPattern::sequential;
  j.queue_depth = 8;
  return j;
}

EngineFactory factory_for(std::shared_ptr<DriveModel> model, const Clock& clock) {
  return [model, &clock](const JobSpec&) -> std::unique_ptr<IoEngine> {
    return std::make_unique<SimEngine>(model, clock, "SIM0");
  };
}

TEST(SimEngine, SimulatedMinuteOfWritesRunsOnSimulatedTimeAndWearsTheDrive) {
  ManualClock clock;
  auto model = drive(clock);
  const u128 before = model->smart().data_units_written;
  JobSpec j = sim_job();
  j.runtime = std::chrono::seconds(60);
  RunResult r = JobRunner(j, factory_for(model, clock), nullptr).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  // The run took a simulated minute (and far less real time: no sleeping).
  EXPECT_GE(seconds(r.elapsed), 60.0);
  EXPECT_LT(seconds(r.elapsed), 61.0);
  EXPECT_GT(r.op[1].bytes, 0u);
  EXPECT_EQ(r.timeline.size(), 60u + (seconds(r.elapsed) >= 60.0 ? 1u : 0u));
  // Throughput is bounded by the model's write bandwidth, not by the CPU.
  const double bps = static_cast<double>(r.op[1].bytes) / seconds(r.elapsed);
  EXPECT_LE(bps, model->spec().max_write_bytes_per_s * 1.01);
  // SMART counts the writes (data units of 512,000 bytes, rounded up).
  EXPECT_GE(model->smart().data_units_written - before, u128(r.op[1].bytes / 512000));
}

TEST(SimEngine, QueueDepthOneLatencyIsServicePlusAccessLatency) {
  ManualClock clock;
  auto model = drive(clock);
  JobSpec j = sim_job();
  j.queue_depth = 1;
  j.read_pct = 100;
  j.pattern = AccessPattern::random;
  j.block_sizes = {{4096, 1}};
  j.bytes = 4096 * 1000;
  RunResult r = JobRunner(j, factory_for(model, clock), nullptr).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  EXPECT_EQ(r.op[0].ops, 1000u);
  EXPECT_GE(static_cast<double>(r.op[0].latency.min()), static_cast<double>(model->access_latency(IoOp::read).count()));
}

// "Write at N DWPD" endurance runs depend on the runner delivering the rate
// it was asked for: on simulated time, exactly, whatever the queue depth.
TEST(SimEngine, RateLimitedJobsDeliverTheirRateOnSimulatedTime) {
  for (bool by_bytes : {false, true}) {
    SCOPED_TRACE(by_bytes ? "rate_bytes" : "rate_iops");
    ManualClock clock;
    auto model = drive(clock);
    JobSpec j = sim_job();
    j.pattern = AccessPattern::random;
    j.block_sizes = {{4096, 1}};
    j.runtime = std::chrono::seconds(60);
    if (by_bytes) j.rate_bytes_per_second = 20'000'000;  // ~4883 IOPS of 4 KiB
    else j.rate_iops = 5000;
    RunResult r = JobRunner(j, factory_for(model, clock), nullptr).run();
    ASSERT_FALSE(r.failure) << r.failure->message;
    const double secs = seconds(r.elapsed);
    if (by_bytes) {
      EXPECT_NEAR(static_cast<double>(r.op[1].bytes) / secs, 20e6, 20e6 * 0.01);
    } else {
      EXPECT_NEAR(static_cast<double>(r.op[1].ops) / secs, 5000, 50);
    }
  }
}

TEST(SimEngine, UnknownSerialFailsSetupWithTheSerial) {
  ManualClock clock;
  JobSpec j = sim_job();
  j.bytes = 1 << 20;
  RunResult r = JobRunner(j, factory_for(nullptr, clock), nullptr).run();
  ASSERT_TRUE(r.failure);
  EXPECT_NE(r.failure->message.find("SIM0"), std::string::npos);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
