#pragma once
// What one worker issues next: its share of the job's range, the op mix,
// block sizes, offsets (sequential, random, zoned), the byte budget, the rate
// admission and, for verify jobs, the bitmap of blocks written and the read
// pass over them. Pure and seedable: the same spec, worker index and seed
// plan the same I/O; it does no I/O and reads no clock (callers pass `now`).
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "workloads/io_engine.hpp"
#include "workloads/job_spec.hpp"
#include "workloads/rate_limiter.hpp"
#include "workloads/split_mix.hpp"

namespace nvmond {

enum class Phase { main, verify_read };

struct PlannedIo {
  IoOp op;
  std::uint32_t length;
  std::uint64_t offset;
};

class IoPlanner {
 public:
  IoPlanner(const JobSpec& spec, unsigned index, std::uint64_t seed)
      : spec_(spec), index_(index), rng_{seed ^ (0x1234567ULL * (index + 1))} {}

  // This worker's share of a target of `target_size` bytes; an error when the
  // job's range does not fit it. The range is cut into whole blocks of the
  // largest size and the workers' shares differ by one block at most, so
  // together they cover every whole block of it.
  std::optional<Error> plan_range(std::uint64_t target_size);
  // The start of a pass: the verify cursor rewinds; the sequential cursor
  // starts where the spec's sequential_start puts this worker, else at the
  // start of its share.
  void start(Phase phase);
  // Where this worker's sequential stream goes on: the offset of the next
  // I/O it would issue (a planned one not issued included).
  std::uint64_t sequential_next() const { return have_next_ ? next_.offset : cursor_; }
  // Plans the next I/O unless one is planned and not yet taken; false when
  // the pass has nothing more to issue.
  bool plan_next(Phase phase);
  // Rate limits: false (and how long to wait) when the next I/O must wait.
  bool admit(std::int64_t now, Duration& wait);
  const PlannedIo& next() const { return next_; }
  bool has_next() const { return have_next_; }
  // The planned I/O was issued: counts against the budget (main pass) and,
  // for a verify write, marks its block written.
  void take(Phase phase, bool verify_write);
  // The worker's random stream (buffer contents come from it too).
  SplitMix& rng() { return rng_; }

 private:
  struct Zone {
    std::uint64_t lo, hi;
    std::uint64_t access_upto;  // cumulative share, out of 2^32
  };
  void plan_zones(std::uint64_t range_lo, std::uint64_t range_hi, std::uint64_t align);
  // A random offset for a `bs`-byte I/O within [lo, hi).
  std::uint64_t random_offset(std::uint64_t lo, std::uint64_t hi, std::uint32_t bs);

  const JobSpec& spec_;
  unsigned index_;
  SplitMix rng_;
  std::vector<Zone> zones_;
  std::uint64_t lo_ = 0, hi_ = 0, cursor_ = 0;
  std::uint64_t budget_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t issued_ = 0;
  std::uint64_t weight_total_ = 0;
  std::uint64_t read_threshold_ = 0;
  std::optional<RateLimiter> iops_limit_;
  std::optional<RateLimiter> bytes_limit_;
  PlannedIo next_{};
  bool have_next_ = false;
  std::vector<std::uint64_t> written_;  // verify: one bit per block of this worker's range
  std::uint64_t verify_cursor_ = 0;
};

}  // namespace nvmond
