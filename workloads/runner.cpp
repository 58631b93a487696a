#include "workloads/runner.hpp"

#include <fcntl.h>
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

#include "workloads/rate_limiter.hpp"
#include "workloads/safety_guard.hpp"
#include "workloads/uring_engine.hpp"

namespace nvmond {

namespace {

__extension__ using uint128 = unsigned __int128;

struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) without division (Lemire).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<uint128>(next()) * n) >> 64);
  }
};

void bump(std::atomic<std::uint64_t>& a, std::uint64_t by) {
  a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

// Per-worker counters: written by the worker only, read by the aggregator.
struct WorkerStats {
  std::array<LatencyRecorder, kIoOpCount> latency;
  std::array<std::atomic<std::uint64_t>, kIoOpCount> ops{};
  std::array<std::atomic<std::uint64_t>, kIoOpCount> bytes{};
  std::array<std::atomic<std::uint64_t>, kIoOpCount> errors{};
  std::atomic<std::int64_t> now_ns{0};
};

// What a worker hands back when it is done (plain data, read after join).
struct WorkerOutput {
  std::optional<Error> failure;
  std::int64_t main_elapsed_ns = 0;
  std::uint64_t short_ios = 0;
  std::vector<IoErrorRecord> error_samples;
  std::uint64_t verified_blocks = 0;
  std::uint64_t verify_failures = 0;
  std::vector<TimelineSecond> timeline;
};

constexpr std::size_t kMaxErrorSamples = 32;
constexpr Duration kCatchUp = std::chrono::seconds(1);
constexpr std::uint64_t kVerifyMagic = 0x5946495652444d56ULL;  // "VMDRVIFY"
constexpr std::size_t kVerifyHeader = 32;

std::uint64_t checksum(const std::byte* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  return h;
}

void put64(std::byte* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
std::uint64_t get64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

enum class Phase { main, verify_read };

class Worker {
 public:
  Worker(const JobSpec& spec, unsigned index, WorkerStats& stats, const std::atomic<bool>& stop,
         std::uint64_t seed)
      : spec_(spec), index_(index), stats_(stats), stop_(stop), seed_(seed),
        rng_{seed ^ (0x1234567ULL * (index + 1))} {}

  ~Worker() { std::free(buffers_); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // `target_fd`: the guard's descriptor (borrowed; the engine dups it).
  std::optional<Error> setup(IoEngine& engine, int target_fd) {
    engine_ = &engine;
    const unsigned qd = spec_.queue_depth;
    buf_stride_ = (spec_.max_block_size() + 4095) / 4096 * 4096;
    buffers_ = static_cast<std::byte*>(std::aligned_alloc(4096, buf_stride_ * qd));
    if (buffers_ == nullptr) return Error{"setup", "cannot allocate I/O buffers"};
    if (spec_.data == DataPattern::zeros) {
      std::memset(buffers_, 0, buf_stride_ * qd);
    } else {
      for (std::size_t i = 0; i + 8 <= buf_stride_ * qd; i += 8) put64(buffers_ + i, rng_.next());
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
    return plan_range(engine.target_size());
  }

  // The hot loop. Timestamps: an I/O's latency runs from the clock read just
  // before it is queued (after any rate-limit wait, so the limiter's wait is
  // never part of it) to the engine's stamp on its own completion.
  void run(Phase phase) {
    IoEngine& engine = *engine_;
    const std::int64_t start = engine.now_ns();
    if (phase == Phase::main) {
      run_start_ns_ = start;
      cursor_ = lo_;
    } else {
      verify_cursor_ = 0;
    }
    const std::int64_t deadline =
        phase == Phase::main && spec_.runtime ? start + spec_.runtime->count()
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
        if (!have_next_ && !plan_next(phase)) {
          exhausted = true;
          break;
        }
        if (phase == Phase::main && !admit(now, wait)) break;
        IoUnit* u = free_.back();
        free_.pop_back();
        start_unit(*u, phase, now);
        if (!engine.queue(*u)) {  // cannot happen with ring >= QD; be safe
          free_.push_back(u);
          break;
        }
        have_next_ = false;
        ++inflight_;
      }
      if (inflight_ == 0) {
        if (exhausted) break;
        engine.idle(wait);
        continue;
      }
      // Waiting for the next due time with I/O in flight is a timed wait on
      // the ring: a completion ends it at once and is stamped when it lands.
      auto got = engine.reap(1, wait, completions_);
      if (!got) {
        if (!out_.failure) out_.failure = got.error();
        break;  // the engine is broken; in-flight I/O is cancelled when it is destroyed
      }
      for (std::size_t i = 0; i < *got; ++i) complete(completions_[i]);
      if (*got > 0) stats_.now_ns.store(completions_[*got - 1].done_ns, std::memory_order_relaxed);
    }
    if (phase == Phase::main) out_.main_elapsed_ns = engine.now_ns() - start;
  }

  WorkerOutput& output() { return out_; }

 private:
  struct Next {
    IoOp op;
    std::uint32_t length;
    std::uint64_t offset;
  };

  std::optional<Error> plan_range(std::uint64_t target_size) {
    if (spec_.offset >= target_size) {
      return Error{"setup", fmt::format("{}: offset {} is beyond the target's {} bytes", spec_.target,
                                        spec_.offset, target_size)};
    }
    const std::uint64_t len = spec_.size ? spec_.size : target_size - spec_.offset;
    if (spec_.offset + len > target_size) {
      return Error{"setup", fmt::format("{}: offset+size {} is beyond the target's {} bytes",
                                        spec_.target, spec_.offset + len, target_size)};
    }
    const std::uint64_t align = spec_.max_block_size();
    const std::uint64_t chunk = len / spec_.threads / align * align;
    if (chunk == 0) {
      return Error{"setup", fmt::format("{}: range of {} bytes is too small for {} threads of {} byte blocks",
                                        spec_.target, len, spec_.threads, align)};
    }
    lo_ = spec_.offset + chunk * index_;
    hi_ = lo_ + chunk;
    std::uint64_t total_budget = std::numeric_limits<std::uint64_t>::max();
    if (spec_.bytes) total_budget = *spec_.bytes;
    else if (!spec_.runtime) total_budget = len;  // neither: one pass over the range
    if (total_budget != std::numeric_limits<std::uint64_t>::max()) {
      budget_ = total_budget / spec_.threads + (index_ == 0 ? total_budget % spec_.threads : 0);
    }
    for (const auto& b : spec_.block_sizes) weight_total_ += b.weight;
    read_threshold_ = static_cast<std::uint64_t>(spec_.read_pct / 100.0 * 4294967296.0);
    const double share = 1.0 / spec_.threads;
    // Paced like fio's rate process: each I/O is due 1/rate after the one
    // before and waits for its due time. A worker that woke late catches up
    // (never more than queue_depth I/Os at once) by at most kCatchUp of its
    // rate, so a stopped process does not fire minutes of backlog. Measured on
    // a loaded 2-CPU VM at QD4: a 2 ms bound delivered 56 % of 10k IOPS (fio
    // 97 %), the old 10 ms bucket 75 %: stalls there last tens of ms.
    if (spec_.rate_iops > 0) {
      const double r = spec_.rate_iops * share;
      iops_limit_.emplace(r, std::max(1.0, r * seconds(kCatchUp)));
    }
    if (spec_.rate_bytes_per_second > 0) {
      const double r = spec_.rate_bytes_per_second * share;
      bytes_limit_.emplace(r, std::max<double>(spec_.max_block_size(), r * seconds(kCatchUp)));
    }
    if (spec_.verify) written_.assign((chunk / align + 63) / 64, 0);
    plan_zones(align);
    return std::nullopt;
  }

  // Zone bounds in bytes of this worker's range, and cumulative access shares
  // out of 2^32 (one draw picks the zone).
  void plan_zones(std::uint64_t align) {
    double start = 0, access = 0;
    for (const auto& z : spec_.zones) {
      const double end = std::min(100.0, start + z.range_pct);
      const std::uint64_t zlo = lo_ + static_cast<std::uint64_t>(static_cast<double>(hi_ - lo_) * start / 100.0) / align * align;
      const std::uint64_t zhi = lo_ + static_cast<std::uint64_t>(static_cast<double>(hi_ - lo_) * end / 100.0) / align * align;
      access += z.access_pct;
      if (zhi > zlo) zones_.push_back(Zone{zlo, zhi, static_cast<std::uint64_t>(std::min(access, 100.0) / 100.0 * 4294967295.0)});
      start = end;
    }
  }

  bool plan_next(Phase phase) {
    if (phase == Phase::verify_read) {
      const std::uint64_t bs = spec_.block_sizes[0].bytes;
      const std::uint64_t nblocks = (hi_ - lo_) / bs;
      while (verify_cursor_ < nblocks) {
        const std::uint64_t word = written_[verify_cursor_ / 64] >> (verify_cursor_ % 64);
        if (word == 0) {
          verify_cursor_ = (verify_cursor_ / 64 + 1) * 64;
          continue;
        }
        verify_cursor_ += static_cast<std::uint64_t>(__builtin_ctzll(word));
        if (verify_cursor_ >= nblocks) break;
        next_ = Next{IoOp::read, static_cast<std::uint32_t>(bs), lo_ + verify_cursor_ * bs};
        ++verify_cursor_;
        have_next_ = true;
        return true;
      }
      return false;
    }
    if (issued_ >= budget_) return false;
    std::uint32_t bs = spec_.block_sizes[0].bytes;
    if (spec_.block_sizes.size() > 1) {
      std::uint64_t r = rng_.below(weight_total_);
      for (const auto& b : spec_.block_sizes) {
        if (r < b.weight) {
          bs = b.bytes;
          break;
        }
        r -= b.weight;
      }
    }
    const IoOp op = (rng_.next() >> 32) < read_threshold_ ? IoOp::read : IoOp::write;
    std::uint64_t off = 0;
    if (spec_.pattern == AccessPattern::random && !zones_.empty()) {
      const std::uint64_t pick = rng_.next() >> 32;
      const Zone* z = &zones_.back();
      for (const auto& candidate : zones_) {
        if (pick <= candidate.access_upto) {
          z = &candidate;
          break;
        }
      }
      off = z->lo + rng_.below(std::max<std::uint64_t>(1, (z->hi - z->lo) / bs)) * bs;
    } else if (spec_.pattern == AccessPattern::random) {
      off = lo_ + rng_.below((hi_ - lo_) / bs) * bs;
    } else {
      if (cursor_ + bs > hi_) cursor_ = lo_;
      off = cursor_;
      cursor_ += bs;
    }
    next_ = Next{op, bs, off};
    have_next_ = true;
    return true;
  }

  // Rate limits: false (and how long to wait) when the next I/O must wait.
  bool admit(std::int64_t now, Duration& wait) {
    const Duration t(now);
    if (iops_limit_) {
      if (Duration d = iops_limit_->acquire(t, 1.0); d.count() > 0) {
        wait = d;
        return false;
      }
    }
    if (bytes_limit_) {
      if (Duration d = bytes_limit_->acquire(t, next_.length); d.count() > 0) {
        wait = d;
        return false;
      }
    }
    return true;
  }

  void start_unit(IoUnit& u, Phase phase, std::int64_t now) {
    u.op = next_.op;
    u.length = u.total = next_.length;
    u.offset = u.start_offset = next_.offset;
    u.done = 0;
    u.data = buffer_of(u);
    u.issue_ns = now;
    u.verify_read = phase == Phase::verify_read;
    if (phase == Phase::main) issued_ += u.total;
    if (u.op != IoOp::write) return;
    if (spec_.verify) {
      fill_verify_block(u.data, u.total, u.offset);
      const std::uint64_t block = (u.offset - lo_) / u.total;
      written_[block / 64] |= 1ULL << (block % 64);
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

  void fill_verify_block(std::byte* p, std::uint32_t len, std::uint64_t offset) {
    SplitMix gen{seed_ ^ offset};
    for (std::size_t i = kVerifyHeader; i + 8 <= len; i += 8) put64(p + i, gen.next());
    put64(p, kVerifyMagic);
    put64(p + 8, offset);
    put64(p + 16, seed_);
    put64(p + 24, checksum(p + kVerifyHeader, len - kVerifyHeader));
  }

  void check_verify_block(const IoUnit& u) {
    const std::byte* p = buffer_of(u);
    ++out_.verified_blocks;
    const char* what = nullptr;
    if (get64(p) != kVerifyMagic || get64(p + 16) != seed_) what = "verify: block header missing (never written or overwritten)";
    else if (get64(p + 8) != u.start_offset) what = "verify: block carries another offset (misdirected write)";
    else if (get64(p + 24) != checksum(p + kVerifyHeader, u.total - kVerifyHeader)) what = "verify: checksum mismatch";
    if (what == nullptr) return;
    ++out_.verify_failures;
    record_error(u, 0, what);
  }

  void record_error(const IoUnit& u, int err, const char* what) {
    bump(stats_.errors[static_cast<int>(u.op)], 1);
    if (out_.error_samples.size() < kMaxErrorSamples) {
      out_.error_samples.push_back(
          IoErrorRecord{u.op, u.offset, u.length, err, what ? what : std::strerror(err)});
    }
  }

  void complete(const IoCompletion& c) {
    IoUnit& u = *c.unit;
    if (c.result <= 0) {
      // An error never aborts the run: count it with its offset and go on.
      record_error(u, c.result == 0 ? EIO : -c.result,
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
      record_error(u, EAGAIN, "could not resubmit the rest of a short I/O");
      release(u);
      return;
    }
    const auto lat = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c.done_ns - u.issue_ns));
    const int op = static_cast<int>(u.op);
    stats_.latency[op].record(lat);
    bump(stats_.ops[op], 1);
    bump(stats_.bytes[op], u.total);
    const auto sec = static_cast<std::size_t>(std::max<std::int64_t>(0, c.done_ns - run_start_ns_) / 1'000'000'000);
    if (sec >= out_.timeline.size()) out_.timeline.resize(sec + 1);  // once a second
    TimelineOp& t = out_.timeline[sec].op[op];
    ++t.ops;
    t.bytes += u.total;
    t.latency_sum_ns += lat;
    if (u.verify_read) check_verify_block(u);
    release(u);
  }

  void release(IoUnit& u) {
    free_.push_back(&u);
    --inflight_;
  }

  const JobSpec& spec_;
  unsigned index_;
  WorkerStats& stats_;
  const std::atomic<bool>& stop_;
  std::uint64_t seed_;
  SplitMix rng_;
  IoEngine* engine_ = nullptr;

  std::byte* buffers_ = nullptr;
  std::size_t buf_stride_ = 0;
  std::vector<iovec> iovecs_;
  std::vector<IoUnit> units_;
  std::vector<IoUnit*> free_;
  std::vector<IoCompletion> completions_;
  unsigned inflight_ = 0;

  struct Zone {
    std::uint64_t lo, hi;
    std::uint64_t access_upto;  // cumulative share, out of 2^32
  };
  std::vector<Zone> zones_;
  std::uint64_t lo_ = 0, hi_ = 0, cursor_ = 0;
  std::uint64_t budget_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t issued_ = 0;
  std::uint64_t weight_total_ = 0;
  std::uint64_t read_threshold_ = 0;
  std::uint64_t write_count_ = 0;
  std::optional<RateLimiter> iops_limit_;
  std::optional<RateLimiter> bytes_limit_;
  Next next_{};
  bool have_next_ = false;
  std::vector<std::uint64_t> written_;  // verify: one bit per block of this worker's range
  std::uint64_t verify_cursor_ = 0;
  std::int64_t run_start_ns_ = 0;
  WorkerOutput out_;
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
  for (auto& engine : engines) {
    engine = factory_ ? factory_(spec_) : nullptr;
    if (!engine) {
      result.failure = Error{"setup", "no engine \"" + spec_.engine + "\" for " + spec_.target};
      return result;
    }
    real_media = real_media || engine->touches_real_media();
  }
  UniqueFd target;
  if (real_media) {
    if (guard_ == nullptr) {
      result.failure = Error{"refused", spec_.target + ": job on real media without a safety guard"};
      return result;
    }
    if (approved_fd_ >= 0) {
      target = UniqueFd(::fcntl(approved_fd_, F_DUPFD_CLOEXEC, 0));
      if (!target.valid()) {
        result.failure = Error{"io", fmt::format("{}: {}", spec_.target, std::strerror(errno))};
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

  const std::uint64_t seed = static_cast<std::uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count()) ^ 0x5bd1e995ULL;
  std::vector<std::unique_ptr<WorkerStats>> stats;
  std::vector<WorkerOutput> outputs(n);
  for (unsigned i = 0; i < n; ++i) stats.push_back(std::make_unique<WorkerStats>());

  std::atomic<bool> setup_failed{false};
  std::barrier setup_done(static_cast<std::ptrdiff_t>(n));
  std::barrier write_pass_done(static_cast<std::ptrdiff_t>(n), HookStep{&hooks_.after_write_pass});
  std::mutex done_mu;
  std::condition_variable done_cv;
  unsigned finished = 0;

  std::vector<std::thread> threads;
  threads.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      // The default 50 us timer slack lets a worker waiting for its next rate
      // token oversleep by up to 50 us, which a fixed-rate (QoS) run reports
      // as latency: at 20k IOPS QD4 the p50 fell from 55 to 40 us with 1 ns.
      prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
      Worker w(spec_, i, *stats[i], stop_, seed);
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
  std::array<LatencyHistogram, kIoOpCount> previous;
  std::array<std::uint64_t, kIoOpCount> prev_ops{}, prev_bytes{};
  std::int64_t prev_now = 0;
  std::uint64_t intervals = 0;
  LatencyHistogram scratch;
  auto aggregate = [&](bool running) {
    RunSnapshot s;
    s.job = spec_.name;
    s.running = running;
    std::int64_t now = 0;
    for (const auto& st : stats) now = std::max(now, st->now_ns.load(std::memory_order_relaxed));
    const double dt = prev_now > 0 ? static_cast<double>(now - prev_now) * 1e-9 : 0.0;
    for (int op = 0; op < kIoOpCount; ++op) {
      RunSnapshot::Op& o = s.op[op];
      for (const auto& st : stats) {
        st->latency[op].snapshot(scratch);
        o.latency.merge(scratch);
        o.ops += st->ops[op].load(std::memory_order_relaxed);
        o.bytes += st->bytes[op].load(std::memory_order_relaxed);
        o.errors += st->errors[op].load(std::memory_order_relaxed);
      }
      o.interval_latency = o.latency;
      o.interval_latency.subtract(previous[op]);
      previous[op] = o.latency;
      if (dt > 0) {
        o.iops = static_cast<double>(o.ops - prev_ops[op]) / dt;
        o.bytes_per_second = static_cast<double>(o.bytes - prev_bytes[op]) / dt;
      }
      prev_ops[op] = o.ops;
      prev_bytes[op] = o.bytes;
    }
    if (dt > 0) {
      s.intervals = ++intervals;
      s.interval_end_ns = now;
      s.interval = Duration(now - prev_now);
    } else {
      s.intervals = intervals;
    }
    if (now > 0) prev_now = now;
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

  for (int op = 0; op < kIoOpCount; ++op) {
    OpTotals& t = result.op[op];
    for (const auto& st : stats) {
      st->latency[op].snapshot(scratch);
      t.latency.merge(scratch);
      t.ops += st->ops[op].load();
      t.bytes += st->bytes[op].load();
      t.errors += st->errors[op].load();
    }
  }
  for (auto& o : outputs) {
    if (o.failure && !result.failure) result.failure = o.failure;
    result.elapsed = std::max(result.elapsed, Duration(o.main_elapsed_ns));
    result.short_ios += o.short_ios;
    result.verified_blocks += o.verified_blocks;
    result.verify_failures += o.verify_failures;
    for (auto& e : o.error_samples) result.error_samples.push_back(std::move(e));
    if (o.timeline.size() > result.timeline.size()) result.timeline.resize(o.timeline.size());
    for (std::size_t s = 0; s < o.timeline.size(); ++s) {
      for (int op = 0; op < kIoOpCount; ++op) {
        TimelineOp& dst = result.timeline[s].op[op];
        const TimelineOp& src = o.timeline[s].op[op];
        dst.ops += src.ops;
        dst.bytes += src.bytes;
        dst.latency_sum_ns += src.latency_sum_ns;
      }
    }
  }
  return result;
}

EngineFactory default_engine_factory() {
  return [](const JobSpec& spec) -> std::unique_ptr<IoEngine> {
    if (spec.engine == "io_uring") return std::make_unique<UringEngine>();
    return nullptr;
  };
}

std::optional<Error> prepare_file_target(const std::string& path, std::uint64_t size) {
  if (size == 0) return std::nullopt;
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"io", fmt::format("creating {}: {}", path, std::strerror(errno))};
  std::optional<Error> err;
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < size) {
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      err = Error{"io", fmt::format("extending {} to {} bytes: {}", path, size, std::strerror(errno))};
    }
  }
  ::close(fd);
  return err;
}

}  // namespace nvmond
