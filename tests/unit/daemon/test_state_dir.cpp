// The state directory on real files: one daemon per directory (the lock), and
// a corrupt history set aside, byte for byte, for a fresh one.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config_reader.hpp"
#include "daemon/state_lock.hpp"
#include "store/sqlite_backend.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using test::TempDir;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

PollRecord one_sample(const std::string& serial, WallTime t) {
  PollRecord record;
  record.drive = {serial, "Model"};
  SampleRecord sample;
  sample.time = t;
  record.samples.push_back(sample);
  return record;
}

TEST(StateDirLock, ASecondHolderIsRefusedWithTheDirectoryAndThePid) {
  TempDir dir;
  StateDirLock first(dir.path());
  ASSERT_TRUE(first.held());
  try {
    StateDirLock second(dir.path());
    FAIL() << "a second lock on the same directory was granted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("state_dir " + dir.path() + " is in use by another nvmond"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(pid " + std::to_string(getpid()) + ")"), std::string::npos) << msg;
  }
}

// The lock is on the directory: deleting (or replacing) nvmond.lock under a
// running daemon used to let a second one in, which resumed the first one's
// live runs and marked them failed.
TEST(StateDirLock, DeletingTheLockFileDoesNotLetASecondHolderIn) {
  TempDir dir;
  StateDirLock first(dir.path());
  ASSERT_TRUE(first.held());
  const auto pid_file = std::filesystem::path(dir.path()) / StateDirLock::kFileName;
  ASSERT_TRUE(std::filesystem::remove(pid_file));
  try {
    StateDirLock second(dir.path());
    FAIL() << "a second lock was granted once " << pid_file << " was deleted";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("state_dir " + dir.path() + " is in use by another nvmond"), std::string::npos) << msg;
    // Named by the kernel's record of the lock, the pid file being gone.
    EXPECT_NE(msg.find("(pid " + std::to_string(getpid()) + ")"), std::string::npos) << msg;
  }
}

TEST(StateDirLock, IsFreeAgainOnceReleased) {
  TempDir dir;
  { StateDirLock first(dir.path()); }
  StateDirLock again(dir.path());
  EXPECT_TRUE(again.held());
}

TEST(SqliteBackend, ACorruptDatabaseIsSetAsideUnchangedAndAFreshOneServes) {
  TempDir dir;
  const auto db = std::filesystem::path(dir.path()) / SqliteStore::kFileName;
  const std::string garbage(8192, 'x');
  std::ofstream(db, std::ios::binary) << garbage;

  ManualClock clock;
  std::vector<std::string> heard;
  ResilientStore store(std::make_unique<SqliteBackend>(dir.path()), clock, StoreRetry{},
                       [&](ErrorReason r) { heard.push_back(std::string(to_text(r))); });
  EXPECT_EQ(heard, std::vector<std::string>{"corrupt"});
  EXPECT_FALSE(store.failing());

  std::vector<std::filesystem::path> aside;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().filename().string().rfind("nvmond.db.corrupt-", 0) == 0) aside.push_back(e.path());
  }
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(read_file(aside[0]), garbage);

  const PollRecord record = one_sample("SN-FRESH", clock.wall());
  ASSERT_TRUE(store.commit(record));
  auto last = store.last_sample(record.drive);
  ASSERT_TRUE(last && *last);
}

TEST(SqliteBackend, ADatabaseLockedByAnotherProgramIsReportedAsLockedAndWritingResumesAfter) {
  TempDir dir;
  ManualClock clock;
  SqliteOptions quick;
  quick.busy_timeout = std::chrono::milliseconds(20);
  ResilientStore store(std::make_unique<SqliteBackend>(dir.path(), quick), clock);
  PollRecord record = one_sample("SN-LOCK", clock.wall());
  ASSERT_TRUE(store.commit(record));

  // Another program (an sqlite3 shell, a backup) holds the write lock.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((std::filesystem::path(dir.path()) / SqliteStore::kFileName).c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  record.samples[0].time += std::chrono::seconds(10);
  auto blocked = store.commit(record);
  ASSERT_FALSE(blocked);
  EXPECT_EQ(blocked.error().reason, ErrorReason::locked) << blocked.error().message;
  EXPECT_EQ(store.failing(), ErrorReason::locked);

  ASSERT_EQ(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  clock.advance(std::chrono::seconds(1));
  auto resumed = store.commit(record);
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_FALSE(store.failing());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
