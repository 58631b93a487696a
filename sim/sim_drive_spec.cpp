#include "sim/sim_drive_spec.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "collectors/health.hpp"
#include "core/clock.hpp"
#include "sim/profiles.hpp"

namespace nvmond {

namespace {

constexpr double kMB = 1e6;

// The built-in profiles: sim/profiles.toml, compiled in (sim/profiles.hpp.in).
constexpr const char* kProfileNames[] = {"datacenter", "consumer", "consumer-heatsink", "generic"};

// Every numeric key's bound, declared once (docs/configuration.md). Wide
// enough for any drive on the market, narrow enough that the thermal model's
// arithmetic stays finite and meaningful.
constexpr NumberRange kTemperature{-40, 200, "°C"};
constexpr NumberRange kAmbient{-40, 100, "°C"};
constexpr NumberRange kMbps{0.001, 1e6, "MB/s"};
constexpr NumberRange kIops{1, 1e9, "IOPS"};
constexpr NumberRange kRatedDwpd{0.001, 1000, "DWPD"};
constexpr NumberRange kWarrantyYears{0.1, 50, "years"};
constexpr ByteRange kRatedTbw{1'000'000'000, 1'000'000'000'000'000'000};  // 1 GB .. 1 EB
constexpr NumberRange kWriteDwpd{0, 1000, "DWPD"};
constexpr IntegerRange kSensors{1, 8};
constexpr ByteRange kCapacity{kDataUnitBytes, 1'000'000'000'000'000};  // 1 PB
constexpr ByteRange kBackgroundRate{0, 1'000'000'000'000};             // 1 TB/s; also <= max_*_mbps

// Plain numeric keys: config name, field, config unit → base unit, range.
struct NumberField {
  const char* key;
  double SimDriveSpec::*field;
  double scale;
  NumberRange range;
};
constexpr NumberField kNumberFields[] = {
    {"warning_temp_c", &SimDriveSpec::warning_temp_c, 1, kTemperature},
    {"critical_temp_c", &SimDriveSpec::critical_temp_c, 1, kTemperature},
    {"ambient_c", &SimDriveSpec::ambient_c, 1, kAmbient},
    {"thermal_resistance_c_per_w", &SimDriveSpec::thermal_resistance_c_per_w, 1, {0.01, 1000, "°C/W"}},
    {"idle_power_w", &SimDriveSpec::idle_power_w, 1, {0, 1000, "W"}},
    {"power_per_gbps_w", &SimDriveSpec::power_per_gbps_w, 1, {0, 1000, "W per GB/s"}},
    {"hysteresis_c", &SimDriveSpec::hysteresis_c, 1, {0, 50, "°C"}},
    {"max_write_mbps", &SimDriveSpec::max_write_bytes_per_s, kMB, kMbps},
    {"max_read_mbps", &SimDriveSpec::max_read_bytes_per_s, kMB, kMbps},
    {"post_cache_write_mbps", &SimDriveSpec::post_cache_write_bytes_per_s, kMB, kMbps},
    {"random_read_iops", &SimDriveSpec::random_read_iops, 1, kIops},
    {"random_write_iops", &SimDriveSpec::random_write_iops, 1, kIops},
    {"steady_random_write_iops", &SimDriveSpec::steady_random_write_iops, 1, kIops},
    {"steady_write_amplification", &SimDriveSpec::steady_write_amplification, 1, {1, 100}},
};

struct DurationField {
  const char* key;
  Duration SimDriveSpec::*field;
  DurationRange range;
};
constexpr DurationField kDurationFields[] = {
    {"thermal_time_constant", &SimDriveSpec::thermal_time_constant, {std::chrono::seconds(1), std::chrono::hours(24)}},
    {"read_latency", &SimDriveSpec::read_latency, {std::chrono::microseconds(1), std::chrono::seconds(10)}},
    {"write_latency", &SimDriveSpec::write_latency, {std::chrono::microseconds(1), std::chrono::seconds(10)}},
    {"hang", &SimDriveSpec::hang, {std::chrono::milliseconds(1), std::chrono::hours(24)}},
};

// Identity strings: NVMe field width, and a charset that is safe in a device
// path, a metric label and a state-file name.
struct StringField {
  const char* key;
  std::string SimDriveSpec::*field;
  std::size_t max_len;
  bool file_safe;
};
constexpr StringField kStringFields[] = {
    {"name", &SimDriveSpec::name, 64, true},
    {"serial", &SimDriveSpec::serial, 20, true},
    {"model", &SimDriveSpec::model, 40, false},
    {"firmware", &SimDriveSpec::firmware, 8, false},
};

bool file_safe(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

bool printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

void read_throttle(TableReader& t, SimDriveSpec& s) {
  const toml::node* n = t.node("throttle");
  if (n == nullptr) return;
  if (n->is_array() && n->as_array()->empty()) {
    s.throttle.clear();
    return;
  }
  std::vector<ThrottleLevel> levels;
  for (TableReader& level : t.array_of_tables("throttle")) {
    auto at = level.number("at_c", kTemperature);
    auto mbps = level.number("write_mbps", kMbps);
    level.finish();  // first: a typo explains a missing key better
    if (!at) level.fail_here(level.where() + ": missing at_c");
    if (!mbps) level.fail_here(level.where() + ": missing write_mbps");
    if (!levels.empty() && *at <= levels.back().at_c) {
      level.fail("at_c", "throttle levels must be in ascending at_c order");
    }
    if (!levels.empty() && *mbps * kMB >= levels.back().write_bytes_per_s) {
      level.fail("write_mbps", "a hotter throttle level must allow less than the one before");
    }
    levels.push_back({*at, *mbps * kMB});
  }
  s.throttle = std::move(levels);
}

void read_endurance(TableReader& t, SimDriveSpec& s) {
  SimEndurance& e = s.endurance;
  auto dwpd = t.number("rated_dwpd", kRatedDwpd);
  auto years = t.number("warranty_years", kWarrantyYears);
  if (auto tbw = t.terabytes("rated_tbw", kRatedTbw)) {
    if (dwpd) t.fail("rated_tbw", "give either rated_tbw or rated_dwpd");
    if (years) e.warranty_years = *years;
    e.rated_tbw_bytes = static_cast<double>(*tbw);
    if (e.warranty_years > 0)
      e.rated_dwpd = e.rated_tbw_bytes / (static_cast<double>(s.capacity_bytes) * 365 * e.warranty_years);
    return;
  }
  if (dwpd || years) {
    if (dwpd) e.rated_dwpd = *dwpd;
    if (years) e.warranty_years = *years;
    e.rated_tbw_bytes = 0;  // derive from DWPD so it follows the capacity
  }
}

// A TOML offset date-time (2026-01-01T12:00:00Z) as a clock time.
WallTime read_date_time(TableReader& t, std::string_view key, const toml::node& n) {
  namespace c = std::chrono;
  const auto* dt = n.as_date_time();
  if (dt == nullptr || !dt->get().offset) t.fail(key, "expected an offset date-time, e.g. 2026-01-01T00:00:00Z");
  const toml::date_time& v = dt->get();
  const c::sys_days day{c::year_month_day(c::year(v.date.year), c::month(v.date.month), c::day(v.date.day))};
  const auto local = day + c::hours(v.time.hour) + c::minutes(v.time.minute) + c::seconds(v.time.second) +
                     c::nanoseconds(v.time.nanosecond);
  return c::time_point_cast<WallTime::duration>(local - c::minutes(v.offset->minutes));
}

void read_background(TableReader& t, SimDriveSpec& s) {
  auto write_rate = t.rate("write_rate", kBackgroundRate);
  auto write_dwpd = t.number("write_dwpd", kWriteDwpd);
  if (write_rate && write_dwpd) t.fail("write_dwpd", "give either write_rate or write_dwpd");
  if (write_rate) s.background_write_bytes_per_s = *write_rate;
  if (write_dwpd) {
    s.background_write_bytes_per_s = *write_dwpd * static_cast<double>(s.capacity_bytes) / kSecondsPerDay;
  }
  if (auto r = t.rate("read_rate", kBackgroundRate)) s.background_read_bytes_per_s = *r;
  // A drive cannot be asked to sustain more background load than it can
  // write or read at all (a throttle slows it further: drive_model.cpp).
  if (s.background_write_bytes_per_s > s.max_write_bytes_per_s) {
    t.fail(write_rate ? "write_rate" : "write_dwpd",
           fmt::format("{:.6g} MB/s is more than the drive writes (max_write_mbps = {:.6g})",
                       s.background_write_bytes_per_s / kMB, s.max_write_bytes_per_s / kMB));
  }
  if (s.background_read_bytes_per_s > s.max_read_bytes_per_s) {
    t.fail("read_rate", fmt::format("{:.6g} MB/s is more than the drive reads (max_read_mbps = {:.6g})",
                                    s.background_read_bytes_per_s / kMB, s.max_read_bytes_per_s / kMB));
  }
}

// Every key but `profile` and the identity check, onto `s`: a profile's
// table reads through it too.
void read_sim_keys(TableReader& t, SimDriveSpec& s) {
  for (const auto& f : kStringFields) {
    auto v = t.string(f.key);
    if (!v) continue;
    if (v->empty() || v->size() > f.max_len) {
      t.fail(f.key, fmt::format("must be 1 to {} characters", f.max_len));
    }
    if (f.file_safe && !file_safe(*v)) t.fail(f.key, "may contain only letters, digits, '-', '_' and '.'");
    if (!printable(*v)) t.fail(f.key, "must be printable ASCII");
    s.*f.field = *v;
  }
  if (auto cap = t.bytes("capacity", kCapacity)) s.capacity_bytes = *cap;
  read_endurance(t, s);

  if (auto n = t.integer("sensors", kSensors)) s.sensors = static_cast<int>(*n);
  for (const auto& f : kNumberFields) {
    if (auto v = t.number(f.key, f.range)) s.*f.field = *v * f.scale;
  }
  for (const auto& f : kDurationFields) {
    if (auto v = t.duration(f.key, f.range)) s.*f.field = *v;
  }
  if (s.critical_temp_c <= s.warning_temp_c) {
    t.fail(t.node("critical_temp_c") ? "critical_temp_c" : "warning_temp_c",
           "critical_temp_c must be above warning_temp_c");
  }
  if (auto v = t.bytes("slc_cache", {0, kCapacity.hi})) s.slc_cache_bytes = *v;
  read_throttle(t, s);
  read_background(t, s);
  if (auto v = t.boolean("has_ocp")) s.has_ocp = *v;
  if (auto v = t.boolean("tmt_counters")) s.tmt_counters = *v;
  if (auto v = t.boolean("host_thermal_management")) s.host_thermal_management = *v;
  if (auto v = t.duration("media_error_interval", {std::chrono::seconds(1), std::chrono::hours(24 * 365)})) {
    s.media_error_interval = *v;
  }
  if (auto v = t.boolean("degraded_link")) s.degraded_link = *v;
  if (auto v = t.duration("telemetry_interval", {std::chrono::seconds(1), std::chrono::hours(24 * 365)})) {
    s.telemetry_interval = *v;
  }
  if (auto v = t.boolean("self_test_failure")) s.self_test_failure = *v;
  if (auto v = t.boolean("ocp_panic")) s.ocp_panic = *v;
  if (const auto* n = t.node("thermal_excursion_at"))
    s.thermal_excursion_at = read_date_time(t, "thermal_excursion_at", *n);
  if (auto f = t.choice("fault", {"none", "hang", "fail", "stuck_temperature"})) {
    s.fault = *f == "hang"                ? SimFault::hang
              : *f == "fail"              ? SimFault::fail
              : *f == "stuck_temperature" ? SimFault::stuck_temperature
                                          : SimFault::none;
  }
}

}  // namespace

const std::vector<std::string>& sim_profile_names() {
  static const std::vector<std::string> names(std::begin(kProfileNames), std::end(kProfileNames));
  return names;
}

SimDriveSpec sim_profile(std::string_view profile) {
  // Read once; a mistake in the table above fails every test that uses a sim.
  static const std::vector<SimDriveSpec> specs = [] {
    const toml::table doc = toml::parse(kSimProfilesToml, std::string_view("sim/profiles.toml"));
    std::vector<SimDriveSpec> out;
    std::vector<std::string> earlier;  // the names of `out`, which a profile may start from
    for (const char* name : kProfileNames) {
      TableReader t(*doc[name].as_table(), "sim/profiles.toml", name);
      SimDriveSpec s;
      if (const auto base = t.choice("profile", earlier)) {
        s = out[static_cast<std::size_t>(std::find(earlier.begin(), earlier.end(), *base) - earlier.begin())];
      }
      read_sim_keys(t, s);
      t.finish();
      s.profile = name;
      out.push_back(std::move(s));
      earlier.emplace_back(name);
    }
    return out;
  }();
  for (std::size_t i = 0; i < std::size(kProfileNames); ++i) {
    if (profile == kProfileNames[i]) return specs[i];
  }
  throw std::out_of_range("unknown sim profile \"" + std::string(profile) + "\"");
}

double rated_endurance_bytes(const SimDriveSpec& spec) {
  const SimEndurance& e = spec.endurance;
  if (e.rated_tbw_bytes > 0) return e.rated_tbw_bytes;
  return e.rated_dwpd * static_cast<double>(spec.capacity_bytes) * 365 * e.warranty_years;
}

SimDriveSpec parse_sim_drive(TableReader& t) {
  auto profile = t.choice("profile", sim_profile_names());
  SimDriveSpec s = sim_profile(profile.value_or("generic"));
  read_sim_keys(t, s);
  if (s.name.empty()) t.fail_here(t.where() + ": missing name");
  if (s.serial.empty()) t.fail_here(t.where() + ": missing serial");
  return s;
}

}  // namespace nvmond
