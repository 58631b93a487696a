// Each way found to lead a job outside [safety] allow_dirs, tried against the
// real runner, io_uring engine and kernel: every one is refused before a byte
// is written, and the files outside keep their contents.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/jobs.hpp"
#include "tests/support/temp_dir.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <string>
#include <thread>

#include "workloads/runner.hpp"
#include "workloads/safety_guard.hpp"
#include "workloads/uring_engine.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;
using test::TempDir;

std::uint64_t checksum(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    h = (h ^ static_cast<unsigned char>(*it)) * 0x100000001b3ULL;
  }
  return h;
}

void fill(const std::string& path, std::size_t bytes, char seed) {
  std::ofstream out(path, std::ios::binary);
  for (std::size_t i = 0; i < bytes; ++i) out.put(static_cast<char>(seed + static_cast<char>(i * 7)));
}

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

class GuardBypass : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = root_.path() + "/scratch";
    outside_ = root_.path() + "/outside.bin";
    fs::create_directory(scratch_);
    fill(outside_, 64 * 1024, 'o');
    before_ = checksum(outside_);
  }

  JobSpec write_job(const std::string& target) const {
    JobSpec j;
    j.name = "bypass";
    j.target = target;
    j.read_pct = 0;
    j.file_size = 64 * 1024;
    j.bytes = 16 * 1024;
    j.block_sizes = {{4096, 1}};
    j.direct = false;  // any filesystem under the temp dir
    return j;
  }
  RunResult run(const JobSpec& j) const {
    SafetyGuard guard(SafetyConfig{{}, {scratch_}});
    return JobRunner(j, test::uring_engines(), &guard).run();
  }
  void expect_refused_untouched(const RunResult& r, ErrorReason reason) const {
    ASSERT_TRUE(r.failure) << "the job ran on " << r.target;
    EXPECT_EQ(r.failure->reason, reason) << r.failure->message;
    EXPECT_EQ(r.op[1].ops + r.op[0].ops, 0u);
    EXPECT_EQ(checksum(outside_), before_) << outside_ << " was modified";
  }

  TempDir root_;
  std::string scratch_, outside_;
  std::uint64_t before_ = 0;
};

TEST_F(GuardBypass, ADanglingSymlinkToOutsideIsNotFollowedNorCreated) {
  const std::string fresh = root_.path() + "/created-outside.bin";
  fs::create_symlink(fresh, scratch_ + "/link");
  expect_refused_untouched(run(write_job(scratch_ + "/link")), ErrorReason::symlink);
  EXPECT_FALSE(fs::exists(fresh)) << "the job created the file the link points to";
}

TEST_F(GuardBypass, ASymlinkedDirectoryToOutsideIsNotFollowed) {
  fs::create_directory_symlink(root_.path(), scratch_ + "/up");
  expect_refused_untouched(run(write_job(scratch_ + "/up/outside.bin")), ErrorReason::symlink);
}

TEST_F(GuardBypass, AHardLinkToAnOutsideFileIsRefused) {
  fs::create_hard_link(outside_, scratch_ + "/hard");
  expect_refused_untouched(run(write_job(scratch_ + "/hard")), ErrorReason::hard_link);
}

// Atomically swaps two names, as an attacker flipping a link would.
bool exchange(const std::string& a, const std::string& b) {
  return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), 2 /* RENAME_EXCHANGE */) == 0;
}

// `target` flips between something inside and a way outside while 1,000 jobs
// start on it: each job either writes inside or is refused, never outside.
void race(const JobSpec& job, const std::string& a, const std::string& b,
          const std::function<RunResult(const JobSpec&)>& run, const std::string& outside, std::uint64_t before) {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> flips{0};
  std::thread flipper([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      if (exchange(a, b)) flips.fetch_add(1, std::memory_order_relaxed);
    }
  });
  int ran = 0, refused = 0;
  for (int i = 0; i < 1000; ++i) {
    RunResult r = run(job);
    if (!r.failure) {
      ++ran;
    } else {
      ++refused;
      EXPECT_EQ(r.failure->reason, ErrorReason::symlink) << r.failure->message;
      EXPECT_EQ(r.op[1].ops, 0u);
    }
  }
  stop = true;
  flipper.join();
  EXPECT_EQ(checksum(outside), before) << outside << " was overwritten";
  std::printf("race: %d jobs ran inside, %d refused, %llu flips\n", ran, refused,
              static_cast<unsigned long long>(flips.load()));
  EXPECT_GT(flips.load(), 0u);
}

