// The state directory on real files: one daemon per directory (the lock), and
// a corrupt history set aside, byte for byte, for a fresh one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config_reader.hpp"
#include "daemon/state_lock.hpp"
#include "daemon/store/sqlite_backend.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {

using test::TempDir;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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
                       [&](const std::string& r) { heard.push_back(r); });
  EXPECT_EQ(heard, std::vector<std::string>{"corrupt"});
  EXPECT_FALSE(store.failing());

  std::vector<std::filesystem::path> aside;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().filename().string().rfind("nvmond.db.corrupt-", 0) == 0) aside.push_back(e.path());
  }
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(read_file(aside[0]), garbage);

  PollRecord record;
  record.drive = {"SN-FRESH", "Model"};
  SampleRecord sample;
  sample.time = clock.wall();
  record.samples.push_back(sample);
  ASSERT_TRUE(store.commit(record));
  auto last = store.last_sample(record.drive);
  ASSERT_TRUE(last && *last);
}

}  // namespace
}  // namespace nvmond
