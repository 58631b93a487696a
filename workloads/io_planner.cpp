#include "workloads/io_planner.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace nvmond {
namespace {

constexpr Duration kCatchUp = std::chrono::seconds(1);

}  // namespace

std::optional<Error> IoPlanner::plan_range(std::uint64_t target_size) {
  if (spec_.offset >= target_size) {
    return Error{ErrorReason::setup,
                 fmt::format("{}: offset {} is beyond the target's {} bytes", spec_.target, spec_.offset, target_size)};
  }
  // The read-back bitmap covers a worker's own share; zones draw from the
  // whole range, so a verified job with zones would mark blocks outside it.
  if (spec_.verify && !spec_.zones.empty()) {
    return Error{ErrorReason::setup, fmt::format("{}: a verified job cannot have access zones", spec_.target)};
  }
  const std::uint64_t len = spec_.size ? spec_.size : target_size - spec_.offset;
  if (spec_.offset + len > target_size) {
    return Error{ErrorReason::setup, fmt::format("{}: offset+size {} is beyond the target's {} bytes", spec_.target,
                                                 spec_.offset + len, target_size)};
  }
  const std::uint64_t align = std::max<std::uint64_t>(spec_.max_block_size(), spec_.block_align);
  const std::uint64_t blocks = len / align;
  const std::uint64_t each = blocks / spec_.threads;
  if (each == 0) {
    return Error{ErrorReason::setup, fmt::format("{}: range of {} bytes is too small for {} threads of {} byte blocks",
                                                 spec_.target, len, spec_.threads, align)};
  }
  // The first blocks % threads workers take one block more: no whole block
  // of the range is left to nobody.
  const std::uint64_t extra = blocks % spec_.threads;
  lo_ = spec_.offset + align * (each * index_ + std::min<std::uint64_t>(index_, extra));
  hi_ = lo_ + align * (each + (index_ < extra ? 1 : 0));
  std::uint64_t total_budget = std::numeric_limits<std::uint64_t>::max();
  if (spec_.bytes) total_budget = *spec_.bytes;
  else if (!spec_.runtime) total_budget = len;  // neither: one pass over the range
  if (total_budget != std::numeric_limits<std::uint64_t>::max()) {
    budget_ = total_budget / spec_.threads + (index_ == 0 ? total_budget % spec_.threads : 0);
  }
  if (spec_.pattern == AccessPattern::sequential && index_ < spec_.worker_bytes.size()) {
    budget_ = spec_.worker_bytes[index_];
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
  if (spec_.verify) written_.assign(((hi_ - lo_) / align + 63) / 64, 0);
  plan_zones(spec_.offset, spec_.offset + len, align);
  return std::nullopt;
}

// Zone bounds in bytes of the job's whole range, not of this worker's share:
// the hot 5 % of a CBW is the first 5 % of the drive, whatever the thread
// count (per-share zones would make it `threads` stripes spread over it).
// Cumulative access shares are out of 2^32 (one draw picks the zone).
void IoPlanner::plan_zones(std::uint64_t range_lo, std::uint64_t range_hi, std::uint64_t align) {
  double start = 0, access = 0;
  const auto span = static_cast<double>(range_hi - range_lo);
  for (const auto& z : spec_.zones) {
    const double end = std::min(100.0, start + z.range_pct);
    const std::uint64_t zlo = range_lo + static_cast<std::uint64_t>(span * start / 100.0) / align * align;
    const std::uint64_t zhi = range_lo + static_cast<std::uint64_t>(span * end / 100.0) / align * align;
    access += z.access_pct;
    if (zhi > zlo)
      zones_.push_back(Zone{zlo, zhi, static_cast<std::uint64_t>(std::min(access, 100.0) / 100.0 * 4294967295.0)});
    start = end;
  }
}

void IoPlanner::start(Phase phase) {
  if (phase == Phase::main) {
    cursor_ = lo_;
    if (index_ < spec_.sequential_start.size()) {
      const std::uint64_t at = spec_.sequential_start[index_];
      if (at >= lo_ && at < hi_) cursor_ = at;
    }
  } else {
    verify_cursor_ = 0;
  }
}

bool IoPlanner::plan_next(Phase phase) {
  if (have_next_) return true;
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
      next_ = PlannedIo{IoOp::read, static_cast<std::uint32_t>(bs), lo_ + verify_cursor_ * bs};
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
    off = random_offset(z->lo, z->hi, bs);
  } else if (spec_.pattern == AccessPattern::random) {
    off = random_offset(lo_, hi_, bs);
  } else {
    if (cursor_ + bs > hi_) cursor_ = lo_;
    off = cursor_;
    cursor_ += bs;
  }
  next_ = PlannedIo{op, bs, off};
  have_next_ = true;
  return true;
}

std::uint64_t IoPlanner::random_offset(std::uint64_t lo, std::uint64_t hi, std::uint32_t bs) {
  const std::uint64_t align = spec_.block_align ? spec_.block_align : bs;
  // Every aligned start whose I/O ends inside [lo, hi); lo is aligned (a
  // multiple of the largest block size, itself one of the alignment).
  const std::uint64_t starts = hi - lo >= bs ? (hi - lo - bs) / align + 1 : 1;
  return lo + rng_.below(starts) * align;
}

// Rate limits: false (and how long to wait) when the next I/O must wait.
bool IoPlanner::admit(std::int64_t now, Duration& wait) {
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

void IoPlanner::take(Phase phase, bool verify_write) {
  if (phase == Phase::main) issued_ += next_.length;
  if (verify_write) {
    const std::uint64_t block = (next_.offset - lo_) / next_.length;
    written_[block / 64] |= 1ULL << (block % 64);
  }
  have_next_ = false;
}

}  // namespace nvmond
