// open_beneath, both ways (openat2 and the O_NOFOLLOW walk kept for kernels
// without it), on a real directory tree.
#include "workloads/checked_open.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;

class OpenBeneath : public ::testing::TestWithParam<BeneathMethod> {
 protected:
  void SetUp() override {
    dir_ = root_.path() + "/allowed";
    fs::create_directories(dir_ + "/sub");
    std::ofstream(dir_ + "/sub/file") << "x";
    std::ofstream(root_.path() + "/outside") << "y";
    fs::create_symlink(root_.path() + "/outside", dir_ + "/link");
    fs::create_symlink(root_.path() + "/missing", dir_ + "/dangling");
    fs::create_directory_symlink(root_.path(), dir_ + "/up");
    dirfd_ = UniqueFd(::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(dirfd_.valid());
  }
  int open(const std::string& rel, int flags = O_RDONLY) {
    UniqueFd fd(open_beneath(dirfd_.get(), rel, flags, 0600, GetParam()));
    return fd.valid() ? 0 : fd.get();
  }

  test::TempDir root_;
  std::string dir_;
  UniqueFd dirfd_;
};

TEST_P(OpenBeneath, OpensWhatLiesBelow) {
  EXPECT_EQ(open("sub/file"), 0);
  EXPECT_EQ(open("sub/new", O_RDWR | O_CREAT | O_EXCL), 0);
  EXPECT_TRUE(fs::exists(dir_ + "/sub/new"));
  EXPECT_EQ(open("sub/none"), -ENOENT);
}

TEST_P(OpenBeneath, FollowsNoSymlinkAnywhere) {
  EXPECT_EQ(open("link"), -ELOOP);
  EXPECT_EQ(open("dangling", O_RDWR | O_CREAT), -ELOOP);
  EXPECT_FALSE(fs::exists(root_.path() + "/missing"));
  EXPECT_EQ(open("up/outside"), -ELOOP);
  EXPECT_EQ(open("link", O_PATH), -ELOOP);
}

TEST_P(OpenBeneath, NeverClimbsOut) {
  EXPECT_EQ(open("../outside"), -EXDEV);
  EXPECT_EQ(open("/etc/passwd"), -EXDEV);
  EXPECT_EQ(open(""), -EXDEV);
}

TEST_P(OpenBeneath, DoesNotCrossIntoAnotherFilesystem) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting needs root";
  fs::create_directory(dir_ + "/mnt");
  ASSERT_EQ(::mount("nvmond-test", (dir_ + "/mnt").c_str(), "tmpfs", 0, "size=1m"), 0) << std::strerror(errno);
  std::ofstream(dir_ + "/mnt/f") << "z";
  EXPECT_EQ(open("mnt/f"), -EXDEV);
  ::umount2((dir_ + "/mnt").c_str(), MNT_DETACH);
}

INSTANTIATE_TEST_SUITE_P(BothMethods, OpenBeneath,
                         ::testing::Values(BeneathMethod::openat2, BeneathMethod::component_walk), [](const auto& p) {
                           return p.param == BeneathMethod::openat2 ? std::string("openat2")
                                                                    : std::string("component_walk");
                         });

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
