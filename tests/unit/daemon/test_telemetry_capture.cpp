// Controller-initiated telemetry captures: when a capture is due and how
// much of the log it reads, the archive's files and size caps, a Fleet
// saving a fake controller's log end to end (and not again after a
// restart), and the simulated drive's log read through the real decoder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "collectors/nvme/telemetry_log.hpp"
#include "core/failure_state.hpp"
#include "drivelog/telemetry_archive.hpp"
#include "drivelog/telemetry_capture.hpp"
#include "sim/drive_model.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/unit/polling/fleet_harness.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using test::sample;
namespace fs = std::filesystem;

const WallTime kT0 = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1) + 12h;

TelemetryHeader header(std::uint8_t generation, bool available = true) {
  TelemetryHeader h;
  h.log_id = 0x08;
  h.area1_last_block = 2;
  h.area2_last_block = 4;
  h.area3_last_block = 8;
  h.controller_available = available ? 1 : 0;
  h.controller_generation = generation;
  return h;
}

// A log through data area 3 whose every byte tells where it is.
TelemetryLog log_of(std::uint8_t generation, std::size_t bytes = 0) {
  TelemetryLog log;
  log.header = header(generation);
  log.data_area = 3;
  log.bytes.resize(bytes != 0 ? bytes : log.header.bytes_through(3));
  for (std::size_t i = 0; i < log.bytes.size(); ++i) log.bytes[i] = static_cast<std::uint8_t>(i * 7 + generation);
  log.bytes[0] = 0x08;
  return log;
}

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(TelemetryCaptureDue, OnlyNewDataAndNotBeforeTheIntervalSinceTheLastAttempt) {
  const TelemetryMark none;
  EXPECT_TRUE(telemetry_capture_due(header(1), none, kT0, 1h));
  EXPECT_FALSE(telemetry_capture_due(header(1, false), none, kT0, 1h)) << "no data available";
  const TelemetryMark saved{1, kT0};
  EXPECT_FALSE(telemetry_capture_due(header(1), saved, kT0 + 48h, 1h)) << "that generation is saved";
  EXPECT_FALSE(telemetry_capture_due(header(2), saved, kT0 + 59min, 1h));
  EXPECT_TRUE(telemetry_capture_due(header(2), saved, kT0 + 1h, 1h));
  EXPECT_TRUE(telemetry_capture_due(header(2), saved, kT0 - 1s, 1h)) << "a clock stepped back waits for nothing";
  const TelemetryMark failed{std::nullopt, kT0};
  EXPECT_FALSE(telemetry_capture_due(header(1), failed, kT0 + 30min, 1h)) << "a failed attempt waits as long";
  EXPECT_TRUE(telemetry_capture_due(header(1), failed, kT0 + 1h, 1h));
}

TEST(TelemetryCaptureArea, TheWantedAreasOrFewerWhenTheyAreOverTheCap) {
  const TelemetryHeader h = header(1);  // areas end at 1536, 2560, 4608 bytes
  EXPECT_EQ(telemetry_capture_area(h, 3, 1 << 20), 3u);
  EXPECT_EQ(telemetry_capture_area(h, 2, 1 << 20), 2u);
  EXPECT_EQ(telemetry_capture_area(h, 3, 4607), 2u);
  EXPECT_EQ(telemetry_capture_area(h, 3, 2560), 2u);
  EXPECT_EQ(telemetry_capture_area(h, 3, 1536), 1u);
  EXPECT_EQ(telemetry_capture_area(h, 3, 1535), std::nullopt);
}

TEST(TelemetryArchiveNames, RoundTripAndRefuseWhatSaveCannotHaveWritten) {
  const std::string name = telemetry_file_name(kT0 + 5s + 300ms, 7, 3);
  EXPECT_EQ(name, "20260101T120005Z-gen007-area3.bin");
  const auto f = parse_telemetry_file_name(name);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->at, kT0 + 5s);
  EXPECT_EQ(f->generation, 7);
  for (const char* other : {"20260101T120005Z-gen256-area3.bin", "20261301T120005Z-gen007-area3.bin",
                            "20260101T120005Z-gen007-area4.bin", "20260101T120005Z-gen007-area3.bin.tmp",
                            ".20260101T120005Z-gen007-area3.bin.tmp", "notes.txt", ""}) {
    EXPECT_FALSE(parse_telemetry_file_name(other)) << other;
  }
  EXPECT_EQ(telemetry_drive_dir("S3X-NE0_123"), "S3X-NE0_123");
  EXPECT_EQ(telemetry_drive_dir(".."), "%2E%2E");
  EXPECT_EQ(telemetry_drive_dir("a/b c"), "a%2Fb%20c");
  EXPECT_EQ(telemetry_drive_dir(""), "%");
}

