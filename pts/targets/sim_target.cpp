#include "pts/targets/sim_target.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/log.hpp"
#include "collectors/sim_name.hpp"
#include "pts/run_header.hpp"

namespace nvmond {

namespace {

constexpr Duration kSlice = std::chrono::milliseconds(100);

// One kind of command of an element: its share of the commands and its
// service and access time in the current slice.
struct CommandClass {
  IoOp kind;
  std::uint64_t bytes;
  double share;
  double service_s = 0;
  double access_s = 0;
  double carry = 0;  // fractional commands carried to the next slice
};

std::vector<CommandClass> classes_of(const Element& e) {
  double total_weight = 0;
  for (const auto& b : e.block_sizes) total_weight += b.weight;
  std::vector<CommandClass> out;
  for (const auto& b : e.block_sizes) {
    const double w = b.weight / total_weight;
    if (e.read_pct > 0) out.push_back({IoOp::read, b.bytes, w * e.read_pct / 100.0});
    if (e.read_pct < 100) out.push_back({IoOp::write, b.bytes, w * (100.0 - e.read_pct) / 100.0});
  }
  return out;
}

// Where an element's random commands land: its zones laid out from the
// range's start, or the whole range.
std::vector<DriveModel::RandomZone> random_zones(const Element& e, std::uint64_t range_bytes) {
  if (e.zones.empty()) return {{LbaRange{0, range_bytes}, 1.0}};
  double total_access = 0;
  for (const auto& z : e.zones) total_access += z.access_pct;
  std::vector<DriveModel::RandomZone> out;
  double from_pct = 0;
  for (const auto& z : e.zones) {
    const auto lo = static_cast<std::uint64_t>(from_pct / 100.0 * static_cast<double>(range_bytes));
    from_pct = std::min(100.0, from_pct + z.range_pct);
    const auto hi = static_cast<std::uint64_t>(from_pct / 100.0 * static_cast<double>(range_bytes));
    out.push_back({LbaRange{lo, hi}, total_access > 0 ? z.access_pct / total_access : 0.0});
  }
  return out;
}

}  // namespace

SimTarget::SimTarget(std::shared_ptr<DriveModel> model, const Clock* pace) : model_(std::move(model)), pace_(pace) {}

void SimTarget::stop() {
  std::lock_guard lock(pace_mu_);
  stop_.store(true);
  pace_cv_.notify_all();
}

bool SimTarget::wait_for_clock(WallTime t) {
  std::unique_lock lock(pace_mu_);
  while (!stop_.load()) {
    const auto ahead = std::chrono::duration_cast<Duration>(t - pace_->wall());
    if (ahead <= Duration::zero()) return true;
    pace_cv_.wait_for(lock, pace_->to_real(ahead));
  }
  return false;
}

TargetRecord SimTarget::identity() const {
  const auto& s = model_->spec();
  TargetRecord t;
  t.path = sim_device_path(s.name);
  t.serial = s.serial;
  t.model = s.model;
  t.firmware = s.firmware;
  t.capacity_bytes = s.capacity_bytes;
  // 0: the profile has no such rating (a TBW-rated one has no DWPD): unknown.
  if (const double bytes = rated_endurance_bytes(s); bytes > 0) t.rated_endurance_bytes = bytes;
  if (s.endurance.rated_dwpd > 0) t.rated_dwpd = s.endurance.rated_dwpd;
  t.warning_temp_c = s.warning_temp_c;
  t.critical_temp_c = s.critical_temp_c;
  return t;
}

Result<PurgeRecord> SimTarget::purge() {
  model_->purge();
  return PurgeRecord{"format", "simulated drive: NVMe Format (user data erase), back to fresh-out-of-box"};
}

std::optional<SmartRecord> SimTarget::health() {
  return smart_record(model_->now(), model_->composite_celsius(), model_->smart(), model_->ocp_latency_monitor());
}

std::optional<Error> SimTarget::idle(Duration d) {
  model_->advance_to(now());
  const WallTime end = model_->now() + std::chrono::duration_cast<WallTime::duration>(d);
  if (pace_ != nullptr && !wait_for_clock(end)) return std::nullopt;
  if (stop_.load()) return std::nullopt;
  model_->idle_to(end);
  return std::nullopt;
}

std::optional<Error> SimTarget::restore(const std::string& state) { return model_->load_state(state); }

// The model runs an element's sequential writes as one stream, whatever its
// threads: the cursor is that stream's offset in the range.
Result<Measurement> SimTarget::run(const Element& e, std::uint64_t range_bytes, std::optional<std::uint64_t> max_bytes,
                                   const SequentialCursor& from) {
  if (e.pattern != AccessPattern::sequential || range_bytes == 0) {
    return run_from(e, range_bytes, max_bytes, 0);
  }
  const std::uint64_t start = from.empty() ? 0 : from.front() % range_bytes;
  auto m = run_from(e, range_bytes, max_bytes, start);
  if (m) m->cursor = {(start + m->op[0].bytes + m->op[1].bytes) % range_bytes};
  return m;
}

Result<Measurement> SimTarget::run_from(const Element& e, std::uint64_t range_bytes,
                                        std::optional<std::uint64_t> max_bytes, std::uint64_t sequential_offset) {
  Measurement m;
  const bool sequential = e.pattern == AccessPattern::sequential;
  const double in_flight = static_cast<double>(e.threads) * e.queue_depth;
  std::vector<CommandClass> classes = classes_of(e);
  double bytes_per_command = 0;
  for (const auto& c : classes) bytes_per_command += c.share * static_cast<double>(c.bytes);
  const LbaRange range{0, range_bytes};
  const std::vector<DriveModel::RandomZone> zones = random_zones(e, range_bytes);
  std::uint64_t cursor = range_bytes > 0 ? sequential_offset % range_bytes : 0;
  // `n` commands of class `c`, placed where the element's pattern puts them.
  auto issue = [&](const CommandClass& c, std::uint64_t n) {
    if (!sequential) return model_->io_batch_random(c.kind, c.bytes, n, zones);
    const Duration d = model_->io_batch_sequential(c.kind, c.bytes, n, range, cursor);
    if (range_bytes > 0) cursor = (cursor + c.bytes * n % range_bytes) % range_bytes;
    return d;
  };
  // Paced by a clock, the run starts when the clock says (now()), not where
  // the model was last advanced to (up to a poll interval back): the drive
  // idled until then, and starting earlier would run slices the clock has
  // already passed unpaced. Unpaced, now() is the model's time: no step.
  model_->advance_to(now());

  const WallTime start = model_->now();
  const WallTime end = start + std::chrono::duration_cast<WallTime::duration>(e.duration);
  const Duration slice = std::min(kSlice, std::max<Duration>(e.duration / 20, Duration(1'000'000)));
  std::uint64_t written = 0;
  WallTime t = start;
  auto sample_temperature = [&] {
    const double c = model_->composite_celsius();
    m.temp_min_c = std::min(m.temp_min_c.value_or(c), c);
    m.temp_max_c = std::max(m.temp_max_c.value_or(c), c);
  };
  sample_temperature();
  while (t < end) {
    if (stop_.load(std::memory_order_relaxed)) {
      m.stopped = true;
      break;
    }
    if (max_bytes && written >= *max_bytes) break;
    // A hung drive hangs its I/O too: the thread blocks in real time, as it
    // would in io_uring_wait_cqe on a device that stopped answering.
    if (model_->fault() == SimFault::hang) {
      log::warn("{}: I/O blocked, the drive hangs (fault = \"hang\")", sim_device_path(model_->spec().name));
      model_->wait_if_hung();
    }
    const double span_s = seconds(std::min<Duration>(slice, end - t));
    double mean_service = 0, mean_access = 0;
    for (auto& c : classes) {
      c.service_s = seconds(model_->service_time(c.kind, c.bytes, sequential));
      c.access_s = seconds(model_->access_latency(c.kind));
      mean_service += c.share * c.service_s;
      mean_access += c.share * c.access_s;
    }
    double x = std::min(1.0 / mean_service, in_flight / (mean_service + mean_access));
    if (e.rate_bytes_per_second > 0) x = std::min(x, e.rate_bytes_per_second / bytes_per_command);
    const bool drive_bound = x >= 1.0 / mean_service * 0.999;
    const double wait = std::max(0.0, in_flight / x - (mean_service + mean_access));
    double busy_s = 0;
    for (auto& c : classes) {
      double want = x * span_s * c.share + c.carry;
      if (max_bytes && c.kind == IoOp::write) {
        // Whole commands up to the budget, the last one possibly past it (as
        // the runner does), so a budget always ends.
        const double left = static_cast<double>(*max_bytes - std::min(*max_bytes, written));
        want = std::min(want, std::ceil(left / static_cast<double>(c.bytes)));
      }
      const auto n = static_cast<std::uint64_t>(std::floor(std::max(0.0, want)));
      c.carry = want - static_cast<double>(n);
      if (n == 0) continue;
      busy_s += seconds(issue(c, n));
      const auto op = static_cast<int>(c.kind);
      m.op[op].ops += n;
      m.op[op].bytes += n * c.bytes;
      if (c.kind == IoOp::write) written += n * c.bytes;
      const double latency = wait + c.service_s + c.access_s;
      m.op[op].latency.record(static_cast<std::uint64_t>(std::llround(latency * 1e9)), n);
      model_->record_latency(c.kind, from_seconds(latency), n);  // the drive times the same commands
    }
    // A drive-bound slice lasts as long as the drive was busy (the SLC cache
    // may have run out inside it); otherwise the slice's own length.
    const double took = drive_bound && busy_s > 0 ? busy_s : span_s;
    const WallTime next = t + std::chrono::duration_cast<WallTime::duration>(from_seconds(took));
    model_->advance_to(next);
    if (model_->throttle_level() > 0) m.throttled_seconds += took;
    t = next;
    sample_temperature();
    if (pace_ != nullptr && !wait_for_clock(next)) {
      m.stopped = true;
      break;
    }
  }
  m.elapsed = std::chrono::duration_cast<Duration>(t - start);
  return m;
}

}  // namespace nvmond
