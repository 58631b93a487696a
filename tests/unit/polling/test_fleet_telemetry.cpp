// Controller-initiated telemetry captures through a Fleet: a fake
// controller's log saved end to end, again at once for a new OCP panic, not
// again after a restart, a failed read retried after the interval, and
// nothing read from a drive without the log or with capture off.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "drivelog/telemetry_archive.hpp"
#include "polling/fleet.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/unit/drivelog/telemetry_logs.hpp"
#include "tests/unit/polling/fleet_harness.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using namespace test::telemetry_logs;
using test::sample;
namespace fs = std::filesystem;

const WallTime kT0 = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1) + 12h;

// A Fleet polling one FakeController every 10 s on a ManualClock.
class OneController final : public DeviceSource {
 public:
  explicit OneController(std::shared_ptr<test::ControllerScript> script) : script_(std::move(script)) {}
  std::vector<DeviceHandle> scan() override {
    std::vector<DeviceHandle> out;
    if (!scanned_) out.push_back({"fake:nvme7", std::make_unique<test::FakeController>(script_)});
    scanned_ = true;
    return out;
  }

 private:
  std::shared_ptr<test::ControllerScript> script_;
  bool scanned_ = false;
};

struct CaptureFixture : test::FleetHarness {
  std::shared_ptr<test::ControllerScript> script = std::make_shared<test::ControllerScript>();
  DaemonConfig config;
  std::unique_ptr<Fleet> fleet;

  CaptureFixture() : FleetHarness("nvmond-telemetry-fleet") {
    config.state_dir = dir.path();
    config.collection.poll_interval = 10s;
    config.collection.rescan_interval = 24h;
    script->identity.serial = "SN-TEL";
    script->identity.model = "FAKE";
    clock.set(kT0);
  }
  void start() {
    std::vector<std::unique_ptr<DeviceSource>> sources;
    sources.push_back(std::make_unique<OneController>(script));
    fleet = std::make_unique<Fleet>(io, config, clock, out, store, std::move(sources));
    fleet->start();
    run_until([&] { return polls() >= 1; });
  }
  double polls() { return sample(out.Collect(), "nvmond_collections_total", {{"serial", "SN-TEL"}}); }
  double captures(const char* result) {
    return sample(out.Collect(), "nvmond_telemetry_captures_total", {{"serial", "SN-TEL"}, {"result", result}});
  }
  void poll(Duration d = 10s) {
    const double before = polls();
    clock.advance(d);
    run_until([&] { return polls() > before; });
  }
  std::vector<TelemetryFile> files() { return TelemetryArchive(dir.path(), 1 << 30, 1 << 30).files().value(); }
};

TEST(TelemetryFleet, ANewGenerationIsSavedOnceAndTheNextWaitsForTheInterval) {
  CaptureFixture f;
  f.script->telemetry = log_of(1);
  f.start();  // the first poll reads the header and looks at the archive: nothing read yet
  EXPECT_TRUE(f.script->telemetry_log_reads.empty());
  EXPECT_EQ(f.captures("saved"), 0);
  f.poll();
  ASSERT_EQ(f.script->telemetry_log_reads, std::vector<unsigned>{3});
  EXPECT_EQ(f.captures("saved"), 1);
  EXPECT_EQ(f.captures("failed"), 0);
  auto files = f.files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].generation, 1);
  EXPECT_EQ(read_file(fs::path(f.dir.path()) / "telemetry" / "SN-TEL" / files[0].name), log_of(1).bytes);
  for (int i = 0; i < 3; ++i) f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 1u) << "the same generation is not read again";

  f.script->telemetry = log_of(2);
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 1u) << "within the hour of the last capture";
  f.poll(1h);
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 2u);
  EXPECT_EQ(f.captures("saved"), 2);
  EXPECT_EQ(f.files().size(), 2u);
  EXPECT_GE(f.script->telemetry_header_reads, 7);
}

TEST(TelemetryFleet, ANewOcpPanicSavesTheDrivesTelemetryWithoutWaitingForTheInterval) {
  CaptureFixture f;
  f.script->telemetry = log_of(1);
  f.script->ocp_recovery = OcpErrorRecoveryLog{};
  f.start();
  f.poll();
  ASSERT_EQ(f.captures("saved"), 1);
  f.script->telemetry = log_of(2);
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 1u) << "within the interval, and no panic";
  f.script->ocp_recovery->panic_id = 0xBAD;
  f.script->ocp_recovery->panic_count = 1;
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 2u) << "the panic's telemetry is saved at once";
  EXPECT_EQ(f.captures("saved"), 2);
  // The same panic standing is no reason, nor is another one within the
  // interval of the last panic's capture (a drive panicking in a loop).
  f.script->telemetry = log_of(3);
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 2u);
  f.script->ocp_recovery->panic_count = 2;
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 2u);
  f.poll(1h);
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 3u);
  // A panic with no new telemetry reads nothing (it is logged); with new
  // telemetry an interval after the last panic capture, it is read at once.
  f.script->ocp_recovery->panic_id = 0xBAD2;
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 3u);
  f.script->telemetry = log_of(4);
  f.script->ocp_recovery->panic_id = 0xBAD3;
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 4u);
  EXPECT_EQ(f.captures("saved"), 4);
}

TEST(TelemetryFleet, ARestartDoesNotSaveAGenerationItsArchiveHolds) {
  {
    CaptureFixture f;
    f.script->telemetry = log_of(9);
    f.start();
    f.poll();
    ASSERT_EQ(f.captures("saved"), 1);
    // The second run on the same state directory, an hour later.
    f.fleet.reset();
    f.clock.advance(1h);
    f.start();
    f.poll();
    f.poll(2h);
    EXPECT_EQ(f.script->telemetry_log_reads.size(), 1u);
    EXPECT_EQ(f.captures("saved"), 0);
    EXPECT_EQ(f.files().size(), 1u);
  }
}

TEST(TelemetryFleet, AFailedReadIsCountedAndRetriedOnlyAfterTheInterval) {
  CaptureFixture f;
  f.script->telemetry = log_of(3);
  f.script->telemetry_log_error = Error{ErrorReason::busy, "fake:nvme7: get-log telemetry (08h): generation changed"};
  f.start();
  f.poll();
  EXPECT_EQ(f.captures("failed"), 1);
  f.poll();
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 1u);
  f.script->telemetry_log_error.reset();
  f.poll(1h);
  EXPECT_EQ(f.script->telemetry_log_reads.size(), 2u);
  EXPECT_EQ(f.captures("saved"), 1);
  EXPECT_EQ(f.captures("failed"), 1);
}

TEST(TelemetryFleet, ADriveWithoutTheLogIsAskedOnceAndHasNoSeries) {
  CaptureFixture f;
  f.start();
  for (int i = 0; i < 3; ++i) f.poll();
  EXPECT_EQ(f.script->telemetry_header_reads, 1);
  EXPECT_TRUE(std::isnan(f.captures("saved")));
  EXPECT_FALSE(fs::exists(fs::path(f.dir.path()) / "telemetry"));
}

TEST(TelemetryFleet, CaptureOffNeverReadsTheLog) {
  CaptureFixture f;
  f.config.telemetry.capture = false;
  f.script->telemetry = log_of(1);
  f.start();
  f.poll();
  EXPECT_EQ(f.script->telemetry_header_reads, 0);
  EXPECT_TRUE(std::isnan(f.captures("saved")));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