TEST(TelemetryArchive, SavesTheBytesAsReadAndFindsTheNewestAgain) {
  test::TempDir dir("nvmond-telemetry");
  TelemetryArchive archive(dir.path(), 1 << 20, 1 << 20);
  ASSERT_FALSE(archive.newest("SN/1").value()) << "nothing saved yet";
  EXPECT_FALSE(fs::exists(fs::path(dir.path()) / "telemetry")) << "looking creates nothing";
  const TelemetryLog log = log_of(4);
  auto saved = archive.save("SN/1", log, kT0);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_EQ(saved->path, dir.path() + "/telemetry/SN%2F1/20260101T120000Z-gen004-area3.bin");
  EXPECT_EQ(read_file(saved->path), log.bytes);
  ASSERT_TRUE(archive.save("SN/1", log_of(5), kT0 + 1h).ok());
  const auto newest = archive.newest("SN/1").value();
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->generation, 5);
  EXPECT_EQ(newest->at, kT0 + 1h);
  EXPECT_EQ(newest->bytes, log.bytes.size());
}

TEST(TelemetryArchive, TheOldestCapturesGoBeyondEachCapAndNeverTheOneJustSaved) {
  test::TempDir dir("nvmond-telemetry");
  // 10 KiB captures: a drive keeps 3, the archive 5.
  TelemetryArchive archive(dir.path(), 30 * 1024, 50 * 1024);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(archive.save("A", log_of(static_cast<std::uint8_t>(i), 10 * 1024), kT0 + i * 1h).ok());
  auto files = archive.files().value();
  ASSERT_EQ(files.size(), 3u) << "A's oldest went for its own cap";
  EXPECT_EQ(files.front().generation, 1);
  // B's captures push the archive over its total: A's oldest go first.
  ASSERT_TRUE(archive.save("B", log_of(10, 10 * 1024), kT0 + 10h).ok());
  ASSERT_TRUE(archive.save("B", log_of(11, 10 * 1024), kT0 + 11h).ok());
  auto saved = archive.save("B", log_of(12, 10 * 1024), kT0 + 12h);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(saved->removed.size(), 1u);
  files = archive.files().value();
  std::vector<std::pair<std::string, int>> left;
  for (const auto& f : files) left.emplace_back(f.drive_dir, f.generation);
  EXPECT_EQ(left, (std::vector<std::pair<std::string, int>>{{"A", 2}, {"A", 3}, {"B", 10}, {"B", 11}, {"B", 12}}));
  // A capture over a cap is refused, not saved at the others' expense.
  auto big = archive.save("B", log_of(13, 31 * 1024), kT0 + 13h);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().reason, ErrorReason::full);
  EXPECT_EQ(archive.files().value().size(), 5u);
}

TEST(TelemetryArchive, FilesItDidNotWriteAreLeftAloneAndNotCounted) {
  test::TempDir dir("nvmond-telemetry");
  TelemetryArchive archive(dir.path(), 20 * 1024, 1 << 20);
  ASSERT_TRUE(archive.save("A", log_of(1, 10 * 1024), kT0).ok());
  const fs::path notes = fs::path(dir.path()) / "telemetry" / "A" / "notes.txt";
  std::ofstream(notes) << std::string(100 * 1024, 'x');
  ASSERT_TRUE(archive.save("A", log_of(2, 10 * 1024), kT0 + 1h).ok());
  EXPECT_TRUE(fs::exists(notes));
  EXPECT_EQ(archive.files().value().size(), 2u);
}

TEST(TelemetryArchive, ASymlinkPlantedAsTheTelemetryDirectoryIsNotWrittenThrough) {
  test::TempDir dir("nvmond-telemetry");
  test::TempDir elsewhere("nvmond-elsewhere");
  fs::create_directory_symlink(elsewhere.path(), fs::path(dir.path()) / "telemetry");
  TelemetryArchive archive(dir.path(), 1 << 20, 1 << 20);
  auto saved = archive.save("A", log_of(1), kT0);
  ASSERT_FALSE(saved.ok());
  EXPECT_NE(saved.error().message.find("symlink"), std::string::npos) << saved.error().message;
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
  // The same for a drive's own directory.
  fs::remove(fs::path(dir.path()) / "telemetry");
  fs::create_directory(fs::path(dir.path()) / "telemetry");
  fs::create_directory_symlink(elsewhere.path(), fs::path(dir.path()) / "telemetry" / "A");
  EXPECT_FALSE(archive.save("A", log_of(1), kT0).ok());
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
  EXPECT_FALSE(archive.newest("A").ok());
}

