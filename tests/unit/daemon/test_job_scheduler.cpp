// JobScheduler: jobs run on their own threads, the event loop publishes their
// numbers under "job:<name>", the simulated drives feel the workload, refusals
// are published, and destruction stops a job that would run for hours.
#include "daemon/job_scheduler.hpp"

#include <gtest/gtest.h>

#include "tests/support/samples.hpp"
#include "tests/support/temp_dir.hpp"

#include <prometheus/metric_family.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include "collectors/sim_name.hpp"
#include "sim/sim_device.hpp"
#include "engines/registry.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Runs the event loop until `done` holds; false at the deadline (a hang is a
// failure, never a wait that "usually" suffices).
bool run_until(boost::asio::io_context& io, const std::function<bool()>& done, std::chrono::seconds limit = 60s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    io.restart();
    io.run_for(5ms);
  }
  return true;
}

using test::sample;

SimDriveSpec drive(const std::string& serial) {
  SimDriveSpec spec = sim_profile("datacenter");
  spec.name = "d" + serial;
  spec.serial = serial;
  return spec;
}

JobSpec sim_job(const std::string& name, const std::string& serial, double read_pct) {
  JobSpec j;
  j.name = name;
  j.engine = "sim";
  j.target = sim_job_target(serial);
  j.read_pct = read_pct;
  j.pattern = AccessPattern::sequential;
  j.block_sizes = {{128 * 1024, 1}};
  j.queue_depth = 8;
  return j;
}

using test::TempDir;

TEST(JobScheduler, SimJobsArePublishedAndMoveTheirDrivesCounters) {
  ManualClock clock;
  SimDeviceSource source({drive("SIM0"), drive("SIM1")}, clock);
  auto m0 = source.model("SIM0");
  auto m1 = source.model("SIM1");
  const SmartLog before0 = m0->smart();
  const SmartLog before1 = m1->smart();

  JobsConfig config;
  config.jobs.push_back(sim_job("fill", "SIM0", 0));
  config.jobs.back().bytes = 40u << 20;
  config.jobs.push_back(sim_job("scan", "SIM1", 100));
  config.jobs.back().bytes = 24u << 20;

  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock ticks;  // publishes in real time; the drives live on `clock`
  JobScheduler jobs(io, ticks, config, make_engine_factory(&source), out, 10ms);
  jobs.start();
  EXPECT_EQ(jobs.running(), 2u);
  ASSERT_TRUE(run_until(io, [&] { return jobs.running() == 0; }));

  const RunResult* fill = jobs.result("fill");
  const RunResult* scan = jobs.result("scan");
  ASSERT_NE(fill, nullptr);
  ASSERT_NE(scan, nullptr);
  ASSERT_FALSE(fill->failure) << fill->failure->message;
  ASSERT_FALSE(scan->failure) << scan->failure->message;

  // What the scrape sees is what the runs did, one series per job.
  const auto fams = out.Collect();
  const double fill_bytes = sample(fams, "nvmond_workload_bytes_total", {{"workload", "fill"}, {"op", "write"}});
  const double scan_bytes = sample(fams, "nvmond_workload_bytes_total", {{"workload", "scan"}, {"op", "read"}});
  EXPECT_EQ(fill_bytes, static_cast<double>(fill->op[1].bytes));
  EXPECT_EQ(scan_bytes, static_cast<double>(scan->op[0].bytes));
  EXPECT_EQ(sample(fams, "nvmond_workload_bytes_total", {{"workload", "fill"}, {"op", "read"}}), 0.0);
  EXPECT_EQ(sample(fams, "nvmond_workload_running", {{"workload", "fill"}}), 0.0);
  EXPECT_EQ(sample(fams, "nvmond_workload_running", {{"workload", "scan"}}), 0.0);
  EXPECT_EQ(sample(fams, "nvmond_workload_failed", {{"workload", "fill"}}), 0.0);

  // The drives' SMART counters moved by the jobs' bytes (data units of
  // 512,000 bytes, cumulative and rounded up), each on its own drive only.
  const u128 written = m0->smart().data_units_written - before0.data_units_written;
  EXPECT_GE(written, u128(static_cast<std::uint64_t>(fill_bytes) / 512000));
  EXPECT_LE(written, u128(static_cast<std::uint64_t>(fill_bytes) / 512000 + 1));
  const u128 read = m1->smart().data_units_read - before1.data_units_read;
  EXPECT_GE(read, u128(static_cast<std::uint64_t>(scan_bytes) / 512000));
  EXPECT_LE(read, u128(static_cast<std::uint64_t>(scan_bytes) / 512000 + 1));
  EXPECT_EQ(m1->smart().data_units_written, before1.data_units_written);
  EXPECT_EQ(m0->smart().data_units_read, before0.data_units_read);
}