TEST_F(GuardBypass, AFileFlippedWithASymlinkNeverLeadsOutsideIn1000Jobs) {
  fill(scratch_ + "/t", 64 * 1024, 'i');
  fs::create_symlink(outside_, scratch_ + "/t.other");
  race(
      write_job(scratch_ + "/t"), scratch_ + "/t", scratch_ + "/t.other", [this](const JobSpec& j) { return run(j); },
      outside_, before_);
}

TEST_F(GuardBypass, ADirectoryFlippedWithASymlinkNeverLeadsOutsideIn1000Jobs) {
  fs::create_directory(root_.path() + "/out-dir");
  const std::string victim = root_.path() + "/out-dir/f";
  fill(victim, 64 * 1024, 'v');
  const std::uint64_t victim_before = checksum(victim);
  fs::create_directory(scratch_ + "/d");
  fs::create_directory_symlink(root_.path() + "/out-dir", scratch_ + "/d.other");
  race(
      write_job(scratch_ + "/d/f"), scratch_ + "/d", scratch_ + "/d.other", [this](const JobSpec& j) { return run(j); },
      victim, victim_before);
}

// A filesystem image inside allow_dirs, loop-attached and mounted (root only).
class MountedImage {
 public:
  MountedImage(const std::string& image, const std::string& mountpoint) : mountpoint_(mountpoint) {
    fs::create_directory(mountpoint);
    ok_ = sh("truncate -s 4M " + image) == 0 && sh("mkfs.ext2 -q -F " + image) == 0 &&
          sh("mount -o loop " + image + " " + mountpoint) == 0;
    if (ok_) std::ofstream(mountpoint + "/data") << "precious\n";
  }
  ~MountedImage() {
    if (ok_) sh("umount " + mountpoint_);  // mount -o loop detaches the loop device too
  }
  bool ok() const { return ok_; }
  std::string loop_device() const {
    FILE* p = ::popen(("findmnt -n -o SOURCE " + mountpoint_).c_str(), "r");
    char buf[128] = {};
    if (p != nullptr && std::fgets(buf, sizeof buf, p) == nullptr) buf[0] = 0;
    if (p != nullptr) ::pclose(p);
    std::string s = buf;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }

 private:
  std::string mountpoint_;
  bool ok_ = false;
};

TEST_F(GuardBypass, AMountedLoopImageInsideTheAllowedDirectoryIsRefused) {
  if (!fs::exists("/dev/loop-control")) GTEST_SKIP() << "no loop devices here";
  const std::string image = scratch_ + "/fs.img";
  MountedImage mounted(image, root_.path() + "/mnt");
  ASSERT_TRUE(mounted.ok()) << "mkfs.ext2 and mount -o loop failed";
  const std::uint64_t image_before = checksum(image);

  JobSpec j = write_job(image);
  j.file_size = 0;
  expect_refused_untouched(run(j), ErrorReason::loop_backing);
  EXPECT_EQ(checksum(image), image_before) << "the mounted filesystem's image was written";

  // The loop device itself: refused too (mounted), whatever it is named by.
  const std::string loop = mounted.loop_device();
  ASSERT_EQ(loop.rfind("/dev/loop", 0), 0u) << loop;
  j.target = loop;
  const RunResult r = run(j);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->reason, ErrorReason::mounted) << r.failure->message;
  EXPECT_EQ(checksum(image), image_before);
  EXPECT_TRUE(fs::exists(root_.path() + "/mnt/data"));
}

TEST_F(GuardBypass, AnOutsideFileBindMountedInsideIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "bind mounts need root";
  const std::string inside = scratch_ + "/bound";
  fill(inside, 4096, 'b');
  ASSERT_EQ(sh("mount --bind " + outside_ + " " + inside), 0);
  const RunResult r = run(write_job(inside));
  sh("umount " + inside);
  expect_refused_untouched(r, ErrorReason::outside_allowed_dirs);
}