// A capture that fails at every attempt (the drive's directory is a FIFO) is
// counted every time, but is news (a log line) only when it starts failing
// or fails for another reason; a save after it says it recovered.
TEST(TelemetryRecorder, AFailureThatRepeatsIsNewsOnlyWhenItStartsOrItsReasonChanges) {
  test::TempDir dir("nvmond-telemetry");
  fs::create_directory(fs::path(dir.path()) / "telemetry");
  const auto drive_dir = fs::path(dir.path()) / "telemetry" / "A";
  ASSERT_EQ(::mkfifo(drive_dir.c_str(), 0600), 0);
  TelemetryRecorder recorder(std::make_shared<TelemetryArchive>(dir.path(), 1 << 20, 1 << 20));
  DriveInfo info;
  info.serial = "A";
  std::uint8_t generation = 0;
  auto poll = [&](std::optional<Error> read_error = std::nullopt) {
    auto p = std::make_shared<TelemetryPoll>();
    p->header = header(++generation);
    if (read_error) {
      p->capture_error = read_error;
    } else {
      p->capture = log_of(generation);
    }
    HealthSnapshot snap;
    snap.taken = kT0 + generation * 1min;
    snap.telemetry = p;
    return recorder.update(info, snap);
  };
  using Change = FailureState::Change;
  EXPECT_EQ(poll().failure_change, Change::started);
  for (int i = 0; i < 5; ++i) {
    const auto u = poll();
    ASSERT_TRUE(u.failure);
    EXPECT_EQ(u.failure_change, Change::none) << "attempt " << i;
  }
  EXPECT_EQ(poll(Error{ErrorReason::timeout, "read timed out"}).failure_change, Change::changed);
  EXPECT_EQ(recorder.failed(), 7u);
  fs::remove(drive_dir);
  const auto saved = poll();
  EXPECT_FALSE(saved.failure);
  EXPECT_TRUE(saved.recovered);
  EXPECT_FALSE(poll().recovered);
  ASSERT_EQ(::mkfifo((fs::path(dir.path()) / "telemetry" / "B").c_str(), 0600), 0);
  info.serial = "B";  // another drive at the path: its own state
  EXPECT_EQ(poll().failure_change, Change::started);
}

TEST(FailureState, StartedChangedAndRecoveredAreNewsAndTheSameFailureAgainIsNot) {
  FailureState s;
  EXPECT_FALSE(s.succeeded());
  EXPECT_EQ(s.failed(ErrorReason::full), FailureState::Change::started);
  EXPECT_EQ(s.failed(ErrorReason::full), FailureState::Change::none);
  EXPECT_EQ(s.failed(ErrorReason::io), FailureState::Change::changed);
  EXPECT_EQ(s.failing(), ErrorReason::io);
  EXPECT_TRUE(s.succeeded());
  EXPECT_FALSE(s.succeeded());
  EXPECT_EQ(s.failed(ErrorReason::io), FailureState::Change::started);
}

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

// The simulated drive writes its header bytes itself: the real decoder must
// read back the header it reports.
TEST(SimTelemetry, TheDrivesBytesDecodeToItsHeaderAndANewCaptureEachInterval) {
  SimDriveSpec spec = sim_profile("generic");
  spec.name = "tel";
  spec.serial = "SIM-TEL";
  spec.telemetry_interval = 10min;
  DriveModel model(spec, kT0);
  EXPECT_FALSE(model.telemetry_header().data_available());
  model.advance_to(kT0 + 25min);
  const TelemetryHeader h = model.telemetry_header();
  EXPECT_TRUE(h.data_available());
  EXPECT_EQ(h.controller_generation, 2);
  for (unsigned area = 1; area <= 3; ++area) {
    const TelemetryLog log = model.telemetry_log(area);
    EXPECT_EQ(log.bytes.size(), (kSimTelemetryAreaLastBlock[area - 1] + 1u) * 512u);
    auto decoded = decode_telemetry_header(log.bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(*decoded, h);
  }
  const TelemetryLog log = model.telemetry_log(3);
  const std::string reason(log.bytes.begin() + 384, log.bytes.begin() + 384 + 21);
  EXPECT_EQ(reason, "sim SIM-TEL capture 2");
  const std::string block(log.bytes.begin() + 512, log.bytes.begin() + 512 + 34);
  EXPECT_EQ(block, "SIMTELEMETRY SIM-TEL gen 2 block 1");
  spec.telemetry_interval = Duration::zero();
  DriveModel quiet(spec, kT0);
  quiet.advance_to(kT0 + 24h);
  EXPECT_FALSE(quiet.telemetry_header().data_available());
  EXPECT_EQ(quiet.telemetry_header().controller_generation, 0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
