#include "sim/drive_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/drive_model_detail.hpp"

// The drive's physics: time integration (heat, SLC cache, garbage
// collection, background load) and the host I/O it serves. SMART/OCP pages:
// drive_model_pages.cpp; faults: drive_model_faults.cpp; saved state:
// drive_model_state.cpp.
namespace nvmond {

using sim_detail::to_kelvin;

namespace {

constexpr double kGB = 1e9;
// Reads move less data through the controller's write path (no program
// operations): they heat the drive about half as much per byte.
constexpr double kReadHeatWeight = 0.5;
// The drive folds SLC into TLC only after the host has been quiet this long.
constexpr Duration kFoldIdle = std::chrono::seconds(1);
// Random writes fall off the FOB level from 1× to 2× capacity written
// since the last purge (SNIA WSAT curves reach steady state within ~2-3×).
constexpr double kGcCliffStart = 1.0;
constexpr double kGcCliffWidth = 1.0;
// Background garbage collection starts once the host has been idle this long.
constexpr Duration kGcIdle = std::chrono::seconds(1);
// The transfer the drive's random write IOPS are rated at.
constexpr double kRatedWriteBytes = 4096;
// Largest integration step: small against τ so throttle transitions and time
// above thresholds are resolved, and never above 10 s.
constexpr Duration kMaxStep = std::chrono::seconds(10);

// Bytes emitted by a constant rate from 0 to `ns`, rounded, so that any split
// of the same span emits the same total.
std::uint64_t emitted(double bytes_per_s, std::int64_t ns) {
  return static_cast<std::uint64_t>(std::llround(bytes_per_s * static_cast<double>(ns) / 1e9));
}

// Nearest nanosecond: truncation would bias every throughput upwards.
Duration to_duration(double s) { return Duration(std::llround(s * 1e9)); }

}  // namespace

DriveModel::DriveModel(SimDriveSpec spec, WallTime start)
    : spec_(std::move(spec)),
      heat_capacity_j_per_c_(seconds(spec_.thermal_time_constant) / spec_.thermal_resistance_c_per_w),
      now_(start),
      valid_(spec_.capacity_bytes),
      fault_(spec_.fault) {
  p_.temp_c = spec_.ambient_c + spec_.idle_power_w * spec_.thermal_resistance_c_per_w;
  p_.last_io = start - std::chrono::hours(1);
  thresholds_.over_k[0] = to_kelvin(spec_.warning_temp_c);
  thresholds_.under_k[0] = 0;
  for (int i = 1; i <= spec_.sensors; ++i) {
    thresholds_.over_k[i] = 0xFFFF;  // NVMe default: sensor thresholds disabled
    thresholds_.under_k[i] = 0;
  }
  update_level_locked();
  record_event_locked({.type = static_cast<std::uint8_t>(PelEventType::power_on_reset), .at = start});
  events_.hot = p_.temp_c >= spec_.warning_temp_c;
  if (fault_ == SimFault::stuck_temperature) stuck_temp_c_ = p_.temp_c;
}

// ---- time ----------------------------------------------------------------

void DriveModel::advance_to(WallTime t) {
  std::lock_guard lock(mu_);
  advance_locked(t);
}

void DriveModel::idle_to(WallTime t) {
  std::lock_guard lock(mu_);
  host_idle_ = true;
  advance_locked(t);
  host_idle_ = false;
}

void DriveModel::advance_locked(WallTime t) {
  Duration max_step = std::min<Duration>(kMaxStep, spec_.thermal_time_constant / 20);
  if (max_step <= Duration::zero()) max_step = Duration(1);
  while (now_ < t) {
    Duration dt = std::min<Duration>(std::chrono::duration_cast<Duration>(t - now_), max_step);
    step_locked(dt);
    now_ += std::chrono::duration_cast<WallTime::duration>(dt);
  }
  finish_self_test_locked();
}

void DriveModel::step_locked(Duration dt) {
  const double dt_s = seconds(dt);
  const WallTime start = now_;
  const WallTime end = now_ + std::chrono::duration_cast<WallTime::duration>(dt);

  // Accounting over the step uses the state at its start.
  if (p_.temp_c >= spec_.critical_temp_c) c_.thermal.critical_temp_s += dt_s;
  else if (p_.temp_c >= spec_.warning_temp_c) c_.thermal.warning_temp_s += dt_s;
  // Many consumer drives throttle without counting it (tmt_counters = false).
  if (spec_.tmt_counters && p_.level == 1) c_.thermal.tmt1_s += dt_s;
  else if (spec_.tmt_counters && p_.level >= 2) c_.thermal.tmt2_s += dt_s;
  c_.power_on_ns += static_cast<u128>(dt.count());

  // Background load: tenant traffic, slowed by a throttle as the host's I/O
  // is (background_write_rate_locked). Its clock runs at the slowed share of
  // the configured rate, so the bytes it emits stay exact over any split.
  const std::int64_t before = p_.background_elapsed_ns;
  const double wrate = spec_.background_write_bytes_per_s;
  const double rrate = spec_.background_read_bytes_per_s;
  const double pace = wrate > 0 ? background_write_rate_locked() / wrate : 1.0;
  p_.background_elapsed_ns += pace >= 1.0 ? dt.count() : std::llround(static_cast<double>(dt.count()) * pace);
  if (wrate > 0) {
    std::uint64_t w = emitted(wrate, p_.background_elapsed_ns) - emitted(wrate, before);
    c_.host_write_bytes += w;
    c_.background_write_bytes += w;
    c_.media_write_bytes += w;  // streamed, WAF 1
    p_.written_since_purge += w;
    // Tenants write all over the drive.
    valid_.write_spread({0, spec_.capacity_bytes}, static_cast<double>(w));
    c_.busy_ns += static_cast<u128>(static_cast<double>(w) / spec_.max_write_bytes_per_s * 1e9);
  }
  if (rrate > 0) {
    std::uint64_t r = emitted(rrate, p_.background_elapsed_ns) - emitted(rrate, before);
    c_.host_read_bytes += r;
    c_.background_read_bytes += r;
    c_.busy_ns += static_cast<u128>(static_cast<double>(r) / spec_.max_read_bytes_per_s * 1e9);
  }

  // Exact solution of dT/dt = (ambient + P·R − T)/τ for constant P.
  const double power = spec_.idle_power_w + spec_.power_per_gbps_w * pace * (wrate + kReadHeatWeight * rrate) / kGB;
  const double target = spec_.ambient_c + power * spec_.thermal_resistance_c_per_w;
  p_.temp_c = target + (p_.temp_c - target) * std::exp(-dt_s / seconds(spec_.thermal_time_constant));
  max_temp_c_ = std::max(max_temp_c_, p_.temp_c);

  // SLC folding once the host has been quiet for a moment.
  if (spec_.slc_cache_bytes > 0 && p_.slc_used > 0) {
    WallTime fold_from = std::max(start, p_.last_io + std::chrono::duration_cast<WallTime::duration>(kFoldIdle));
    if (end > fold_from) {
      double folded = spec_.post_cache_write_bytes_per_s * seconds(end - fold_from);
      p_.slc_used -= std::min<std::uint64_t>(p_.slc_used, static_cast<std::uint64_t>(folded));
    }
  }
  // Garbage collection while the host is idle (a declared idle, idle_to);
  // a drive under a background load (tenant traffic) never is.
  const WallTime gc_from = std::max(start, p_.last_io + std::chrono::duration_cast<WallTime::duration>(kGcIdle));
  if (host_idle_ && end > gc_from && wrate <= 0 && rrate <= 0) reclaim_while_idle_locked(seconds(end - gc_from));
  update_level_locked();
  note_thermal_events_locked(end);
}

// The smallest model of host idle recovery: while the host is idle the
// garbage collection goes on at the pace it keeps under steady random writes
// (it frees room for steady_random_write_iops x 4 KiB of host writes per
// second, copying (A - 1) bytes of valid data for each byte it frees, as it
// would in the foreground), up to all the spare the valid data leaves. Host
// random writes then spend that room at the fresh-out-of-box rate and at
// write amplification 1 before the foreground collection comes back. A drive
// fresh out of box, or one whose writes need no collection, gains nothing.
void DriveModel::reclaim_while_idle_locked(double idle_s) {
  const double g = gc_progress_locked();
  const double waf = write_amplification_locked(false);
  if (g <= 0 || waf <= 1.0 || idle_s <= 0) return;
  const double capacity = static_cast<double>(spec_.capacity_bytes);
  const double physical = capacity * (1.0 + 1.0 / (2.0 * spec_.steady_write_amplification - 1.0));
  const double room = std::max(0.0, physical - valid_.valid_bytes());
  const double rate = random_write_iops_locked() * kRatedWriteBytes;
  const double freed = std::min(room - std::min(room, p_.gc_reserve), rate * idle_s);
  if (freed <= 0) return;
  p_.gc_reserve += freed;
  double media = freed * (waf - 1.0) + c_.media_write_fraction;
  const double whole = std::floor(media);
  c_.media_write_bytes += static_cast<u128>(whole);
  c_.media_write_fraction = media - whole;
}

double DriveModel::idle_gc_reserve_bytes() const {
  std::lock_guard lock(mu_);
  return p_.gc_reserve;
}

void DriveModel::update_level_locked() {
  const int n = static_cast<int>(spec_.throttle.size());
  const int old = p_.level;
  int level = old;
  while (level < n && p_.temp_c >= spec_.throttle[level].at_c) ++level;
  while (level > 0 && p_.temp_c < spec_.throttle[level - 1].at_c - spec_.hysteresis_c) --level;
  for (int l = old + 1; l <= level; ++l) {
    if (l == 1) {
      if (spec_.tmt_counters) ++c_.thermal.tmt1_transitions;
      ++c_.throttle_events;
    }
    if (l == 2 && spec_.tmt_counters) ++c_.thermal.tmt2_transitions;
  }
  p_.level = level;
}

void DriveModel::resume_at(WallTime t) {
  std::lock_guard lock(mu_);
  if (t < now_) {
    now_ = t;
    p_.last_io = std::min(p_.last_io, t);
  }
}

WallTime DriveModel::now() const {
  std::lock_guard lock(mu_);
  return now_;
}

// ---- I/O -----------------------------------------------------------------

double DriveModel::write_cap_locked() const {
  if (p_.level == 0) return std::numeric_limits<double>::infinity();
  return spec_.throttle[static_cast<std::size_t>(p_.level - 1)].write_bytes_per_s;
}

// A throttle caps all the drive's writes, the tenants' and the host's
// together, as a drive slowing its media does: the background keeps its rate
// up to half the cap, and the host's writes get the rest, so neither starves.
// Without it a background load could hold a throttled drive at its critical
// temperature.
double DriveModel::background_write_rate_locked() const {
  return std::min(spec_.background_write_bytes_per_s, write_cap_locked() / 2);
}

double DriveModel::host_write_cap_locked() const {
  return write_cap_locked() - background_write_rate_locked();  // inf while not throttled
}

double DriveModel::read_scale_locked() const { return std::min(1.0, write_cap_locked() / spec_.max_write_bytes_per_s); }

// The free blocks a purge leaves last until about the drive's capacity is
// written, whatever range the host writes; the garbage collection then
// settles over about one more capacity.
double DriveModel::gc_progress_locked() const {
  double written = to_double(p_.written_since_purge) / static_cast<double>(spec_.capacity_bytes);
  return std::clamp((written - kGcCliffStart) / kGcCliffWidth, 0.0, 1.0);
}

// Greedy garbage collection under uniform random writes amplifies about
// A = (1 + rho) / (2 rho), rho = (physical - valid) / valid the effective
// spare factor (Agarwal & Marrow, "A closed-form expression for write
// amplification in NAND flash", IEEE GLOBECOM Workshops 2010; Xiang &
// Kurkoski, ICNC 2012, find it a little low at small spare). The spec's
// steady WAF is A with every LBA valid: it gives the factory spare, hence
// the physical capacity. LBAs that hold no valid data (never written since
// the purge, or deallocated) are spare too.
double DriveModel::op_waf_locked() const {
  const double waf = spec_.steady_write_amplification;
  if (waf <= 1.0) return waf;
  const double capacity = static_cast<double>(spec_.capacity_bytes);
  const double physical = capacity * (1.0 + 1.0 / (2.0 * waf - 1.0));
  const double valid = valid_.valid_bytes();
  if (valid <= 0) return 1.0;
  const double rho = (physical - valid) / valid;
  return std::max(1.0, (1.0 + rho) / (2.0 * rho));
}

double DriveModel::random_write_iops_locked() const {
  double g = gc_progress_locked();
  const double waf = spec_.steady_write_amplification;
  const double steady =
      waf > 1.0 ? spec_.steady_random_write_iops * waf / op_waf_locked() : spec_.steady_random_write_iops;
  return spec_.random_write_iops + (std::min(steady, spec_.random_write_iops) - spec_.random_write_iops) * g;
}

double DriveModel::write_amplification_locked(bool sequential) const {
  if (sequential) return 1.0;
  return 1.0 + (op_waf_locked() - 1.0) * gc_progress_locked();
}

double DriveModel::write_seconds_locked(std::uint64_t bytes, std::uint64_t count, bool sequential,
                                        std::uint64_t slc_used) const {
  const double cap = host_write_cap_locked();
  double t = 0;
  std::uint64_t rest = bytes * count;
  if (spec_.slc_cache_bytes > 0 && slc_used < spec_.slc_cache_bytes) {
    std::uint64_t cached = std::min<std::uint64_t>(rest, spec_.slc_cache_bytes - slc_used);
    t += static_cast<double>(cached) / std::min(spec_.max_write_bytes_per_s, cap);
    rest -= cached;
  }
  if (rest > 0) {
    double bw = spec_.slc_cache_bytes > 0 ? spec_.post_cache_write_bytes_per_s : spec_.max_write_bytes_per_s;
    t += static_cast<double>(rest) / std::min(bw, cap);
  }
  if (!sequential) {
    // Commands the idle collection made room for go at the FOB rate.
    const double room = std::min(static_cast<double>(count), std::floor(p_.gc_reserve / static_cast<double>(bytes)));
    const double others = static_cast<double>(count) - room;
    t = std::max(t, room / spec_.random_write_iops + others / random_write_iops_locked());
  }
  return t;
}

double DriveModel::read_seconds_locked(std::uint64_t bytes, std::uint64_t count, bool sequential) const {
  double t = static_cast<double>(bytes * count) / (spec_.max_read_bytes_per_s * read_scale_locked());
  if (!sequential) t = std::max(t, static_cast<double>(count) / spec_.random_read_iops);
  return t;
}

void DriveModel::account_locked(IoOp kind, std::uint64_t bytes, std::uint64_t count, bool sequential,
                                Duration service) {
  const std::uint64_t total = bytes * count;
  if (kind == IoOp::write) {
    double waf = write_amplification_locked(sequential);
    if (!sequential && p_.gc_reserve > 0) {
      // The idle collection already paid the copies of the room it made.
      const double spent = std::min(p_.gc_reserve, static_cast<double>(total));
      p_.gc_reserve -= spent;
      waf = 1.0 + (waf - 1.0) * (1.0 - spent / static_cast<double>(std::max<std::uint64_t>(total, 1)));
    }
    if (spec_.slc_cache_bytes > 0) {
      p_.slc_used +=
          std::min<std::uint64_t>(total, spec_.slc_cache_bytes - std::min(p_.slc_used, spec_.slc_cache_bytes));
    }
    c_.host_write_bytes += total;
    c_.write_commands += count;
    p_.written_since_purge += total;
    double media = static_cast<double>(total) * waf + c_.media_write_fraction;
    double whole = std::floor(media);
    c_.media_write_bytes += static_cast<u128>(whole);
    c_.media_write_fraction = media - whole;
  } else {
    c_.host_read_bytes += total;
    c_.read_commands += count;
  }
  c_.busy_ns += static_cast<u128>(service.count());
  p_.last_io = now_;
  add_heat_locked(static_cast<double>(total), kind);
  update_level_locked();
}

void DriveModel::add_heat_locked(double bytes, IoOp kind) {
  double weight = kind == IoOp::read ? kReadHeatWeight : 1.0;
  double joules = spec_.power_per_gbps_w * weight * bytes / kGB;
  p_.temp_c += joules / heat_capacity_j_per_c_;
}

Duration DriveModel::io(IoOp kind, std::uint64_t bytes, bool sequential) {
  return io_batch(kind, bytes, 1, sequential);
}

Duration DriveModel::io_at(IoOp kind, std::uint64_t offset, std::uint64_t bytes, bool sequential) {
  std::lock_guard lock(mu_);
  const Duration service = io_locked(kind, bytes, 1, sequential);
  if (kind == IoOp::write) valid_.write_extent(offset, bytes);
  return service;
}

Duration DriveModel::io_batch(IoOp kind, std::uint64_t bytes, std::uint64_t count, bool sequential) {
  std::lock_guard lock(mu_);
  const Duration service = io_locked(kind, bytes, count, sequential);
  const bool wrote = kind == IoOp::write && bytes > 0 && count > 0;
  if (wrote && valid_.valid_bytes() < static_cast<double>(spec_.capacity_bytes)) valid_.fill();
  return service;
}

Duration DriveModel::io_batch_sequential(IoOp kind, std::uint64_t bytes, std::uint64_t count, LbaRange range,
                                         std::uint64_t at) {
  std::lock_guard lock(mu_);
  const Duration service = io_locked(kind, bytes, count, true);
  if (kind != IoOp::write || range.bytes() == 0) return service;
  const std::uint64_t whole = range.bytes();
  const std::uint64_t total = bytes * count;
  const std::uint64_t pos = range.lo + (at >= range.lo ? (at - range.lo) % whole : 0);
  if (total >= whole) {
    valid_.write_extent(range.lo, whole);
    // The stream goes on from where its last pass ends.
    valid_.write_extent(range.lo, (pos - range.lo + total) % whole);
    return service;
  }
  const std::uint64_t first = std::min(total, range.hi - pos);
  valid_.write_extent(pos, first);
  if (total > first) valid_.write_extent(range.lo, total - first);
  return service;
}

Duration DriveModel::io_batch_random(IoOp kind, std::uint64_t bytes, std::uint64_t count,
                                     std::span<const RandomZone> zones) {
  std::lock_guard lock(mu_);
  const Duration service = io_locked(kind, bytes, count, false);
  if (kind != IoOp::write) return service;
  const double total = static_cast<double>(bytes) * static_cast<double>(count);
  for (const RandomZone& z : zones) valid_.write_spread(z.range, total * z.share);
  return service;
}

Duration DriveModel::io_locked(IoOp kind, std::uint64_t bytes, std::uint64_t count, bool sequential) {
  Duration service{};
  if (bytes > 0 && count > 0) {
    service = to_duration(kind == IoOp::write ? write_seconds_locked(bytes, count, sequential, p_.slc_used)
                                              : read_seconds_locked(bytes, count, sequential));
  }
  account_locked(kind, bytes, count, sequential, service);
  return service;
}

Duration DriveModel::service_time(IoOp kind, std::uint64_t bytes, bool sequential) const {
  std::lock_guard lock(mu_);
  if (bytes == 0) return Duration::zero();
  return to_duration(kind == IoOp::write ? write_seconds_locked(bytes, 1, sequential, p_.slc_used)
                                         : read_seconds_locked(bytes, 1, sequential));
}

void DriveModel::deallocate(LbaRange range) {
  std::lock_guard lock(mu_);
  valid_.deallocate(range);
}

double DriveModel::valid_share(LbaRange range) const {
  std::lock_guard lock(mu_);
  return valid_.valid_share(range);
}

void DriveModel::purge() {
  std::lock_guard lock(mu_);
  p_.slc_used = 0;
  p_.gc_reserve = 0;
  p_.written_since_purge = 0;
  valid_.clear();
}

Duration DriveModel::access_latency(IoOp kind) const {
  return kind == IoOp::read ? spec_.read_latency : spec_.write_latency;
}

}  // namespace nvmond