TEST(JobScheduler, LiveNumbersWhileRunningAndDestructionStopsALongJob) {
  ManualClock clock;
  SimDeviceSource source({drive("SIM0")}, clock);
  JobsConfig config;
  config.jobs.push_back(sim_job("soak", "SIM0", 0));
  config.jobs.back().runtime = std::chrono::hours(24 * 365);  // simulated; far beyond this test

  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock ticks;  // publishes in real time; the drives live on `clock`
  double live_bytes = 0;
  {
    JobScheduler jobs(io, ticks, config, make_engine_factory(&source), out, 10ms);
    jobs.start();
    // The runner merges its workers' counters about once a second.
    ASSERT_TRUE(run_until(io, [&] {
      live_bytes = sample(out.Collect(), "nvmond_workload_bytes_total", {{"workload", "soak"}, {"op", "write"}});
      return live_bytes > 0;
    }));
    EXPECT_EQ(sample(out.Collect(), "nvmond_workload_running", {{"workload", "soak"}}), 1.0);
    EXPECT_EQ(jobs.running(), 1u);
  }  // ~JobScheduler: stop, join, final numbers
  const auto fams = out.Collect();
  EXPECT_EQ(sample(fams, "nvmond_workload_running", {{"workload", "soak"}}), 0.0);
  EXPECT_GE(sample(fams, "nvmond_workload_bytes_total", {{"workload", "soak"}, {"op", "write"}}), live_bytes);
  // The timer's pending handler runs after the scheduler is gone: it must not touch it.
  io.restart();
  io.poll();
}

TEST(JobScheduler, RunningJobsReportEachIntervalsThroughputForTheirDrive) {
  ManualClock clock;
  const WallTime t0 = clock.wall();
  SimDeviceSource source({drive("SIM0")}, clock);
  JobsConfig config;
  config.jobs.push_back(sim_job("soak", "SIM0", 0));
  config.jobs.back().runtime = std::chrono::hours(24 * 365);

  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock ticks;  // publishes in real time; the drives live on `clock`
  ThroughputFeed feed;
  std::vector<WorkloadThroughput> got;
  {
    JobScheduler jobs(io, ticks, config, make_engine_factory(&source), out, 10ms);
    jobs.report_throughput(feed, clock);
    jobs.start();
    // The runner measures an interval about once a second of real time.
    ASSERT_TRUE(run_until(io, [&] {
      for (auto& x : feed.take("SIM0", WallTime::max())) got.push_back(std::move(x));
      return got.size() >= 2;
    }));
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const WorkloadThroughput& x = got[i];
    EXPECT_EQ(x.workload, "job:soak");
    EXPECT_TRUE(x.fixed);
    EXPECT_GT(x.bytes_per_second, 0);
    EXPECT_GT(x.interval, Duration::zero());
    // Simulated time: the engine's own, dated on the clock the drive reads.
    EXPECT_GT(x.interval_end, t0);
    // Each interval once, back to back.
    if (i > 0) {
      EXPECT_EQ(x.interval_end - x.interval, got[i - 1].interval_end) << i;
    }
  }
}

// One io_uring job on a scratch file in a temporary directory, run to its
// end with the publish timer on real time.
struct ScratchFileRun {
  TempDir dir;
  SystemClock clock;
  fs::path target = fs::path(dir.path()) / "scratch.bin";
  boost::asio::io_context io;
  PublishedMetrics out;
  std::unique_ptr<JobScheduler> jobs;

  // Writes 1 MiB to `target`, created at `file_size`, where [safety] allows
  // only `allowed_dir`. The job's result; nullptr if it did not end in time.
  const RunResult* run(const std::string& name, std::uint64_t file_size, const std::string& allowed_dir,
                       unsigned queue_depth = 1) {
    JobsConfig config;
    JobSpec j;
    j.name = name;
    j.target = target.string();
    j.read_pct = 0;
    j.queue_depth = queue_depth;
    j.file_size = file_size;
    j.bytes = 1 << 20;
    config.jobs.push_back(j);
    config.safety.allow_dirs = {allowed_dir};
    jobs = std::make_unique<JobScheduler>(io, clock, config, make_engine_factory(), out, 10ms);
    jobs->start();
    if (!run_until(io, [&] { return jobs->running() == 0; })) return nullptr;
    return jobs->result(name);
  }
};

TEST(JobScheduler, RefusedJobIsPublishedAsFailedAndWritesNothing) {
  ScratchFileRun f;
  const RunResult* r = f.run("refused", 1 << 20, (fs::path(f.dir.path()) / "elsewhere").string());
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->failure);
  EXPECT_EQ(r->failure->reason, ErrorReason::outside_allowed_dirs);
  const auto fams = f.out.Collect();
  EXPECT_EQ(sample(fams, "nvmond_workload_failed", {{"workload", "refused"}}), 1.0);
  EXPECT_EQ(sample(fams, "nvmond_workload_running", {{"workload", "refused"}}), 0.0);
  EXPECT_EQ(sample(fams, "nvmond_workload_bytes_total", {{"workload", "refused"}, {"op", "write"}}), 0.0);
  EXPECT_FALSE(fs::exists(f.target));
}

