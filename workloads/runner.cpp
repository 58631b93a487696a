#include "workloads/runner.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

#include <fmt/core.h>

#include "workloads/cpu_pinning.hpp"
#include "workloads/io_planner.hpp"
#include "workloads/run_accounting.hpp"
#include "workloads/safety_guard.hpp"
#include "workloads/uring_engine.hpp"
#include "workloads/verify_block.hpp"

namespace nvmond {

namespace {

// How long a worker with I/O in flight waits for a completion when its next
// I/O is not due yet: beyond the kernel's tick (4 ms at HZ=250), where an
// armed timer stopped slowing wake-ups in the measurements.
constexpr Duration kInFlightWaitBound = std::chrono::milliseconds(5);

// How often a worker looks again at whether its CPU binding still fits the
// host's load (a read of /proc/loadavg): at most once a second of engine time
// and once per 1024 I/Os, so an accelerated simulated clock does not turn it
// into a file read per I/O.
constexpr Duration kPlacementInterval = std::chrono::seconds(1);
constexpr std::uint64_t kPlacementEveryIos = 1024;

// The smallest slice the kernel grants: a worker's turns are microseconds.
constexpr std::chrono::nanoseconds kWorkerSlice = std::chrono::microseconds(100);

class Worker {
 public:
  Worker(const JobSpec& spec, unsigned index, WorkerStats& stats, const std::atomic<bool>& stop, std::uint64_t seed,
         CpuPlacement& placement)
      : spec_(spec), stats_(stats), stop_(stop), seed_(seed), plan_(spec, index, seed), placement_(placement) {}

