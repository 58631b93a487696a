// The NVMe pages a simulated drive answers: SMART / Health, OCP C0, the
// temperature thresholds (Set/Get Features 04h) and Identify.
#include <algorithm>
#include <cmath>

#include "sim/drive_model.hpp"
#include "sim/drive_model_detail.hpp"
#include "collectors/sim_name.hpp"

namespace nvmond {

using sim_detail::to_kelvin;

namespace {

// Background load is issued as 128 KiB commands for the command counters.
constexpr std::uint64_t kBackgroundCommandBytes = 128 * 1024;
constexpr std::uint8_t kSpareThresholdPct = 10;

u128 ceil_div(u128 a, u128 b) { return (a + b - 1) / b; }

}  // namespace

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
  s.composite_temperature_k = to_kelvin(stuck_temp_c_.value_or(p_.temp_c));
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
  for (int i = 1; i <= spec_.sensors; ++i) {
    s.sensor_temperature_k[static_cast<std::size_t>(i - 1)] = to_kelvin(sensor_celsius_locked(i));
  }
  s.thermal = c_.thermal.in_log_units();
  s.media_errors = media_errors_locked();
  s.error_log_entries = media_errors_locked();
  return s;
}

SmartThermalCounters DriveModel::ExactThermalCounters::in_log_units() const {
  SmartThermalCounters s;
  s.warning_minutes = static_cast<std::uint32_t>(warning_temp_s / 60);
  s.critical_minutes = static_cast<std::uint32_t>(critical_temp_s / 60);
  s.tmt1_transitions = tmt1_transitions;
  s.tmt2_transitions = tmt2_transitions;
  s.tmt1_seconds = static_cast<std::uint32_t>(tmt1_s);
  s.tmt2_seconds = static_cast<std::uint32_t>(tmt2_s);
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
  // Version 5: the die, timeout and link fields a fleet dashboard shows.
  o.log_page_version = 5;
  o.dssd_major_version = 2;
  o.dssd_minor_version = 6;
  o.pcie_link_retraining_count = spec_.degraded_link ? 1 : 0;  // it trained once more, narrower
  o.total_media_dies = 64;
  o.total_die_failure_tolerance = 2;
  o.max_temperature_recorded_c = static_cast<std::uint8_t>(std::clamp(std::max(max_temp_c_, p_.temp_c), 0.0, 255.0));
  o.nand_average_erase_count = static_cast<std::uint64_t>(std::min<u128>(full_writes, ~std::uint64_t{0}));
  return o;
}

std::uint64_t DriveModel::media_errors_locked() const {
  const auto interval_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(spec_.media_error_interval).count();
  if (interval_ns <= 0) return 0;
  return static_cast<std::uint64_t>(c_.power_on_ns / static_cast<u128>(interval_ns));
}

std::vector<ErrorLogEntry> DriveModel::error_log() const {
  std::lock_guard lock(mu_);
  const std::uint64_t newest = media_errors_locked();
  const std::uint64_t blocks = std::max<std::uint64_t>(spec_.capacity_bytes / 512, 1);
  std::vector<ErrorLogEntry> out;
  for (std::uint64_t n = newest; n > 0 && out.size() < kSimErrorLogEntries; --n) {
    ErrorLogEntry e;
    e.error_count = n;
    e.sqid = 1;
    e.cid = static_cast<std::uint16_t>(n);
    // Unrecovered Read Error, Do Not Retry: what a worn NAND page reports.
    e.status = static_cast<std::uint16_t>((0x81u << 1) | (2u << 9) | 0x8000u);
    e.lba = (n * 2654435761ULL) % blocks;  // scattered, and the same LBA for the same error every time
    e.nsid = 1;
    out.push_back(e);
  }
  return out;
}

PcieLink DriveModel::pcie_link() const {
  PcieLink link;
  link.current_speed_gts = 16.0;
  link.max_speed_gts = 16.0;
  link.current_width = spec_.degraded_link ? 2u : 4u;
  link.max_width = 4u;
  link.aer_correctable = 0;
  link.aer_nonfatal = 0;
  link.aer_fatal = 0;
  return link;
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

std::optional<HostThermalManagement> DriveModel::host_thermal_management() const {
  if (!spec_.host_thermal_management) return std::nullopt;
  auto point_k = [&](std::size_t level) -> std::uint16_t {
    return level < spec_.throttle.size() ? to_kelvin(spec_.throttle[level].at_c) : 0;
  };
  return HostThermalManagement{.tmt1_k = point_k(0), .tmt2_k = point_k(1)};
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
  c.elpe = static_cast<std::uint8_t>(kSimErrorLogEntries - 1);
  c.oacs = kOacsDeviceSelfTest;
  if (spec_.host_thermal_management) c.hctma = kHctmaSupported;
  return c;
}

DriveInfo DriveModel::identity() const {
  DriveInfo d = drive_info(controller_identity(), sim_device_path(spec_.name), "sim");
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
  double bw = spec_.slc_cache_bytes == 0 || cached ? spec_.max_write_bytes_per_s : spec_.post_cache_write_bytes_per_s;
  return std::min(bw, host_write_cap_locked());
}
}  // namespace nvmond