TEST(JobScheduler, IoUringJobOnAnAllowedFileWritesIt) {
  ScratchFileRun f;
  const RunResult* r = f.run("file", 4 << 20, f.dir.path(), 4);
  ASSERT_NE(r, nullptr);
  if (r->failure && r->failure->message.find("io_uring") != std::string::npos) {
    GTEST_SKIP() << "io_uring unavailable: " << r->failure->message;
  }
  ASSERT_FALSE(r->failure) << r->failure->message;
  EXPECT_EQ(fs::file_size(f.target), 4u << 20);
  EXPECT_EQ(sample(f.out.Collect(), "nvmond_workload_bytes_total", {{"workload", "file"}, {"op", "write"}}),
            static_cast<double>(r->op[1].bytes));
  EXPECT_GT(r->op[1].bytes, 0u);
}

// The publish timer is the clock's: nothing is republished before the
// interval has passed on it, a running job's numbers are when it has, and
// the next interval counts from that tick.
TEST(JobScheduler, PublishesEachTimeTheClocksIntervalHasPassed) {
  ManualClock clock;
  SimDeviceSource source({drive("SIM0")}, clock);
  JobsConfig config;
  config.jobs.push_back(sim_job("soak", "SIM0", 0));
  config.jobs.back().runtime = std::chrono::hours(24 * 365);  // runs until the scheduler goes

  boost::asio::io_context io;
  PublishedMetrics out;
  JobScheduler jobs(io, clock, config, make_engine_factory(&source), out, 1s);
  jobs.start();  // publishes once at the start, then arms the timer
  EXPECT_FALSE(out.Collect().empty());
  EXPECT_EQ(clock.armed_timers(), 1u);
  for (int tick = 0; tick < 2; ++tick) {
    out.remove(JobScheduler::metrics_key("soak"));
    clock.advance(1s - 1ns);
    io.poll();
    EXPECT_TRUE(out.Collect().empty()) << tick;
    clock.advance(1ns);
    io.poll();
    EXPECT_EQ(sample(out.Collect(), "nvmond_workload_running", {{"workload", "soak"}}), 1.0) << tick;
    EXPECT_EQ(clock.armed_timers(), 1u) << tick;
  }
  EXPECT_EQ(jobs.running(), 1u);
}

// A [[job]] and a soak run never share a drive: a job claims its drive in the
// daemon's DriveClaims from its start until it is collected (so a soak due
// meanwhile waits: SoakSchedulerClaims.*), and a job whose drive a soak run
// holds does not start. Its drive is left alone and the refusal, naming the
// run, is published like the safety guard's.
TEST(JobScheduler, AJobHoldsItsDriveAndDoesNotStartOnADriveASoakRunHolds) {
  ManualClock clock;
  SimDeviceSource source({drive("SIM0"), drive("SIM1")}, clock);
  auto m0 = source.model("SIM0");
  const SmartLog before0 = m0->smart();
  DriveClaims claims;
  auto soak = claims.claim("SIM0", DriveUse{DriveUse::Kind::run, "wsat-3", clock.wall()});
  ASSERT_TRUE(soak);

  JobsConfig config;
  config.jobs.push_back(sim_job("fill", "SIM0", 0));
  config.jobs.back().bytes = 8u << 20;
  config.jobs.push_back(sim_job("scan", "SIM1", 100));
  config.jobs.back().bytes = 8u << 20;

  boost::asio::io_context io;
  PublishedMetrics out;
  SystemClock ticks;
  JobScheduler jobs(io, ticks, config, make_engine_factory(&source), out, 10ms);
  jobs.claim_drives(claims);
  jobs.start();
  ASSERT_TRUE(claims.holder("SIM1"));
  EXPECT_EQ(claims.holder("SIM1")->kind, DriveUse::Kind::job);
  EXPECT_EQ(claims.holder("SIM1")->who, "scan");
  EXPECT_EQ(claims.holder("SIM0")->who, "wsat-3") << "the soak run keeps its drive";
  ASSERT_TRUE(run_until(io, [&] { return jobs.running() == 0; }));

  const RunResult* fill = jobs.result("fill");
  ASSERT_NE(fill, nullptr);
  ASSERT_TRUE(fill->failure);
  EXPECT_EQ(fill->failure->message, "drive SIM0 is in use by run wsat-3");
  EXPECT_EQ(m0->smart().data_units_written, before0.data_units_written);
  EXPECT_EQ(sample(out.Collect(), "nvmond_workload_failed", {{"workload", "fill"}}), 1.0);
  const RunResult* scan = jobs.result("scan");
  ASSERT_NE(scan, nullptr);
  EXPECT_FALSE(scan->failure);
  EXPECT_FALSE(claims.holder("SIM1")) << "a collected job still holds its drive";
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
