// Whole-file replacement: either durability leaves the new content and no
// temporary behind, and a failure names the path and the step.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <chrono>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/unique_fd.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteFileAtomically, ReplacesTheContentAndLeavesNoTemporaryWhateverTheDurability) {
  for (const auto durability : {Durability::power_loss, Durability::process_crash}) {
    test::TempDir dir;
    const auto path = std::filesystem::path(dir.path()) / "state.json";
    ASSERT_FALSE(write_file_atomically(path.string(), "old, and longer than the new", durability));
    ASSERT_FALSE(write_file_atomically(path.string(), "new", durability));
    EXPECT_EQ(read(path), "new");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
  }
}

TEST(WriteFileAtomically, AFailureNamesThePathAndKeepsTheOldContent) {
  test::TempDir dir;
  const auto path = std::filesystem::path(dir.path()) / "state.json";
  ASSERT_FALSE(write_file_atomically(path.string(), "kept", Durability::process_crash));
  // A directory where the temporary would go: removing it fails.
  std::filesystem::create_directory(std::filesystem::path(dir.path()) / ".state.json.tmp");
  auto err = write_file_atomically(path.string(), "lost", Durability::process_crash);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->reason, ErrorReason::io);
  EXPECT_NE(err->message.find(".state.json.tmp"), std::string::npos) << err->message;
  EXPECT_NE(err->message.find("unlink"), std::string::npos) << err->message;
  EXPECT_EQ(read(path), "kept");
}

// A root daemon's state directory: a symlink planted under the temporary's
// name or the target's must not redirect the write to the file it points to.
TEST(WriteFileAtomically, SymlinksPlantedAtTheTemporaryOrTheTargetAreReplacedNeverWrittenThrough) {
  for (const auto durability : {Durability::power_loss, Durability::process_crash}) {
    test::TempDir dir;
    const std::filesystem::path d(dir.path());
    const auto victim = d / "victim";
    std::ofstream(victim) << "victim";
    std::filesystem::create_symlink(victim, d / ".state.json.tmp");
    std::filesystem::create_symlink(victim, d / "state.json");
    ASSERT_FALSE(write_file_atomically((d / "state.json").string(), "new", durability));
    EXPECT_EQ(read(victim), "victim");
    EXPECT_FALSE(std::filesystem::is_symlink(d / "state.json"));
    EXPECT_EQ(read(d / "state.json"), "new");
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(d / ".state.json.tmp")));
  }
}

// A write that fails part way (a full disk, a quota, a file size limit)
// removes its temporary: a state directory that fails write after write
// must not fill up with them. RLIMIT_FSIZE makes the write itself fail
// (EFBIG), as ENOSPC would on a full file system.
TEST(WriteFileAtomically, AWriteThatFailsPartWayRemovesItsTemporaryAndKeepsTheOldContent) {
  test::TempDir dir;
  const auto path = std::filesystem::path(dir.path()) / "state.json";
  ASSERT_FALSE(write_file_atomically(path.string(), "kept", Durability::process_crash));
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 1000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto err = write_file_atomically(path.string(), std::string(5000, 'x'), Durability::power_loss);
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("write"), std::string::npos) << err->message;
  EXPECT_EQ(read(path), "kept");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1)
      << "a temporary was left behind";
}

// At start the daemon removes what writes cut short by a kill left: only
// regular files named as write_file_atomically names its temporaries, and
// only those older than the limit (a write in progress keeps its own).
TEST(RemoveStaleTemporaries, OnlyOldRegularFilesNamedAsTemporariesGo) {
  test::TempDir dir;
  const std::filesystem::path d(dir.path());
  const auto old_time = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  for (const char* name : {".a.tmp", ".sim-X.state.tmp", "b.tmp", ".c.tmpx", "kept"}) {
    std::ofstream(d / name) << "x";
    std::filesystem::last_write_time(d / name, old_time);
  }
  std::ofstream(d / ".fresh.tmp") << "a write in progress";
  std::filesystem::create_directory(d / ".dir.tmp");
  std::filesystem::create_symlink(d / "kept", d / ".link.tmp");
  UniqueFd fd(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  auto removed =
      remove_stale_temporaries(fd.get(), "shown", std::chrono::system_clock::now() - std::chrono::minutes(1));
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (std::vector<std::string>{"shown/.a.tmp", "shown/.sim-X.state.tmp"}));
  for (const char* name : {"b.tmp", ".c.tmpx", "kept", ".fresh.tmp", ".dir.tmp", ".link.tmp"}) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::symlink_status(d / name))) << name;
  }
}

TEST(ReadWholeFile, ASymlinkIsNotFollowedAndAFifoDoesNotBlock) {
  test::TempDir dir;
  const std::filesystem::path d(dir.path());
  std::ofstream(d / "real") << "secret";
  std::filesystem::create_symlink(d / "real", d / "link");
  auto link = read_whole_file((d / "link").string());
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().reason, ErrorReason::io);
  EXPECT_NE(link.error().message.find("symbolic link"), std::string::npos) << link.error().message;
  // Without O_NONBLOCK the open of a FIFO with no writer never returns.
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  auto fifo = read_whole_file((d / "fifo").string());
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos) << fifo.error().message;
  EXPECT_EQ(read_whole_file((d / "absent").string()).error().reason, ErrorReason::absent);
  EXPECT_EQ(*read_whole_file((d / "real").string()), "secret");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
