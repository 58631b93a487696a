// Real I/O through io_uring on a temp file and on a loop device.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/jobs.hpp"
#include "tests/support/temp_dir.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "workloads/runner.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;
using test::TempDir;

JobSpec file_job(const std::string& path) {
  JobSpec j;
  j.name = "t";
  j.target = path;
  j.file_size = 8 << 20;
  j.block_sizes = {{4096, 1}};
  j.queue_depth = 8;
  return j;
}

bool io_uring_works(const std::string& dir) {
  JobSpec j = file_job(dir + "/probe");
  j.direct = false;
  j.bytes = 4096;
  j.read_pct = 0;
  SafetyGuard guard(SafetyConfig{{}, {dir}});
  RunResult r = JobRunner(j, test::uring_engines(), &guard).run();
  return !r.failure && r.op[1].ops == 1;
}

TEST(RunnerIo, RandomMixedJobOnAFileMovesExactlyItsBytes) {
  TempDir dir;
  if (!io_uring_works(dir.path())) GTEST_SKIP() << "io_uring is not usable here";
  JobSpec j = file_job(dir.path() + "/target");
  j.read_pct = 50;
  j.threads = 2;
  j.bytes = 4 << 20;
  j.block_sizes = {{4096, 3}, {16384, 1}};
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});
  RunResult r = JobRunner(j, test::uring_engines(), &guard).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  EXPECT_EQ(r.total_errors(), 0u);
  const std::uint64_t moved = r.op[0].bytes + r.op[1].bytes;
  // Each thread stops issuing once its share is reached; the last I/O may overshoot by a block.
  EXPECT_GE(moved, 4u << 20);
  EXPECT_LT(moved, (4u << 20) + 2 * 16384);
  EXPECT_GT(r.op[0].ops, 0u);
  EXPECT_GT(r.op[1].ops, 0u);
  EXPECT_EQ(r.op[0].latency.count(), r.op[0].ops);
  std::uint64_t timeline_ops = 0;
  for (const auto& s : r.timeline) timeline_ops += s.op[0].ops + s.op[1].ops;
  EXPECT_EQ(timeline_ops, r.total_ops());
}

TEST(RunnerIo, SequentialWritePassCoversTheRangeOnce) {
  TempDir dir;
  if (!io_uring_works(dir.path())) GTEST_SKIP() << "io_uring is not usable here";
  JobSpec j = file_job(dir.path() + "/seq");
  j.pattern = AccessPattern::sequential;
  j.read_pct = 0;
  j.offset = 1 << 20;
  j.size = 2 << 20;
  j.block_sizes = {{65536, 1}};
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});
  RunResult r = JobRunner(j, test::uring_engines(), &guard).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  EXPECT_EQ(r.op[1].bytes, 2u << 20);
  EXPECT_EQ(r.op[1].ops, 32u);
  EXPECT_EQ(r.op[0].ops, 0u);
}

TEST(RunnerIo, RefusesAFileOutsideTheAllowedDirectories) {
  TempDir dir, other;
  JobSpec j = file_job(other.path() + "/x");
  j.read_pct = 0;
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});
  RunResult r = JobRunner(j, test::uring_engines(), &guard).run();
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->reason, ErrorReason::outside_allowed_dirs);
  EXPECT_FALSE(fs::exists(other.path() + "/x"));
}

