#include "workloads/uring_engine.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/core.h>

namespace nvmond {

namespace {
Error sys_error(const std::string& target, const char* what, int err) {
  return Error{ErrorReason::io, fmt::format("{} {}: {}", what, target, std::strerror(err))};
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Two clock reads of a spin further apart than this: something else ran on
// the worker's CPU in between (an interrupt, or another task). One loop of
// the spin takes tens of ns.
constexpr std::int64_t kSpinGapNs = 2'000;

// Times the calling thread was preempted (involuntary context switches).
long involuntary_switches() {
  rusage ru{};
  return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

unsigned round_up_pow2(unsigned v) {
  unsigned p = 1;
  while (p < v) p <<= 1;
  return p;
}
}  // namespace

UringEngine::~UringEngine() {
  // A registered file is let go by the ring's teardown, which the kernel
  // finishes asynchronously after the ring's descriptor is closed: until then
  // the target stays claimed (O_EXCL), and the next job or round on it would
  // be refused as busy. Unregistering first lets it go now.
  if (ring_ready_ && fixed_file_) io_uring_unregister_files(&ring_);
  if (ring_ready_) io_uring_queue_exit(&ring_);
  if (fd_ >= 0) ::close(fd_);
}

std::optional<Error> UringEngine::setup(const EngineSetup& s) {
  target_ = s.target;
  if (s.fd < 0) return Error{ErrorReason::setup, s.target + ": no descriptor from the safety guard"};
  // Our own descriptor on the guard's open file (same checks, same flags).
  fd_ = ::fcntl(s.fd, F_DUPFD_CLOEXEC, 0);
  if (fd_ < 0) return sys_error(s.target, "duplicating the descriptor of", errno);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return sys_error(s.target, "stat of", errno);
  if (S_ISBLK(st.st_mode)) {
    if (::ioctl(fd_, BLKGETSIZE64, &size_) != 0) return sys_error(s.target, "BLKGETSIZE64 on", errno);
  } else {
    size_ = static_cast<std::uint64_t>(st.st_size);
  }

  const unsigned entries = round_up_pow2(s.queue_depth);
  int rc = -EINVAL;
  if (options_.defer_taskrun) {
    // The flag only serves the spin; a kernel that refuses it with
    // DEFER_TASKRUN still gets DEFER_TASKRUN (and a worker that never spins).
    for (const unsigned flag : {unsigned{IORING_SETUP_TASKRUN_FLAG}, 0u}) {
      io_uring_params p{};
      p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | flag;
      rc = io_uring_queue_init_params(entries, &ring_, &p);
      taskrun_flag_ = rc == 0 && flag != 0;
      if (rc == 0) break;
    }
  }
  if (rc < 0) {
    io_uring_params p{};
    rc = io_uring_queue_init_params(entries, &ring_, &p);
  }
  if (rc < 0) return sys_error(s.target, "io_uring_queue_init for", -rc);
  ring_ready_ = true;
  // A registered ring descriptor spares every io_uring_enter an fget/fput
  // of the ring's file (one enter per I/O at QD1); optional like the rest.
  io_uring_register_ring_fd(&ring_);

  // Registration saves a page pin and an fget per I/O; both are optional
  // (RLIMIT_MEMLOCK may forbid pinning), so failures fall back quietly.
  if (options_.register_buffers && !s.buffers.empty() && s.buffers.size() <= 16384) {
    fixed_buffers_ = io_uring_register_buffers(&ring_, s.buffers.data(), static_cast<unsigned>(s.buffers.size())) == 0;
  }
  if (options_.register_files) fixed_file_ = io_uring_register_files(&ring_, &fd_, 1) == 0;
  preemptions_ = involuntary_switches();
  return std::nullopt;
}

bool UringEngine::queue(IoUnit& u) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) return false;
  const int fd = fixed_file_ ? 0 : fd_;
  const auto off = static_cast<__u64>(u.offset);
  if (u.op == IoOp::read) {
    if (fixed_buffers_) io_uring_prep_read_fixed(sqe, fd, u.data, u.length, off, u.buffer);
    else io_uring_prep_read(sqe, fd, u.data, u.length, off);
  } else {
    if (fixed_buffers_) io_uring_prep_write_fixed(sqe, fd, u.data, u.length, off, u.buffer);
    else io_uring_prep_write(sqe, fd, u.data, u.length, off);
  }
  if (fixed_file_) sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data(sqe, &u);
  ++inflight_;
  return true;
}

std::optional<Error> UringEngine::commit() {
  int rc = io_uring_submit(&ring_);
  if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
    return sys_error(target_, "io_uring_submit for", -rc);
  }
  return std::nullopt;
}

