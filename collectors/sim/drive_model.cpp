#include "collectors/sim/drive_model.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/atomic_file.hpp"

namespace nvmond {

namespace {

constexpr double kGB = 1e9;
// Reads move less data through the controller's write path (no program
// operations): they heat the drive about half as much per byte.
constexpr double kReadHeatWeight = 0.5;
// Background load is issued as 128 KiB commands for the command counters.
constexpr std::uint64_t kBackgroundCommandBytes = 128 * 1024;
// The drive folds SLC into TLC only after the host has been quiet this long.
constexpr Duration kFoldIdle = std::chrono::seconds(1);
// Random writes fall off the FOB level from 1× to 2× capacity written
// since the last purge (SNIA WSAT curves reach steady state within ~2-3×).
constexpr double kGcCliffStart = 1.0;
constexpr double kGcCliffWidth = 1.0;
// Largest integration step: small against τ so throttle transitions and time
// above thresholds are resolved, and never above 10 s.
constexpr Duration kMaxStep = std::chrono::seconds(10);
constexpr std::uint8_t kSpareThresholdPct = 10;
constexpr int kStateVersion = 1;

std::uint16_t to_kelvin(double celsius) {
  double k = std::round(celsius_to_kelvin(celsius));
  return static_cast<std::uint16_t>(std::clamp(k, 0.0, 65535.0));
}

u128 ceil_div(u128 a, u128 b) { return (a + b - 1) / b; }

u128 u128_from_string(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty 128-bit value");
  u128 v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') throw std::invalid_argument("bad 128-bit value \"" + s + "\"");
    u128 next = v * 10 + static_cast<unsigned>(ch - '0');
    if (next / 10 != v) throw std::invalid_argument("128-bit value overflows \"" + s + "\"");
    v = next;
  }
  return v;
}

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
}

// ---- time ----------------------------------------------------------------

void DriveModel::advance_to(WallTime t) {
  std::lock_guard lock(mu_);
  Duration max_step = std::min<Duration>(kMaxStep, spec_.thermal_time_constant / 20);
  if (max_step <= Duration::zero()) max_step = Duration(1);
  while (now_ < t) {
    Duration dt = std::min<Duration>(std::chrono::duration_cast<Duration>(t - now_), max_step);
    step_locked(dt);
    now_ += std::chrono::duration_cast<WallTime::duration>(dt);
  }
}

void DriveModel::step_locked(Duration dt) {
  const double dt_s = seconds(dt);
  const WallTime start = now_;
  const WallTime end = now_ + std::chrono::duration_cast<WallTime::duration>(dt);

  // Accounting over the step uses the state at its start.
  if (p_.temp_c >= spec_.critical_temp_c) c_.critical_temp_s += dt_s;
  else if (p_.temp_c >= spec_.warning_temp_c) c_.warning_temp_s += dt_s;
  // Many consumer drives throttle without counting it (tmt_counters = false).
  if (spec_.tmt_counters && p_.level == 1) c_.tmt1_s += dt_s;
  else if (spec_.tmt_counters && p_.level >= 2) c_.tmt2_s += dt_s;
  c_.power_on_ns += static_cast<u128>(dt.count());

  // Background load (not throttled: it stands for light tenant traffic).
  const std::int64_t before = p_.background_elapsed_ns;
  p_.background_elapsed_ns += dt.count();
  const double wrate = spec_.background_write_bytes_per_s;
  const double rrate = spec_.background_read_bytes_per_s;
  if (wrate > 0) {
    std::uint64_t w = emitted(wrate, p_.background_elapsed_ns) - emitted(wrate, before);
    c_.host_write_bytes += w;
    c_.background_write_bytes += w;
    c_.media_write_bytes += w;  // streamed, WAF 1
    p_.written_since_purge += w;
    c_.busy_ns += static_cast<u128>(static_cast<double>(w) / spec_.max_write_bytes_per_s * 1e9);
  }
  if (rrate > 0) {
    std::uint64_t r = emitted(rrate, p_.background_elapsed_ns) - emitted(rrate, before);
    c_.host_read_bytes += r;
    c_.background_read_bytes += r;
    c_.busy_ns += static_cast<u128>(static_cast<double>(r) / spec_.max_read_bytes_per_s * 1e9);
  }

  // Exact solution of dT/dt = (ambient + P·R − T)/τ for constant P.
  const double power = spec_.idle_power_w + spec_.power_per_gbps_w * (wrate + kReadHeatWeight * rrate) / kGB;
  const double target = spec_.ambient_c + power * spec_.thermal_resistance_c_per_w;
  p_.temp_c = target + (p_.temp_c - target) * std::exp(-dt_s / seconds(spec_.thermal_time_constant));

  // SLC folding once the host has been quiet for a moment.
  if (spec_.slc_cache_bytes > 0 && p_.slc_used > 0) {
    WallTime fold_from = std::max(start, p_.last_io + std::chrono::duration_cast<WallTime::duration>(kFoldIdle));
    if (end > fold_from) {
      double folded = spec_.post_cache_write_bytes_per_s * seconds(end - fold_from);
      p_.slc_used -= std::min<std::uint64_t>(p_.slc_used, static_cast<std::uint64_t>(folded));
    }
  }
  update_level_locked();
}

