// Controller-initiated telemetry captures: when a capture is due and how
// much of the log it reads, the archive's files and size caps, and the
// recorder's news of a capture that keeps failing. A Fleet saving a
// fake controller's log end to end is tests/unit/polling/test_fleet_telemetry.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/failure_state.hpp"
#include "drivelog/telemetry_archive.hpp"
#include "drivelog/telemetry_capture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/drivelog/telemetry_logs.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using namespace test::telemetry_logs;
namespace fs = std::filesystem;

const WallTime kT0 = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1) + 12h;

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
  for (const char* other :
       {"20260101T120005Z-gen256-area3.bin", "20261301T120005Z-gen007-area3.bin", "20260101T120005Z-gen007-area4.bin",
        "20260101T120005Z-gen007-area3.bin.tmp", ".20260101T120005Z-gen007-area3.bin.tmp", "notes.txt", ""}) {
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
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(archive.save("A", log_of(static_cast<std::uint8_t>(i), 10 * 1024), kT0 + i * 1h).ok());
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

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
