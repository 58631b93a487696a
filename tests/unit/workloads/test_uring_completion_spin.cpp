// The io_uring engine's spin on a real ring, with a pipe as the target: a
// read of an empty pipe completes exactly when the test writes to it, so
// whether a completion came during the spin is decided by the test, not by
// timing.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>

#include "workloads/uring_engine.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using std::chrono::milliseconds;

class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_.data(), O_CLOEXEC) != 0) fds_ = {-1, -1};
  }
  ~Pipe() {
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fds_[0]; }
  bool put(char c) const { return ::write(fds_[1], &c, 1) == 1; }

 private:
  std::array<int, 2> fds_{};
};

struct SpinRig {
  explicit SpinRig(Duration cap) : engine(UringOptions{.completion_spin = cap}) {
    buffer = static_cast<std::byte*>(std::aligned_alloc(4096, 4096));
    iov = iovec{buffer, 4096};
    unit.op = IoOp::read;
    unit.length = unit.total = 1;
    unit.data = buffer;
  }
  ~SpinRig() { std::free(buffer); }
  SpinRig(const SpinRig&) = delete;
  SpinRig& operator=(const SpinRig&) = delete;

  std::optional<Error> setup(int fd) {
    EngineSetup s;
    s.target = "pipe";
    s.fd = fd;
    s.buffers = std::span<const iovec>(&iov, 1);
    return engine.setup(s);
  }

  UringEngine engine;
  std::byte* buffer = nullptr;
  iovec iov{};
  IoUnit unit;
  std::array<IoCompletion, 1> done{};
};

// Whether this kernel flags pending completion work in the ring
// (IORING_SETUP_TASKRUN_FLAG with DEFER_TASKRUN, Linux 6.1+).
bool spin_supported() {
  io_uring ring{};
  io_uring_params p{};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  if (io_uring_queue_init_params(1, &ring, &p) != 0) return false;
  io_uring_queue_exit(&ring);
  return true;
}

// The kernel's completion work for the read, queued when the pipe is written,
// is seen by the spin: the wait that follows returns it without sleeping.
TEST(UringCompletionSpin, ACompletionDuringTheSpinIsCaught) {
  if (!spin_supported()) GTEST_SKIP() << "no IORING_SETUP_TASKRUN_FLAG with DEFER_TASKRUN here";
  Pipe pipe;
  SpinRig rig(milliseconds(1));
  ASSERT_FALSE(rig.setup(pipe.read_end()));
  ASSERT_TRUE(rig.engine.queue(rig.unit));
  ASSERT_FALSE(rig.engine.commit());  // the read now waits for data
  ASSERT_TRUE(pipe.put('x'));
  auto got = rig.engine.reap(1, Duration(-1), rig.done);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(*got, 1u);
  EXPECT_EQ(rig.done[0].result, 1);
  EXPECT_EQ(rig.engine.spin_counts().caught, 1u);
  EXPECT_EQ(rig.engine.spin_counts().ran_out + rig.engine.spin_counts().lost_cpu, 0u);
}

// A completion that never comes within the spin: the engine gives up
// spinning and waits in the kernel (here until the wait's bound), and the
// waits right after a miss sleep at once.
TEST(UringCompletionSpin, ACompletionThatDoesNotComeStillSleeps) {
  if (!spin_supported()) GTEST_SKIP() << "no IORING_SETUP_TASKRUN_FLAG with DEFER_TASKRUN here";
  Pipe pipe;
  SpinRig rig(std::chrono::microseconds(100));
  ASSERT_FALSE(rig.setup(pipe.read_end()));
  ASSERT_TRUE(rig.engine.queue(rig.unit));
  auto got = rig.engine.reap(1, milliseconds(5), rig.done);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, 0u);
  // A miss either way: the spin ran out, or (on a loaded host) another task
  // took the CPU during it; both make the engine sleep and back off.
  const auto misses = [&] { return rig.engine.spin_counts().ran_out + rig.engine.spin_counts().lost_cpu; };
  EXPECT_EQ(misses(), 1u);

  ASSERT_TRUE(pipe.put('y'));
  got = rig.engine.reap(1, Duration(-1), rig.done);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(*got, 1u);
  EXPECT_EQ(rig.done[0].result, 1);
  // Backing off: the second wait slept without spinning.
  EXPECT_EQ(misses(), 1u);
  EXPECT_EQ(rig.engine.spin_counts().caught, 0u);
}

TEST(UringCompletionSpin, ZeroSpinNeverSpins) {
  Pipe pipe;
  SpinRig rig(Duration(0));
  ASSERT_FALSE(rig.setup(pipe.read_end()));
  ASSERT_TRUE(rig.engine.queue(rig.unit));
  ASSERT_FALSE(rig.engine.commit());
  ASSERT_TRUE(pipe.put('z'));
  auto got = rig.engine.reap(1, Duration(-1), rig.done);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(*got, 1u);
  EXPECT_EQ(rig.engine.spin_counts().caught + rig.engine.spin_counts().ran_out, 0u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