// Submits what is queued, then watches the ring for up to the spin budget:
// a completion already posted, or the kernel's flag that completion work
// waits for our next io_uring_enter (DEFER_TASKRUN posts completions only
// there). Either way the wait that follows returns without sleeping. Only
// with a single I/O in flight: with more, the device has work while the
// worker wakes up, and the wake-up is no longer part of any I/O's latency.
// A gap in the spin's clock reads is an interrupt (a completion on this CPU
// arrives as one) or a preemption; only the second, told apart by the
// thread's involuntary switches (one getrusage, ~0.4 us, and only after a
// gap), ends the spin as a failure.
int UringEngine::submit_and_spin(Duration max_wait) {
  if (!taskrun_flag_ || inflight_ != 1 || io_uring_cq_ready(&ring_) > 0) return 0;
  Duration budget = spin_.budget();
  if (max_wait.count() >= 0) budget = std::min(budget, max_wait);
  if (budget.count() <= 0) return 0;
  const int rc = io_uring_submit(&ring_);
  if (rc < 0) return rc;
  const std::int64_t start = now_ns();
  const std::int64_t until = start + budget.count();
  std::int64_t last = start;
  while (true) {
    const bool done = io_uring_cq_ready(&ring_) > 0 || (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN) != 0;
    const std::int64_t t = now_ns();
    if (t - last > kSpinGapNs) {
      const long switches = involuntary_switches();
      const bool lost = switches != preemptions_;
      preemptions_ = switches;
      if (lost) {
        spin_.lost_cpu();
        ++spin_counts_.lost_cpu;
        return 0;
      }
    }
    if (done) {
      spin_.caught(Duration(t - start));
      ++spin_counts_.caught;
      return 0;
    }
    if (t >= until) {
      spin_.ran_out();
      ++spin_counts_.ran_out;
      return 0;
    }
    last = t;
    cpu_relax();
  }
}

int UringEngine::submit_and_wait(std::size_t min, Duration max_wait) {
  if (min == 0) {
    const int rc = io_uring_submit(&ring_);
    return rc < 0 ? rc : io_uring_get_events(&ring_);
  }
  if (max_wait.count() < 0) return io_uring_submit_and_wait(&ring_, static_cast<unsigned>(min));
  __kernel_timespec ts{};
  ts.tv_sec = max_wait.count() / 1'000'000'000;
  ts.tv_nsec = max_wait.count() % 1'000'000'000;
  io_uring_cqe* cqe = nullptr;
  return io_uring_submit_and_wait_timeout(&ring_, &cqe, static_cast<unsigned>(min), &ts, nullptr);
}

Result<std::size_t> UringEngine::reap(std::size_t min, Duration max_wait, std::span<IoCompletion> out) {
  int rc = min > 0 ? submit_and_spin(max_wait) : 0;
  if (rc >= 0) rc = submit_and_wait(min, max_wait);
  if (rc < 0 && rc != -EINTR && rc != -ETIME && rc != -EAGAIN && rc != -EBUSY) {
    return sys_error(target_, "io_uring_enter for", -rc);
  }
  // Each CQE is stamped as it is read (one vDSO clock read, ~20 ns): an
  // I/O's completion time is its own, not the end of the batch.
  std::size_t n = 0;
  unsigned head = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    if (n == out.size()) break;
    out[n].unit = static_cast<IoUnit*>(io_uring_cqe_get_data(cqe));
    out[n].result = cqe->res;
    out[n].done_ns = now_ns();
    ++n;
  }
  io_uring_cq_advance(&ring_, static_cast<unsigned>(n));
  inflight_ -= static_cast<unsigned>(std::min<std::size_t>(n, inflight_));
  return n;
}

std::int64_t UringEngine::now_ns() const {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void UringEngine::idle(Duration d) {
  if (d.count() <= 0) return;
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(d.count() / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(d.count() % 1'000'000'000);
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
  }
}

std::unique_ptr<IoEngine> make_uring_engine(const JobSpec& spec) {
  UringOptions o;
  o.completion_spin = spec.completion_spin;
  return std::make_unique<UringEngine>(o);
}

}  // namespace nvmond
