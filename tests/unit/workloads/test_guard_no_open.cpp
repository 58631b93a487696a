// A target the guard refuses is judged on an O_PATH descriptor and never
// opened: opening a tty, /dev/kmsg, a watchdog or a tape has effects of its
// own. Watched with inotify on private device nodes (same device numbers as
// /dev/ptmx, /dev/kmsg, /dev/null and a loop device, made with mknod in a
// temporary directory, so no other process's opens are seen): IN_OPEN fires
// for every open except an O_PATH one. Before, the guard opened each of them
// O_RDWR|O_EXCL (writes) or O_RDONLY (reads) before refusing it.
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;

struct Node {
  std::string path;
  std::string like;  // the device it has the numbers of
};

class GuardNoOpen : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
    scratch_ = root_.path() + "/scratch";
    fs::create_directory(scratch_);
    inotify_ = UniqueFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    ASSERT_TRUE(inotify_.valid());
    // Outside allow_dirs (the device path route) and inside (a device node
    // in the allowed directory is still the device).
    for (const std::string& dir : {root_.path(), scratch_}) {
      for (const char* dev : {"/dev/ptmx", "/dev/kmsg", "/dev/null", "/dev/loop0"}) {
        struct stat st {};
        if (::stat(dev, &st) != 0) continue;
        const std::string node = dir + "/" + fs::path(dev).filename().string();
        ASSERT_EQ(::mknod(node.c_str(), (st.st_mode & S_IFMT) | 0600, st.st_rdev), 0) << node;
        ASSERT_GE(::inotify_add_watch(inotify_.get(), node.c_str(), IN_OPEN), 0) << node;
        nodes_.push_back({node, dev});
      }
    }
    ASSERT_GE(nodes_.size(), 6u);
  }

  // The nodes opened since the last call (IN_OPEN events, by watch).
  int opens() const {
    alignas(inotify_event) char buf[4096];
    int n = 0;
    for (;;) {
      const ssize_t got = ::read(inotify_.get(), buf, sizeof buf);
      if (got <= 0) return n;
      for (ssize_t off = 0; off < got;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
        if ((e->mask & IN_OPEN) != 0) ++n;
        off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
  }

  SafetyGuard guard() const { return SafetyGuard(SafetyConfig{{}, {scratch_}}); }

  test::TempDir root_;
  std::string scratch_;
  UniqueFd inotify_;
  std::vector<Node> nodes_;
};

TEST_F(GuardNoOpen, ARefusedWriteTargetIsNeverOpened) {
  for (const auto& n : nodes_) {
    auto r = guard().open_target(n.path, TargetAccess{true, true, 0});
    ASSERT_FALSE(r) << n.path << " (like " << n.like << ") was approved for writing";
    EXPECT_EQ(opens(), 0) << n.path << " (like " << n.like << ") was opened before its refusal: " << r.error().reason
                          << ": " << r.error().message;
  }
}

TEST_F(GuardNoOpen, ARefusedReadTargetIsNeverOpened) {
  for (const auto& n : nodes_) {
    if (n.like == "/dev/loop0") continue;  // a block device may be read
    auto r = guard().open_target(n.path, TargetAccess{false, true, 0});
    ASSERT_FALSE(r) << n.path << " (like " << n.like << ") was approved for reading";
    EXPECT_EQ(r.error().reason, ErrorReason::would_block);
    EXPECT_EQ(opens(), 0) << n.path << " (like " << n.like << ") was opened before its refusal";
  }
}

TEST_F(GuardNoOpen, TheDryRunOfAWriteNeverOpensARefusedTarget) {
  for (const auto& n : nodes_) {
    EXPECT_TRUE(guard().check_write_target(n.path)) << n.path << " was approved";
    EXPECT_EQ(opens(), 0) << n.path << " (like " << n.like << ") was opened by the dry run";
  }
}

// The watch does see opens: an approved regular file is opened for I/O.
TEST_F(GuardNoOpen, AnApprovedTargetIsOpenedOnce) {
  const std::string file = scratch_ + "/target.img";
  auto created = guard().open_target(file, TargetAccess{true, false, 1 << 20});
  ASSERT_TRUE(created) << created.error().message;
  ASSERT_GE(::inotify_add_watch(inotify_.get(), file.c_str(), IN_OPEN), 0);
  auto opened = guard().open_target(file, TargetAccess{true, false, 1 << 20});
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opens(), 1);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