TEST_F(GuardBypass, AFifoReadJobIsRefusedAtOnceInsteadOfBlocking) {
  const std::string fifo = scratch_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  JobSpec j = write_job(fifo);
  j.read_pct = 100;
  j.file_size = 0;
  auto job = std::async(std::launch::async, [&] { return run(j); });
  // Generous: a refusal takes microseconds; a blocked open never returns.
  if (job.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    UniqueFd writer(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK));  // lets the blocked open return
    ADD_FAILURE() << "the read job blocked on the FIFO";
    job.wait();
    return;
  }
  expect_refused_untouched(job.get(), ErrorReason::would_block);

  j.read_pct = 0;  // and writing into it
  expect_refused_untouched(run(j), ErrorReason::unsupported_target);
}

TEST_F(GuardBypass, ReadsOfCharacterDevicesAndSocketsAreRefused) {
  JobSpec j = write_job("/dev/zero");
  j.read_pct = 100;
  j.file_size = 0;
  expect_refused_untouched(run(j), ErrorReason::would_block);

  const std::string sock = scratch_ + "/sock";
  UniqueFd s(::socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, sock.c_str(), sock.size() + 1);
  ASSERT_EQ(::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(s.get(), 1), 0);
  j.target = sock;
  expect_refused_untouched(run(j), ErrorReason::would_block);
}

// NVMe generic namespaces (/dev/ngXnY) are the one kind of character device a
// read job may use. None exists here, so a fake sysfs names /dev/zero's
// device number ng0n1: the guard goes by the number the descriptor has.
TEST_F(GuardBypass, ReadsOfNvmeGenericNamespacesAreAllowed) {
  struct stat zero {};
  ASSERT_EQ(::stat("/dev/zero", &zero), 0);
  const fs::path sys = root_.path() + "/sys";
  fs::create_directories(sys / "dev/char");
  fs::create_directories(sys / "devices/ng0n1");
  fs::create_directories(sys / "devices/zero");
  const fs::path link =
      sys / "dev/char" / (std::to_string(major(zero.st_rdev)) + ":" + std::to_string(minor(zero.st_rdev)));
  fs::create_directory_symlink("../../devices/ng0n1", link);
  const TargetAccess read{false, true, 0};
  auto opened = SafetyGuard(SafetyConfig{}, SystemRoots{sys.string(), "/proc"}).open_target("/dev/zero", read);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_TRUE(opened->fd.valid());

  fs::remove(link);
  fs::create_directory_symlink("../../devices/zero", link);
  auto refused = SafetyGuard(SafetyConfig{}, SystemRoots{sys.string(), "/proc"}).open_target("/dev/zero", read);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().reason, ErrorReason::would_block);
}

TEST_F(GuardBypass, EveryRealMediaJobNeedsTheGuardEvenAReadOnlyOne) {
  JobSpec j = write_job(outside_);
  j.read_pct = 100;
  const RunResult r = JobRunner(j, test::uring_engines(), nullptr).run();
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->reason, ErrorReason::refused);
}

// Names itself "sim" and, as every engine does unless it says otherwise,
// touches real media: io_uring on the guard's descriptor underneath.
class RealEngineNamedSim final : public IoEngine {
 public:
  std::string_view name() const override { return "sim"; }
  std::optional<Error> setup(const EngineSetup& s) override { return real_.setup(s); }
  std::uint64_t target_size() const override { return real_.target_size(); }
  bool queue(IoUnit& unit) override { return real_.queue(unit); }
  std::optional<Error> commit() override { return real_.commit(); }
  Result<std::size_t> reap(std::size_t min, Duration max_wait, std::span<IoCompletion> out) override {
    return real_.reap(min, max_wait, out);
  }
  std::int64_t now_ns() const override { return real_.now_ns(); }
  void idle(Duration d) override { real_.idle(d); }

 private:
  UringEngine real_;
};

TEST_F(GuardBypass, TheGuardIsSkippedByCapabilityNotByTheEngineName) {
  // A job configured as "sim" whose engine is named "sim" but does real I/O
  // is still guarded.
  JobSpec j = write_job(outside_);
  j.engine = "sim";
  SafetyGuard guard(SafetyConfig{{}, {scratch_}});
  auto factory = [](const JobSpec&) -> std::unique_ptr<IoEngine> { return std::make_unique<RealEngineNamedSim>(); };
  ASSERT_EQ(factory(j)->name(), "sim");
  ASSERT_TRUE(factory(j)->touches_real_media());
  expect_refused_untouched(JobRunner(j, factory, &guard).run(), ErrorReason::outside_allowed_dirs);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
