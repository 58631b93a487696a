// The engine table: a job names its engine, and what it gets is either an
// engine that is what its row says or a refusal that says why.
#include "engines/registry.hpp"

#include <gtest/gtest.h>

#include "collectors/sim_name.hpp"
#include "sim/sim_device.hpp"
#include "tests/support/jobs.hpp"
#include "tests/support/sim_drives.hpp"
#include "workloads/runner.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

// An engine that says whatever it is told about itself, for rows that
// misdeclare it; never set up.
class SaysEngine final : public IoEngine {
 public:
  SaysEngine(bool real_media, EngineTime time) : real_media_(real_media), time_(time) {}
  std::string_view name() const override { return "says"; }
  bool touches_real_media() const override { return real_media_; }
  EngineTime time_base() const override { return time_; }
  std::optional<Error> setup(const EngineSetup&) override { return std::nullopt; }
  std::uint64_t target_size() const override { return 0; }
  bool queue(IoUnit&) override { return false; }
  std::optional<Error> commit() override { return std::nullopt; }
  Result<std::size_t> reap(std::size_t, Duration, std::span<IoCompletion>) override { return std::size_t{0}; }
  std::int64_t now_ns() const override { return 0; }
  void idle(Duration) override {}

 private:
  bool real_media_;
  EngineTime time_;
};

std::unique_ptr<IoEngine> real_monotonic(const JobSpec&, const EngineContext&) {
  return std::make_unique<SaysEngine>(true, EngineTime::monotonic);
}
std::unique_ptr<IoEngine> diskless_monotonic(const JobSpec&, const EngineContext&) {
  return std::make_unique<SaysEngine>(false, EngineTime::monotonic);
}
std::unique_ptr<IoEngine> real_clock(const JobSpec&, const EngineContext&) {
  return std::make_unique<SaysEngine>(true, EngineTime::clock);
}

JobSpec job(std::string engine, std::string target) {
  return test::one_size_job("j", std::move(engine), std::move(target), 0, 4096);
}

TEST(EngineRegistry, AnUnknownEngineIsRefusedNamingTheOnesThereAre) {
  const JobSpec j = job("spdk", "/dev/nvme0n1");
  auto e = load_engine(engine_table(), j, {});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().reason, ErrorReason::setup);
  EXPECT_NE(e.error().message.find("\"spdk\""), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("/dev/nvme0n1"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("engines: \"io_uring\", \"sim\""), std::string::npos) << e.error().message;

  // The runner fails the job with it, before asking the guard for anything.
  const RunResult r = JobRunner(j, make_engine_factory(), nullptr).run();
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->message, e.error().message);
}

TEST(EngineRegistry, EachOfItsEnginesLoadsAsItsRowDeclaresIt) {
  ManualClock clock;
  SimDeviceSource sims({test::small_datacenter_drive("SIM0")}, clock);
  ASSERT_EQ(engine_table().size(), 2u);
  for (const auto& row : engine_table()) {
    SCOPED_TRACE(row.name);
    const bool sim = has(row.caps, EngineCaps::sim_drives);
    auto e = load_engine(engine_table(), job(std::string(row.name), sim ? sim_job_target("SIM0") : "/tmp/x"),
                         EngineContext{&sims});
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_EQ((*e)->name(), row.name);
  }
  // What the runner decides on: io_uring is guarded and counts the monotonic
  // clock; sim is not guarded and counts the daemon's clock.
  auto uring = load_engine(engine_table(), job("io_uring", "/tmp/x"), {});
  ASSERT_TRUE(uring);
  EXPECT_TRUE((*uring)->touches_real_media());
  EXPECT_EQ((*uring)->time_base(), EngineTime::monotonic);
  auto simulated = load_engine(engine_table(), job("sim", sim_job_target("SIM0")), EngineContext{&sims});
  ASSERT_TRUE(simulated);
  EXPECT_FALSE((*simulated)->touches_real_media());
  EXPECT_EQ((*simulated)->time_base(), EngineTime::clock);
}

TEST(EngineRegistry, AnEngineThatIsNotWhatItsRowDeclaresIsRefusedAtLoad) {
  const EngineRow table[] = {
      // Would skip the safety guard on a real target: the dangerous way round.
      {"disowns", EngineCaps::none, diskless_monotonic},     {"touches", EngineCaps::diskless, real_monotonic},
      {"monotonic", EngineCaps::clock_time, real_monotonic}, {"clock", EngineCaps::none, real_clock},
      {"honest", EngineCaps::none, real_monotonic},
  };
  auto disowns = load_engine(table, job("disowns", "/dev/nvme0n1"), {});
  ASSERT_FALSE(disowns);
  EXPECT_EQ(disowns.error().reason, ErrorReason::setup);
  EXPECT_NE(disowns.error().message.find("safety guard"), std::string::npos) << disowns.error().message;
  auto touches = load_engine(table, job("touches", "/dev/nvme0n1"), {});
  ASSERT_FALSE(touches);
  EXPECT_NE(touches.error().message.find("touches real media"), std::string::npos) << touches.error().message;
  for (const char* name : {"monotonic", "clock"}) {
    auto e = load_engine(table, job(name, "/dev/nvme0n1"), {});
    ASSERT_FALSE(e) << name;
    EXPECT_NE(e.error().message.find("clock"), std::string::npos) << e.error().message;
  }
  EXPECT_TRUE(load_engine(table, job("honest", "/dev/nvme0n1"), {}));

  // Through the runner, the refusal is the job's failure: nothing is opened.
  const RunResult r =
      JobRunner(
          job("disowns", "/dev/nvme0n1"), [&](const JobSpec& s) { return load_engine(table, s, {}); }, nullptr)
          .run();
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->message, disowns.error().message);
}

TEST(EngineRegistry, ASimJobNeedsTheDaemonsDrivesAndASimTarget) {
  // nvmonctl run-job and a PTS run on a device have no simulated drives.
  const RunResult r = JobRunner(job("sim", sim_job_target("SIM0")), make_engine_factory(), nullptr).run();
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->reason, ErrorReason::setup);
  EXPECT_NE(r.failure->message.find("sim:SIM0"), std::string::npos) << r.failure->message;
  EXPECT_NE(r.failure->message.find("simulated drives"), std::string::npos) << r.failure->message;

  ManualClock clock;
  SimDeviceSource sims({test::small_datacenter_drive("SIM0")}, clock);
  auto path = load_engine(engine_table(), job("sim", "/dev/nvme0n1"), EngineContext{&sims});
  ASSERT_FALSE(path);
  EXPECT_NE(path.error().message.find("sim:SERIAL"), std::string::npos) << path.error().message;
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
