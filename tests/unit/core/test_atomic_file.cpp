// Whole-file replacement: either durability leaves the new content and no
// temporary behind, and a failure names the path and the step.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {

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

}  // namespace
}  // namespace nvmond