  ~Worker() { std::free(buffers_); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // `target_fd`: the guard's descriptor (borrowed; the engine dups it).
  std::optional<Error> setup(IoEngine& engine, int target_fd) {
    engine_ = &engine;
    const unsigned qd = spec_.queue_depth;
    buf_stride_ = (spec_.max_block_size() + 4095) / 4096 * 4096;
    buffers_ = static_cast<std::byte*>(std::aligned_alloc(4096, buf_stride_ * qd));
    if (buffers_ == nullptr) return Error{ErrorReason::setup, "cannot allocate I/O buffers"};
    if (spec_.data == DataPattern::zeros) {
      std::memset(buffers_, 0, buf_stride_ * qd);
    } else {
      for (std::size_t i = 0; i + 8 <= buf_stride_ * qd; i += 8) put64(buffers_ + i, plan_.rng().next());
    }
    iovecs_.resize(qd);
    units_.resize(qd);
    free_.reserve(qd);
    for (unsigned i = 0; i < qd; ++i) {
      iovecs_[i] = iovec{buffers_ + i * buf_stride_, buf_stride_};
      units_[i].buffer = static_cast<std::uint16_t>(std::min(i, 65535u));
      free_.push_back(&units_[i]);
    }
    completions_.resize(qd);
    out_.error_samples.reserve(kMaxErrorSamples);
    out_.timeline.reserve(spec_.runtime ? static_cast<std::size_t>(seconds(*spec_.runtime)) + 2 : 64);

    EngineSetup s;
    s.target = spec_.target;
    s.fd = target_fd;
    s.queue_depth = qd;
    s.buffers = iovecs_;
    if (auto e = engine.setup(s)) return e;
    return plan_.plan_range(engine.target_size());
  }

  // The hot loop. Timestamps: an I/O's latency runs from the clock read just
  // before it is queued (after any rate-limit wait, so the limiter's wait is
  // never part of it) to the engine's stamp on its own completion.
  void run(Phase phase) {
    IoEngine& engine = *engine_;
    const std::int64_t start = engine.now_ns();
    if (phase == Phase::main) run_start_ns_ = start;
    placement_ns_ = start;
    plan_.start(phase);
    const std::int64_t deadline = phase == Phase::main && spec_.runtime ? start + spec_.runtime->count()
                                                                        : std::numeric_limits<std::int64_t>::max();
    std::int64_t now = start;
    bool exhausted = false;
    while (true) {
      Duration wait(-1);
      while (!exhausted && !free_.empty()) {
        now = engine.now_ns();
        if (stop_.load(std::memory_order_relaxed) || now >= deadline) {
          exhausted = true;
          break;
        }
        if (!plan_.plan_next(phase)) {
          exhausted = true;
          break;
        }
        if (ios_since_placement_ >= kPlacementEveryIos && now - placement_ns_ >= kPlacementInterval.count()) {
          placement_.revisit();
          placement_ns_ = now;
          ios_since_placement_ = 0;
        }
        if (phase == Phase::main && !plan_.admit(now, wait)) break;
        IoUnit* u = free_.back();
        free_.pop_back();
        start_unit(*u, phase, now);
        if (!engine.queue(*u)) {  // cannot happen with ring >= QD; be safe
          free_.push_back(u);
          break;
        }
        plan_.take(phase, u->op == IoOp::write && spec_.verify);
        ++inflight_;
        ++ios_since_placement_;
      }
      if (inflight_ == 0) {
        if (exhausted) break;
        engine.idle(wait);
        continue;
      }
      // With I/O in flight, wait for a completion, not for the next due time
      // (as fio's rate process does): a near timer armed in that wait delays
      // the completion's own wake-up. The far bound only keeps a stalled I/O
      // from holding issuing back for long; the pacer's catch-up (kCatchUp in
      // io_planner.cpp) makes up for an issue that comes late. Measured in bench/RESULTS.md ("Rate-limited
      // waits").
      auto got = engine.reap(1, wait.count() < 0 ? wait : std::max(wait, kInFlightWaitBound), completions_);
      if (!got) {
        if (!out_.failure) out_.failure = got.error();
        break;  // the engine is broken; in-flight I/O is cancelled when it is destroyed
      }
      for (std::size_t i = 0; i < *got; ++i) complete(completions_[i]);
      if (*got > 0) stats_.now_ns.store(completions_[*got - 1].done_ns, std::memory_order_relaxed);
    }
    if (phase == Phase::main) {
      out_.main_elapsed_ns = engine.now_ns() - start;
      out_.sequential_next = plan_.sequential_next();
    }
  }

  WorkerOutput& output() { return out_; }

 private:
  void start_unit(IoUnit& u, Phase phase, std::int64_t now) {
    const PlannedIo& next = plan_.next();
    u.op = next.op;
    u.length = u.total = next.length;
    u.offset = u.start_offset = next.offset;
    u.done = 0;
    u.data = buffer_of(u);
    u.issue_ns = now;
    u.verify_read = phase == Phase::verify_read;
    if (u.op != IoOp::write) return;
    if (spec_.verify) {
      fill_verify_block(u.data, u.total, u.offset, seed_);
      u.issue_ns = engine_->now_ns();  // checksumming is the tool's time, not the I/O's
    } else if (spec_.data == DataPattern::random) {
      // Keep every written block unique (no dedupe/compression gains) for the
      // price of one store per 4 KiB.
      const std::uint64_t stamp = u.offset * 0x9e3779b97f4a7c15ULL + ++write_count_;
      for (std::uint32_t i = 0; i + 8 <= u.total; i += 4096) put64(u.data + i, stamp + i);
    }
  }

  std::byte* buffer_of(const IoUnit& u) const {
    return buffers_ + static_cast<std::size_t>(&u - units_.data()) * buf_stride_;
  }

  void check_verify_block(const IoUnit& u) {
    ++out_.verified_blocks;
    const char* what = verify_block_problem(buffer_of(u), u.total, u.start_offset, seed_);
    if (what == nullptr) return;
    ++out_.verify_failures;
    record_io_error(stats_, out_, u, 0, what);
  }

  void complete(const IoCompletion& c) {
    IoUnit& u = *c.unit;
    if (c.result <= 0) {
      // An error never aborts the run: count it with its offset and go on.
      record_io_error(stats_, out_, u, c.result == 0 ? EIO : -c.result,
                      c.result == 0 ? "zero-length transfer (beyond the end of the target?)" : nullptr);
      release(u);
      return;
    }
    u.done += static_cast<std::uint32_t>(c.result);
    if (u.done < u.total) {
      ++out_.short_ios;
      u.offset = u.start_offset + u.done;
      u.data = buffer_of(u) + u.done;
      u.length = u.total - u.done;
      if (engine_->queue(u)) return;
      record_io_error(stats_, out_, u, EAGAIN, "could not resubmit the rest of a short I/O");
      release(u);
      return;
    }
    account_completion(stats_, out_, u, c.done_ns, run_start_ns_);
    if (u.verify_read) check_verify_block(u);
    release(u);
  }

  void release(IoUnit& u) {
    free_.push_back(&u);
    --inflight_;
  }

  const JobSpec& spec_;
  WorkerStats& stats_;
  const std::atomic<bool>& stop_;
  std::uint64_t seed_;
  IoPlanner plan_;
  IoEngine* engine_ = nullptr;

  std::byte* buffers_ = nullptr;
  std::size_t buf_stride_ = 0;
  std::vector<iovec> iovecs_;
  std::vector<IoUnit> units_;
  std::vector<IoUnit*> free_;
  std::vector<IoCompletion> completions_;
  unsigned inflight_ = 0;

  std::uint64_t write_count_ = 0;
  std::int64_t run_start_ns_ = 0;
  WorkerOutput out_;

  CpuPlacement& placement_;
  std::int64_t placement_ns_ = 0;
  std::uint64_t ios_since_placement_ = 0;
};

// Runs a barrier's completion step (the between-passes hook) exactly once.
struct HookStep {
  const std::function<void()>* hook;
  void operator()() noexcept {
    if (hook && *hook) (*hook)();
  }
};

}  // namespace

JobRunner::JobRunner(JobSpec spec, EngineFactory factory, const SafetyGuard* guard, RunHooks hooks)
    : spec_(std::move(spec)), factory_(std::move(factory)), guard_(guard), hooks_(std::move(hooks)) {
  snapshot_.job = spec_.name;
}

JobRunner::~JobRunner() = default;

RunSnapshot JobRunner::snapshot() const {
  std::lock_guard lock(snapshot_mu_);
  return snapshot_;
}

RunResult JobRunner::run() {
  RunResult result;
  result.job = spec_.name;
  result.target = spec_.target;
  result.engine = spec_.engine;
  const unsigned n = spec_.threads;
  // Engines first: whether they touch real media decides whether the guard
  // must open the target; then every worker works on that one descriptor.
  std::vector<std::unique_ptr<IoEngine>> engines(n);
  bool real_media = false;
  EngineTime time_base = EngineTime::monotonic;
  for (auto& engine : engines) {
    auto made = factory_ ? factory_(spec_) : Result<std::unique_ptr<IoEngine>>(nullptr);
    if (!made) {
      result.failure = made.error();
      return result;
    }
    engine = std::move(*made);
    if (!engine) {
      result.failure = Error{ErrorReason::setup, "no engine \"" + spec_.engine + "\" for " + spec_.target};
      return result;
    }
    real_media = real_media || engine->touches_real_media();
    time_base = engine->time_base();
  }
  UniqueFd target;
  if (real_media) {
    if (guard_ == nullptr) {
      result.failure = Error{ErrorReason::refused, spec_.target + ": job on real media without a safety guard"};
      return result;
    }
    if (approved_fd_ >= 0) {
      target = UniqueFd(::fcntl(approved_fd_, F_DUPFD_CLOEXEC, 0));
      if (!target.valid()) {
        result.failure = Error{ErrorReason::io, fmt::format("{}: {}", spec_.target, std::strerror(errno))};
        return result;
      }
    } else {
      auto opened = guard_->open_target(spec_.target, TargetAccess{spec_.writes(), spec_.direct, spec_.file_size});
      if (!opened) {
        result.failure = opened.error();
        return result;
      }
      target = std::move(opened->fd);
    }
  }

  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^ 0x5bd1e995ULL;
  std::vector<std::unique_ptr<WorkerStats>> stats;
  std::vector<WorkerOutput> outputs(n);
  for (unsigned i = 0; i < n; ++i) stats.push_back(std::make_unique<WorkerStats>());

  std::atomic<bool> setup_failed{false};
  std::barrier setup_done(static_cast<std::ptrdiff_t>(n));
  std::barrier write_pass_done(static_cast<std::ptrdiff_t>(n), HookStep{&hooks_.after_write_pass});
  std::mutex done_mu;
  std::condition_variable done_cv;
  unsigned finished = 0;

  const std::vector<int> cpus = spec_.pin_cpus ? allowed_cpus() : std::vector<int>{};
  const int start_cpu = sched_getcpu();
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      // Bound to its CPU while the host has CPUs to spare (cpu_pinning.hpp).
      CpuPlacement placement(worker_cpu(i, cpus, start_cpu), cpus);
      placement.revisit();
      // The default 50 us timer slack lets a worker waiting for its next rate
      // token oversleep by up to 50 us, which a fixed-rate (QoS) run reports
      // as latency: at 20k IOPS QD4 the p50 fell from 55 to 40 us with 1 ns.
      prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
      // Short turns on the CPU, so a wake-up on a busy CPU is not held for
      // another task's 1.4 ms slice (cpu_pinning.hpp): at 4 KiB QD1 on a
      // loop device under other builds' load, 1.64x fio's IOPS against 0.78x.
      request_short_slice(kWorkerSlice);
      Worker w(spec_, i, *stats[i], stop_, seed, placement);
      std::unique_ptr<IoEngine> engine = std::move(engines[i]);
      std::optional<Error> err = w.setup(*engine, target.get());
      if (err) {
        w.output().failure = err;
        setup_failed.store(true);
      }
      setup_done.arrive_and_wait();
      if (!setup_failed.load()) {
        w.run(Phase::main);
        if (spec_.verify) {
          write_pass_done.arrive_and_wait();
          w.run(Phase::verify_read);
        }
      }
      engine.reset();
      outputs[i] = std::move(w.output());
      std::lock_guard lock(done_mu);
      ++finished;
      done_cv.notify_all();
    });
  }

  // Merge the workers' recorders once a second into the live snapshot.
  SnapshotAggregator aggregator(stats);
  auto aggregate = [&](bool running) {
    RunSnapshot s = aggregator.take(spec_.name, running);
    s.time_base = time_base;
    std::lock_guard lock(snapshot_mu_);
    snapshot_ = std::move(s);
  };
  {
    std::unique_lock lock(done_mu);
    while (finished < n) {
      if (done_cv.wait_for(lock, std::chrono::seconds(1), [&] { return finished == n; })) break;
      lock.unlock();
      aggregate(true);
      lock.lock();
    }
  }
  for (auto& t : threads) t.join();
  aggregate(false);

  merge_into(result, stats, outputs);
  if (spec_.pattern == AccessPattern::sequential) {
    for (const auto& o : outputs) result.sequential_next.push_back(o.sequential_next);
    for (const auto& st : stats) result.sequential_written.push_back(st->bytes[static_cast<int>(IoOp::write)].load());
  }
  return result;
}

std::optional<Error> prepare_file_target(const std::string& path, std::uint64_t size) {
  if (size == 0) return std::nullopt;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{ErrorReason::io, fmt::format("creating {}: {}", path, std::strerror(errno))};
  std::optional<Error> err;
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < size) {
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      err = Error{ErrorReason::io, fmt::format("extending {} to {} bytes: {}", path, size, std::strerror(errno))};
    }
  }
  ::close(fd);
  return err;
}

}  // namespace nvmond
