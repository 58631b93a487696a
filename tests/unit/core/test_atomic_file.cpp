// Whole-file replacement: either durability leaves the new content and no
// temporary behind, and a failure names the path and the step.
#include <gtest/gtest.h>

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
  // A directory where the temporary would go: its open fails.
  std::filesystem::create_directory(std::filesystem::path(dir.path()) / ".state.json.tmp");
  auto err = write_file_atomically(path.string(), "lost", Durability::process_crash);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->reason, ErrorReason::io);
  EXPECT_NE(err->message.find(".state.json.tmp"), std::string::npos) << err->message;
  EXPECT_NE(err->message.find("open"), std::string::npos) << err->message;
  EXPECT_EQ(read(path), "kept");
}

}  // namespace
}  // namespace nvmond
