// The simulated drive's OCP latency monitor (C3) and error recovery (C1)
// logs: what the drive counts against what the host timed.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "sim/sim_engine.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

std::shared_ptr<DriveModel> drive(const ManualClock& clock, bool has_ocp = true) {
  SimDriveSpec spec = sim_profile("datacenter");
  spec.name = "d0";
  spec.serial = "SIM0";
  spec.has_ocp = has_ocp;
  return std::make_shared<DriveModel>(spec, clock.wall());
}

// The bucket a host-timed latency falls in with the simulated thresholds
// (5, 10, 20, 50 ms), computed here from the thresholds alone; -1 below A.
int expected_bucket(std::int64_t ns) {
  int b = -1;
  for (int i = 0; i < 4; ++i) {
    if (ns >= 5'000'000LL * (kSimLatencyThresholdsRaw[static_cast<std::size_t>(i)] + 1)) b = i;
  }
  return b;
}

// 256 queued 1 MiB writes (about 80 ms for the last at 3 GB/s) queue up in the drive: the commands it timed
// over each threshold are the ones the host saw take that long.
TEST(SimLatencyMonitor, CountsTheCommandsTheHostTimedOverEachThreshold) {
  ManualClock clock;
  auto model = drive(clock);
  SimEngine engine(model, clock, "SIM0");
  constexpr unsigned kDepth = 256;
  ASSERT_FALSE(engine.setup(EngineSetup{"sim", -1, kDepth, {}}));
  std::vector<IoUnit> units(kDepth);
  std::array<std::uint32_t, 4> host{};
  std::uint64_t offset = 0;
  for (auto& u : units) {
    u.op = IoOp::write;
    u.length = 1 << 20;
    u.offset = offset;
    offset += u.length;
    u.issue_ns = engine.now_ns();
    ASSERT_TRUE(engine.queue(u));
  }
  ASSERT_FALSE(engine.commit());
  std::vector<IoCompletion> done(kDepth);
  std::size_t reaped = 0;
  while (reaped < kDepth) {
    auto n = engine.reap(1, -1ns, std::span(done));
    ASSERT_TRUE(n.ok());
    for (std::size_t i = 0; i < *n; ++i) {
      const int b = expected_bucket(done[i].done_ns - done[i].unit->issue_ns);
      if (b >= 0) ++host[static_cast<std::size_t>(b)];
    }
    reaped += *n;
  }
  const auto log = model->ocp_latency_monitor();
  ASSERT_TRUE(log);
  EXPECT_TRUE(log->enabled());
  std::uint32_t counted = 0;
  for (std::size_t b = 0; b < 4; ++b) {
    EXPECT_EQ(log->static_bucket[b][1], host[b]) << "bucket " << b;
    EXPECT_EQ(log->active_bucket[b][1], host[b]) << "bucket " << b;
    EXPECT_EQ(log->static_bucket[b][0], 0u);
    EXPECT_EQ(log->static_bucket[b][2], 0u);  // the host sends no deallocate
    counted += host[b];
  }
  EXPECT_GT(counted, 0u) << "256 queued 1 MiB writes must include slow ones";
  EXPECT_GT(host[3], 0u) << "and some at 50 ms or more";
}

TEST(SimLatencyMonitor, ActiveWindowStartsOverStaticCountersDoNot) {
  ManualClock clock;
  auto model = drive(clock);
  model->record_latency(IoOp::read, 3ms);   // below threshold A: not counted
  model->record_latency(IoOp::read, 7ms);   // bucket 0
  model->record_latency(IoOp::read, 50ms);  // bucket 3 (at D)
  auto log = model->ocp_latency_monitor();
  ASSERT_TRUE(log);
  EXPECT_EQ(log->static_over_threshold(OcpLatencyOp::read), 2u);
  EXPECT_EQ(log->static_bucket[0][0], 1u);
  EXPECT_EQ(log->static_bucket[3][0], 1u);
  EXPECT_EQ(log->threshold_ms(0), 5u);
  EXPECT_EQ(log->threshold_ms(3), 50u);

  clock.advance(61min);
  model->advance_to(clock.wall());
  model->record_latency(IoOp::read, 12ms);  // bucket 1, in a new window
  log = model->ocp_latency_monitor();
  EXPECT_EQ(log->static_over_threshold(OcpLatencyOp::read), 3u);
  EXPECT_EQ(log->active_bucket[0][0], 0u);
  EXPECT_EQ(log->active_bucket[1][0], 1u);
  EXPECT_EQ(log->active_bucket[3][0], 0u);
}

TEST(SimOcpLogs, OnlyADriveWithTheOcpLogsHasThemAndAPanicIsInjected) {
  ManualClock clock;
  auto plain = drive(clock, false);
  plain->record_latency(IoOp::write, 100ms);
  EXPECT_FALSE(plain->ocp_latency_monitor());
  EXPECT_FALSE(plain->ocp_error_recovery());

  auto calm = drive(clock);
  ASSERT_TRUE(calm->ocp_error_recovery());
  EXPECT_FALSE(calm->ocp_error_recovery()->panicked());

  SimDriveSpec spec = sim_profile("datacenter");
  spec.name = "p";
  spec.serial = "SIMP";
  spec.ocp_panic = true;
  DriveModel panicking(spec, clock.wall());
  const auto rec = panicking.ocp_error_recovery();
  ASSERT_TRUE(rec);
  EXPECT_TRUE(rec->panicked());
  EXPECT_EQ(rec->panic_count, 1);
  EXPECT_EQ(rec->device_recovery_action_1, 3);  // vendor analysis
}

TEST(SimOcpLogs, SmartLogVersionFiveHasTheLaterFields) {
  ManualClock clock;
  auto model = drive(clock);
  const auto o = model->ocp();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->log_page_version, 5);
  EXPECT_EQ(o->total_media_dies, 64);
  EXPECT_EQ(o->media_dies_offline, 0);
  EXPECT_GE(o->max_temperature_recorded_c, static_cast<int>(model->composite_celsius()));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