void flip_bytes(const std::string& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  std::array<char, 16> b{};
  f.read(b.data(), b.size());
  for (auto& c : b) c = static_cast<char>(~c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(b.data(), b.size());
}

TEST(RunnerIo, WriteVerifyPassesCleanAndCatchesACorruptedBlock) {
  TempDir dir;
  if (!io_uring_works(dir.path())) GTEST_SKIP() << "io_uring is not usable here";
  const std::string path = dir.path() + "/verify";
  JobSpec j = file_job(path);
  j.read_pct = 0;
  j.verify = true;
  j.size = 1 << 20;
  j.threads = 2;
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});

  // Random writes of one range's worth touch about 63 % of the blocks; only
  // those are read back.
  RunResult clean = JobRunner(j, test::uring_engines(), &guard).run();
  ASSERT_FALSE(clean.failure) << clean.failure->message;
  EXPECT_GT(clean.verified_blocks, 100u);
  EXPECT_LT(clean.verified_blocks, 256u);
  EXPECT_EQ(clean.op[0].ops, clean.verified_blocks);
  EXPECT_EQ(clean.verify_failures, 0u);

  j.pattern = AccessPattern::sequential;  // every block written once

  const std::uint64_t bad = 37 * 4096 + 1000;  // inside block 37
  RunHooks hooks;
  hooks.after_write_pass = [&] { flip_bytes(path, bad); };
  RunResult r = JobRunner(j, test::uring_engines(), &guard, hooks).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  EXPECT_EQ(r.verified_blocks, 256u);
  EXPECT_EQ(r.verify_failures, 1u);
  ASSERT_EQ(r.error_samples.size(), 1u);
  EXPECT_EQ(r.error_samples[0].offset, 37u * 4096);
  EXPECT_EQ(r.op[0].errors, 1u);
}

// Loop device over a file in the allowed directory (root only).
class LoopDevice {
 public:
  explicit LoopDevice(const std::string& backing) {
    FILE* p = ::popen(("losetup -f --show " + backing + " 2>/dev/null").c_str(), "r");
    if (p == nullptr) return;
    char buf[256] = {};
    if (std::fgets(buf, sizeof buf, p) != nullptr) dev_ = buf;
    ::pclose(p);
    while (!dev_.empty() && (dev_.back() == '\n')) dev_.pop_back();
  }
  ~LoopDevice() {
    if (!dev_.empty()) (void)!std::system(("losetup -d " + dev_).c_str());
  }
  const std::string& path() const { return dev_; }

 private:
  std::string dev_;
};

// A 16 MiB loop device over a file in an allowed directory; skips where
// that cannot be had.
class RunnerIoLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root for losetup";
    if (!io_uring_works(dir.path())) GTEST_SKIP() << "io_uring is not usable here";
    const std::string backing = dir.path() + "/loop.img";
    ASSERT_FALSE(prepare_file_target(backing, 16 << 20));
    loop = std::make_unique<LoopDevice>(backing);
    if (loop->path().empty()) GTEST_SKIP() << "losetup is not available";
  }
  TempDir dir;
  std::unique_ptr<LoopDevice> loop;
};

TEST_F(RunnerIoLoop, LoopDeviceOverAnAllowedFile) {
  JobSpec j;
  j.name = "loop";
  j.target = loop->path();
  j.read_pct = 0;
  j.verify = true;
  j.queue_depth = 16;
  j.threads = 2;
  j.size = 4 << 20;
  j.pattern = AccessPattern::sequential;
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});
  RunResult r = JobRunner(j, test::uring_engines(), &guard).run();
  ASSERT_FALSE(r.failure) << r.failure->message;
  EXPECT_EQ(r.op[1].bytes, 4u << 20);
  EXPECT_EQ(r.op[0].bytes, 4u << 20);  // the read-back pass
  EXPECT_EQ(r.verify_failures, 0u);

  SafetyGuard strict(SafetyConfig{{}, {"/nonexistent-nvmond"}});
  RunResult refused = JobRunner(j, test::uring_engines(), &strict).run();
  ASSERT_TRUE(refused.failure);
  EXPECT_EQ(refused.failure->reason, ErrorReason::outside_allowed_dirs);
}

// The engine holds the target through a registered file; the kernel drops
// that with the ring, asynchronously, unless the engine unregisters it. Jobs
// and PTS rounds that follow each other on one drive must not find it busy.
TEST_F(RunnerIoLoop, ALoopDeviceIsFreeForTheNextJobTheMomentAJobEnds) {
  JobSpec j;
  j.name = "loop";
  j.target = loop->path();
  j.read_pct = 70;
  j.queue_depth = 4;
  j.bytes = 1 << 20;
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});
  for (int i = 0; i < 5; ++i) {
    RunResult r = JobRunner(j, test::uring_engines(), &guard).run();
    ASSERT_FALSE(r.failure) << "job " << i << ": " << r.failure->message;
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