void DriveModel::update_level_locked() {
  const int n = static_cast<int>(spec_.throttle.size());
  const int old = p_.level;
  int level = old;
  while (level < n && p_.temp_c >= spec_.throttle[level].at_c) ++level;
  while (level > 0 && p_.temp_c < spec_.throttle[level - 1].at_c - spec_.hysteresis_c) --level;
  for (int l = old + 1; l <= level; ++l) {
    if (l == 1) {
      if (spec_.tmt_counters) ++c_.tmt1_transitions;
      ++c_.throttle_events;
    }
    if (l == 2 && spec_.tmt_counters) ++c_.tmt2_transitions;
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

double DriveModel::read_scale_locked() const {
  return std::min(1.0, write_cap_locked() / spec_.max_write_bytes_per_s);
}

// Valid data since the last purge: the written span, or the whole drive
// when nobody said which LBAs are written.
double DriveModel::span_locked() const {
  const double cap = static_cast<double>(spec_.capacity_bytes);
  if (p_.span_hi <= p_.span_lo) return cap;
  return std::clamp(static_cast<double>(p_.span_hi - p_.span_lo), cap * 0.01, cap);
}

double DriveModel::gc_progress_locked() const {
  double written = to_double(p_.written_since_purge) / span_locked();
  return std::clamp((written - kGcCliffStart) / kGcCliffWidth, 0.0, 1.0);
}

// Greedy garbage collection under uniform random writes amplifies about
// (1 + op) / (2 op) with `op` the spare fraction. The spec's steady WAF gives
// the factory spare; an unwritten part of the LBA range adds to it.
double DriveModel::op_waf_locked() const {
  const double waf = spec_.steady_write_amplification;
  if (waf <= 1.0) return waf;
  const double op0 = 1.0 / (2.0 * waf - 1.0);
  const double used = span_locked() / static_cast<double>(spec_.capacity_bytes);
  const double op = (1.0 + op0) / used - 1.0;
  return std::max(1.0, (1.0 + op) / (2.0 * op));
}

double DriveModel::random_write_iops_locked() const {
  double g = gc_progress_locked();
  const double waf = spec_.steady_write_amplification;
  const double steady = waf > 1.0 ? spec_.steady_random_write_iops * waf / op_waf_locked()
                                  : spec_.steady_random_write_iops;
  return spec_.random_write_iops + (std::min(steady, spec_.random_write_iops) - spec_.random_write_iops) * g;
}

double DriveModel::write_amplification_locked(bool sequential) const {
  if (sequential) return 1.0;
  return 1.0 + (op_waf_locked() - 1.0) * gc_progress_locked();
}

double DriveModel::write_seconds_locked(std::uint64_t bytes, std::uint64_t count, bool sequential,
                                        std::uint64_t slc_used) const {
  const double cap = write_cap_locked();
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
  if (!sequential) t = std::max(t, static_cast<double>(count) / random_write_iops_locked());
  return t;
}

double DriveModel::read_seconds_locked(std::uint64_t bytes, std::uint64_t count, bool sequential) const {
  double t = static_cast<double>(bytes * count) / (spec_.max_read_bytes_per_s * read_scale_locked());
  if (!sequential) t = std::max(t, static_cast<double>(count) / spec_.random_read_iops);
  return t;
}

void DriveModel::account_locked(IoKind kind, std::uint64_t bytes, std::uint64_t count, bool sequential,
                                Duration service) {
  const std::uint64_t total = bytes * count;
  if (kind == IoKind::write) {
    double waf = write_amplification_locked(sequential);
    if (spec_.slc_cache_bytes > 0) {
      p_.slc_used += std::min<std::uint64_t>(total, spec_.slc_cache_bytes - std::min(p_.slc_used, spec_.slc_cache_bytes));
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

void DriveModel::add_heat_locked(double bytes, IoKind kind) {
  double weight = kind == IoKind::read ? kReadHeatWeight : 1.0;
  double joules = spec_.power_per_gbps_w * weight * bytes / kGB;
  p_.temp_c += joules / heat_capacity_j_per_c_;
}

Duration DriveModel::io(IoKind kind, std::uint64_t bytes, bool sequential) {
  return io_batch(kind, bytes, 1, sequential);
}

Duration DriveModel::io_batch(IoKind kind, std::uint64_t bytes, std::uint64_t count, bool sequential) {
  std::lock_guard lock(mu_);
  Duration service{};
  if (bytes > 0 && count > 0) {
    service = to_duration(kind == IoKind::write ? write_seconds_locked(bytes, count, sequential, p_.slc_used)
                                                : read_seconds_locked(bytes, count, sequential));
  }
  account_locked(kind, bytes, count, sequential, service);
  return service;
}

Duration DriveModel::service_time(IoKind kind, std::uint64_t bytes, bool sequential) const {
  std::lock_guard lock(mu_);
  if (bytes == 0) return Duration::zero();
  return to_duration(kind == IoKind::write ? write_seconds_locked(bytes, 1, sequential, p_.slc_used)
                                           : read_seconds_locked(bytes, 1, sequential));
}

void DriveModel::note_write_range(std::uint64_t lo, std::uint64_t hi) {
  std::lock_guard lock(mu_);
  if (hi <= lo) return;
  if (p_.span_hi <= p_.span_lo) {
    p_.span_lo = lo;
    p_.span_hi = hi;
  } else {
    p_.span_lo = std::min(p_.span_lo, lo);
    p_.span_hi = std::max(p_.span_hi, hi);
  }
}

void DriveModel::purge() {
  std::lock_guard lock(mu_);
  p_.slc_used = 0;
  p_.written_since_purge = 0;
  p_.span_lo = p_.span_hi = 0;
}

Duration DriveModel::access_latency(IoKind kind) const {
  return kind == IoKind::read ? spec_.read_latency : spec_.write_latency;
}

// ---- queries -------------------------------------------------------------

double DriveModel::sensor_celsius_locked(int sensor) const {
  // Sensor 1 is the controller (what the composite reports); the others sit
  // on NAND packages and the board, warmed less above ambient.
  static constexpr double kShare[8] = {1.0, 0.85, 0.9, 0.8, 0.95, 0.75, 0.88, 0.7};
  return spec_.ambient_c + (p_.temp_c - spec_.ambient_c) * kShare[sensor - 1];
}

std::uint8_t DriveModel::percentage_used_locked() const {
  double endurance = rated_endurance_bytes(spec_);
  if (endurance <= 0) return 0;
  double pct = std::floor(100.0 * to_double(c_.host_write_bytes) / endurance);
  return static_cast<std::uint8_t>(std::clamp(pct, 0.0, 255.0));
}

std::uint8_t DriveModel::critical_warning_locked() const {
  std::uint8_t w = 0;
  // Spare wears out only past the rated endurance: 1 point per point used
  // beyond 100 %.
  int used = percentage_used_locked();
  int spare = std::clamp(100 - std::max(0, used - 100), 0, 100);
  if (spare < kSpareThresholdPct) w |= kWarnSpare;
  auto outside = [&](int idx, std::uint16_t k) {
    return (thresholds_.over_k[idx] && k >= *thresholds_.over_k[idx]) ||
           (thresholds_.under_k[idx] && k <= *thresholds_.under_k[idx]);
  };
  bool temp = outside(0, to_kelvin(p_.temp_c));
  for (int i = 1; i <= spec_.sensors; ++i) temp = temp || outside(i, to_kelvin(sensor_celsius_locked(i)));
  if (temp) w |= kWarnTemperature;
  return w;
}

SmartLog DriveModel::smart() const {
  std::lock_guard lock(mu_);
  SmartLog s;
  s.critical_warning = critical_warning_locked();
  s.composite_temperature_k = to_kelvin(p_.temp_c);
  s.percentage_used = percentage_used_locked();
  s.available_spare_pct = static_cast<std::uint8_t>(std::clamp(100 - std::max(0, s.percentage_used - 100), 0, 100));
  s.available_spare_threshold_pct = kSpareThresholdPct;
  s.data_units_read = ceil_div(c_.host_read_bytes, kDataUnitBytes);
  s.data_units_written = ceil_div(c_.host_write_bytes, kDataUnitBytes);
  s.host_read_commands = c_.read_commands + ceil_div(c_.background_read_bytes, kBackgroundCommandBytes);
  s.host_write_commands = c_.write_commands + ceil_div(c_.background_write_bytes, kBackgroundCommandBytes);
  s.controller_busy_minutes = c_.busy_ns / 60'000'000'000ULL;
  s.power_cycles = c_.power_cycles;
  s.power_on_hours = c_.power_on_ns / 3'600'000'000'000ULL;
  s.warning_temperature_minutes = static_cast<std::uint32_t>(c_.warning_temp_s / 60);
  s.critical_temperature_minutes = static_cast<std::uint32_t>(c_.critical_temp_s / 60);
  for (int i = 1; i <= spec_.sensors; ++i) {
    s.sensor_temperature_k[static_cast<std::size_t>(i - 1)] = to_kelvin(sensor_celsius_locked(i));
  }
  s.thermal_mgmt_t1_transitions = c_.tmt1_transitions;
  s.thermal_mgmt_t2_transitions = c_.tmt2_transitions;
  s.thermal_mgmt_t1_seconds = static_cast<std::uint32_t>(c_.tmt1_s);
  s.thermal_mgmt_t2_seconds = static_cast<std::uint32_t>(c_.tmt2_s);
  return s;
}

std::optional<OcpSmartLog> DriveModel::ocp() const {
  if (!spec_.has_ocp) return std::nullopt;
  std::lock_guard lock(mu_);
  OcpSmartLog o;
  o.physical_media_units_written = c_.media_write_bytes;
  o.physical_media_units_read = c_.host_read_bytes;
  o.thermal_throttling_count = static_cast<std::uint8_t>(std::min<std::uint32_t>(c_.throttle_events, 255));
  o.thermal_throttling_status =
      p_.temp_c >= spec_.critical_temp_c ? 3 : static_cast<std::uint8_t>(std::min(p_.level, 2));
  u128 full_writes = c_.media_write_bytes / spec_.capacity_bytes;
  o.user_data_erase_count_max = static_cast<std::uint32_t>(std::min<u128>(full_writes + 1, 0xFFFFFFFFu));
  o.user_data_erase_count_min = static_cast<std::uint32_t>(std::min<u128>(full_writes, 0xFFFFFFFFu));
  int used = percentage_used_locked();
  o.free_blocks_pct = static_cast<std::uint8_t>(std::clamp(100 - std::max(0, used - 100), 0, 100));
  o.capacitor_health_pct = 100;
  o.endurance_estimate = static_cast<u128>(rated_endurance_bytes(spec_));
  o.log_page_version = 3;
  return o;
}

TemperatureThresholds DriveModel::thresholds() const {
  std::lock_guard lock(mu_);
  return thresholds_;
}

bool DriveModel::set_over_threshold(int sensor, std::uint16_t kelvin) {
  if (sensor < 0 || sensor > spec_.sensors) return false;
  std::lock_guard lock(mu_);
  thresholds_.over_k[static_cast<std::size_t>(sensor)] = kelvin;
  return true;
}

bool DriveModel::set_under_threshold(int sensor, std::uint16_t kelvin) {
  if (sensor < 0 || sensor > spec_.sensors) return false;
  std::lock_guard lock(mu_);
  thresholds_.under_k[static_cast<std::size_t>(sensor)] = kelvin;
  return true;
}

ControllerIdentity DriveModel::controller_identity() const {
  ControllerIdentity c;
  c.serial = spec_.serial;
  c.model = spec_.model;
  c.firmware = spec_.firmware;
  c.cntlid = 1;
  c.version = 0x00010400;
  c.wctemp_k = to_kelvin(spec_.warning_temp_c);
  c.cctemp_k = to_kelvin(spec_.critical_temp_c);
  c.tnvmcap = spec_.capacity_bytes;
  c.nn = 1;
  return c;
}

DriveInfo DriveModel::identity() const {
  DriveInfo d;
  d.serial = spec_.serial;
  d.model = spec_.model;
  d.firmware = spec_.firmware;
  d.path = "sim:" + spec_.name;
  d.backend = "sim";
  d.controller = controller_identity();
  NamespaceIdentity ns;
  ns.nsid = 1;
  ns.lba_bytes = 512;
  ns.nsze = ns.ncap = ns.nuse = spec_.capacity_bytes / ns.lba_bytes;
  d.namespaces.push_back(ns);
  d.capacity_bytes = ns.size_bytes();
  return d;
}

double DriveModel::composite_celsius() const {
  std::lock_guard lock(mu_);
  return p_.temp_c;
}

int DriveModel::throttle_level() const {
  std::lock_guard lock(mu_);
  return p_.level;
}

double DriveModel::write_limit_bytes_per_s() const {
  std::lock_guard lock(mu_);
  bool cached = spec_.slc_cache_bytes > 0 && p_.slc_used < spec_.slc_cache_bytes;
  double bw = spec_.slc_cache_bytes == 0 || cached ? spec_.max_write_bytes_per_s
                                                   : spec_.post_cache_write_bytes_per_s;
  return std::min(bw, write_cap_locked());
}

// ---- faults --------------------------------------------------------------

SimFault DriveModel::fault() const {
  std::lock_guard lock(mu_);
  return fault_;
}

void DriveModel::set_fault(SimFault fault) {
  {
    std::lock_guard lock(mu_);
    fault_ = fault;
  }
  hang_cv_.notify_all();
}

void DriveModel::release_hangs() {
  {
    std::lock_guard lock(mu_);
    hangs_released_ = true;
  }
  hang_cv_.notify_all();
}

void DriveModel::wait_if_hung() const {
  std::unique_lock lock(mu_);
  if (fault_ != SimFault::hang || hangs_released_) return;
  ++hung_calls_;
  hang_cv_.wait_for(lock, spec_.hang, [&] { return fault_ != SimFault::hang || hangs_released_; });
  --hung_calls_;
}

int DriveModel::hung_calls() const {
  std::lock_guard lock(mu_);
  return hung_calls_;
}

// ---- persistence ---------------------------------------------------------

std::string DriveModel::save_state() const {
  using nlohmann::json;
  std::lock_guard lock(mu_);
  auto thresholds = [](const auto& arr) {
    json a = json::array();
    for (const auto& v : arr) a.push_back(v ? json(*v) : json(nullptr));
    return a;
  };
  json j = {
      {"format", "nvmond-sim-drive"},
      {"version", kStateVersion},
      {"serial", spec_.serial},
      {"time_ns", to_unix_ns(now_)},
      {"counters",
       {{"host_read_bytes", to_string(c_.host_read_bytes)},
        {"host_write_bytes", to_string(c_.host_write_bytes)},
        {"read_commands", to_string(c_.read_commands)},
        {"write_commands", to_string(c_.write_commands)},
        {"background_read_bytes", to_string(c_.background_read_bytes)},
        {"background_write_bytes", to_string(c_.background_write_bytes)},
        {"media_write_bytes", to_string(c_.media_write_bytes)},
        {"media_write_fraction", c_.media_write_fraction},
        {"busy_ns", to_string(c_.busy_ns)},
        {"power_on_ns", to_string(c_.power_on_ns)},
        {"power_cycles", to_string(c_.power_cycles)},
        {"warning_temp_s", c_.warning_temp_s},
        {"critical_temp_s", c_.critical_temp_s},
        {"tmt1_transitions", c_.tmt1_transitions},
        {"tmt2_transitions", c_.tmt2_transitions},
        {"tmt1_s", c_.tmt1_s},
        {"tmt2_s", c_.tmt2_s},
        {"throttle_events", c_.throttle_events}}},
      {"physical",
       {{"temp_c", p_.temp_c},
        {"level", p_.level},
        {"slc_used", p_.slc_used},
        {"written_since_purge", to_string(p_.written_since_purge)},
        {"last_io_ns", to_unix_ns(p_.last_io)},
        {"background_elapsed_ns", p_.background_elapsed_ns},
        {"span_lo", p_.span_lo},
        {"span_hi", p_.span_hi}}},
      {"thresholds", {{"over_k", thresholds(thresholds_.over_k)}, {"under_k", thresholds(thresholds_.under_k)}}},
  };
  return j.dump(2);
}

std::optional<Error> DriveModel::load_state(const std::string& text) {
  using nlohmann::json;
  const std::string who = "sim:" + spec_.name + ": load state: ";
  Counters c;
  Physical p;
  TemperatureThresholds th;
  WallTime time{};
  try {
    json j = json::parse(text);
    if (j.at("format").get<std::string>() != "nvmond-sim-drive") return Error{"decode", who + "not a sim drive state"};
    if (j.at("version").get<int>() != kStateVersion) {
      return Error{"decode", who + "unsupported version " + j.at("version").dump()};
    }
    if (j.at("serial").get<std::string>() != spec_.serial) {
      return Error{"decode", who + "state belongs to serial " + j.at("serial").get<std::string>()};
    }
    time = from_unix_ns(j.at("time_ns").get<std::int64_t>());
    const json& jc = j.at("counters");
    auto big = [&](const char* key) { return u128_from_string(jc.at(key).get<std::string>()); };
    c.host_read_bytes = big("host_read_bytes");
    c.host_write_bytes = big("host_write_bytes");
    c.read_commands = big("read_commands");
    c.write_commands = big("write_commands");
    c.background_read_bytes = big("background_read_bytes");
    c.background_write_bytes = big("background_write_bytes");
    c.media_write_bytes = big("media_write_bytes");
    c.media_write_fraction = jc.at("media_write_fraction").get<double>();
    c.busy_ns = big("busy_ns");
    c.power_on_ns = big("power_on_ns");
    c.power_cycles = big("power_cycles");
    c.warning_temp_s = jc.at("warning_temp_s").get<double>();
    c.critical_temp_s = jc.at("critical_temp_s").get<double>();
    c.tmt1_transitions = jc.at("tmt1_transitions").get<std::uint32_t>();
    c.tmt2_transitions = jc.at("tmt2_transitions").get<std::uint32_t>();
    c.tmt1_s = jc.at("tmt1_s").get<double>();
    c.tmt2_s = jc.at("tmt2_s").get<double>();
    c.throttle_events = jc.at("throttle_events").get<std::uint32_t>();
    const json& jp = j.at("physical");
    p.temp_c = jp.at("temp_c").get<double>();
    p.level = std::clamp(jp.at("level").get<int>(), 0, static_cast<int>(spec_.throttle.size()));
    p.slc_used = std::min(jp.at("slc_used").get<std::uint64_t>(), spec_.slc_cache_bytes);
    p.written_since_purge = u128_from_string(jp.at("written_since_purge").get<std::string>());
    p.last_io = from_unix_ns(jp.at("last_io_ns").get<std::int64_t>());
    p.background_elapsed_ns = jp.at("background_elapsed_ns").get<std::int64_t>();
    // Absent in states saved before spans were tracked: the whole drive.
    p.span_lo = jp.value("span_lo", std::uint64_t{0});
    p.span_hi = jp.value("span_hi", std::uint64_t{0});
    const json& jt = j.at("thresholds");
    for (std::size_t i = 0; i < 9; ++i) {
      const bool present = i == 0 || static_cast<int>(i) <= spec_.sensors;
      const json& o = jt.at("over_k").at(i);
      const json& u = jt.at("under_k").at(i);
      th.over_k[i] = present && !o.is_null() ? std::optional(o.get<std::uint16_t>()) : std::nullopt;
      th.under_k[i] = present && !u.is_null() ? std::optional(u.get<std::uint16_t>()) : std::nullopt;
    }
    // A sensor added to the config since the save gets the defaults.
    for (int i = 1; i <= spec_.sensors; ++i) {
      auto idx = static_cast<std::size_t>(i);
      if (!th.over_k[idx]) th.over_k[idx] = 0xFFFF;
      if (!th.under_k[idx]) th.under_k[idx] = 0;
    }
    if (!th.over_k[0]) th.over_k[0] = to_kelvin(spec_.warning_temp_c);
    if (!th.under_k[0]) th.under_k[0] = 0;
  } catch (const std::exception& e) {
    return Error{"decode", who + e.what()};
  }
  std::lock_guard lock(mu_);
  now_ = time;
  c_ = c;
  p_ = p;
  thresholds_ = th;
  return std::nullopt;
}

std::optional<Error> save_state_file(const DriveModel& model, const std::string& path) {
  return write_file_atomically(path, model.save_state());
}

std::optional<Error> load_state_file(DriveModel& model, const std::string& path) {
  auto text = read_whole_file(path);
  if (!text) return text.error();
  if (auto err = model.load_state(*text)) {
    err->message = path + ": " + err->message;
    return err;
  }
  return std::nullopt;
}

}  // namespace nvmond
