#include "sim/sim_drive_spec.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "collectors/health.hpp"

namespace nvmond {

namespace {

constexpr double kMB = 1e6;
constexpr double kTB = 1e12;
constexpr double kSecondsPerDay = 86'400;

// Why these numbers (first-order thermal RC: dT/dt = (ambient + P·R − T)/τ,
// P = idle + power_per_gbps × GB/s written; the heat capacity is C = τ/R):
//
// datacenter: a 3.84 TB U.2 TLC drive, 2 GB/s write, 1.3 DWPD × 5 years, OCP
//   log. 4 W idle and 8 W per GB/s give 20 W at full write speed, the usual
//   U.2 budget. R = 5 °C/W with 30 °C inlet air: 50 °C idle, a steady 130 °C
//   unthrottled (so it must throttle), 82 °C at 800 MB/s (so level 1 is not
//   enough and it reaches 75 °C) and 76 °C at 650 MB/s (above 75 − 2, so it
//   stays at level 2): the review's 70 °C → 800 MB/s → 650 MB/s.
//   τ = 300 s (C = 60 J/K: drive, enclosure and the air it warms), so the
//   first throttle comes after about a minute and a half of full writes.
// consumer: a bare 1 TB M.2 TLC drive in a PC case (30 °C air), 28 GB SLC cache
//   at 1.7 GB/s then 630 MB/s, 480 TBW. 0.8 W idle, 3.2 W per GB/s (6.2 W at
//   full speed). A bare M.2 sheds heat badly: R = 20 °C/W, τ = 60 s
//   (C = 3 J/K, ~8 g of board and packages). 46 °C idle, ~72 °C when the
//   cache runs out, 86 °C steady at 630 MB/s, so it throttles at 83 °C to
//   450 MB/s (75 °C steady), recovers below 80 °C and saw-tooths between the
//   two: the review's "reached 83 °C, fell to 450 MB/s".
// consumer-heatsink: the same drive with a ~15 g aluminium heatsink:
//   R = 9 °C/W, τ = 120 s (C = 13 J/K). 55 °C steady at 630 MB/s: never
//   reaches its 83 °C throttle point, as the review found.
// generic: a well-cooled 1 TB drive, 1 GB/s, 0.5 DWPD, no cache, one throttle
//   level it does not reach under its own full load (49 °C steady).
SimDriveSpec datacenter() {
  SimDriveSpec s;
  s.profile = "datacenter";
  s.model = "NVMOND SIM DC U.2 3.84TB";
  s.firmware = "SIMDC1.0";
  s.capacity_bytes = 3'840'000'000'000ULL;
  s.rated_dwpd = 1.3;
  s.warranty_years = 5;
  s.sensors = 3;
  s.warning_temp_c = 78;
  s.critical_temp_c = 85;
  s.ambient_c = 30;
  s.thermal_resistance_c_per_w = 5;
  s.thermal_time_constant = std::chrono::seconds(300);
  s.idle_power_w = 4;
  s.power_per_gbps_w = 8;
  s.throttle = {{70, 800 * kMB}, {75, 650 * kMB}};
  s.hysteresis_c = 2;
  s.max_write_bytes_per_s = 2000 * kMB;
  s.max_read_bytes_per_s = 3200 * kMB;
  s.post_cache_write_bytes_per_s = s.max_write_bytes_per_s;
  s.random_read_iops = 550'000;
  s.random_write_iops = 180'000;
  s.steady_random_write_iops = 40'000;
  s.steady_write_amplification = 2.5;
  s.has_ocp = true;
  return s;
}

SimDriveSpec consumer() {
  SimDriveSpec s;
  s.profile = "consumer";
  s.model = "NVMOND SIM M.2 1TB";
  s.firmware = "SIMC1.0";
  s.capacity_bytes = 1'000'000'000'000ULL;
  s.rated_tbw_bytes = 480 * kTB;
  s.warranty_years = 5;
  s.rated_dwpd = s.rated_tbw_bytes / (1e12 * 365 * 5);
  s.sensors = 2;
  s.warning_temp_c = 83;
  s.critical_temp_c = 88;
  s.ambient_c = 30;
  s.thermal_resistance_c_per_w = 20;
  s.thermal_time_constant = std::chrono::seconds(60);
  s.idle_power_w = 0.8;
  s.power_per_gbps_w = 3.2;
  s.throttle = {{83, 450 * kMB}};
  s.hysteresis_c = 3;
  s.max_write_bytes_per_s = 1700 * kMB;
  s.max_read_bytes_per_s = 3400 * kMB;
  s.slc_cache_bytes = 28'000'000'000ULL;
  s.post_cache_write_bytes_per_s = 630 * kMB;
  s.random_read_iops = 350'000;
  s.random_write_iops = 250'000;
  s.steady_random_write_iops = 20'000;
  s.steady_write_amplification = 4;
  return s;
}

SimDriveSpec consumer_heatsink() {
  SimDriveSpec s = consumer();
  s.profile = "consumer-heatsink";
  s.thermal_resistance_c_per_w = 9;
  s.thermal_time_constant = std::chrono::seconds(120);
  return s;
}

SimDriveSpec generic() {
  SimDriveSpec s;
  s.profile = "generic";
  s.model = "NVMOND SIM GENERIC 1TB";
  s.firmware = "SIMG1.0";
  s.capacity_bytes = 1'000'000'000'000ULL;
  s.rated_dwpd = 0.5;
  s.warranty_years = 5;
  s.sensors = 1;
  s.warning_temp_c = 70;
  s.critical_temp_c = 85;
  s.ambient_c = 25;
  s.thermal_resistance_c_per_w = 3;
  s.thermal_time_constant = std::chrono::seconds(120);
  s.idle_power_w = 3;
  s.power_per_gbps_w = 5;
  s.throttle = {{75, 500 * kMB}};
  s.hysteresis_c = 2;
  s.max_write_bytes_per_s = 1000 * kMB;
  s.max_read_bytes_per_s = 2000 * kMB;
  s.post_cache_write_bytes_per_s = s.max_write_bytes_per_s;
  s.random_read_iops = 200'000;
  s.random_write_iops = 100'000;
  s.steady_random_write_iops = 25'000;
  s.steady_write_amplification = 3;
  return s;
}

struct Profile {
  const char* name;
  SimDriveSpec (*make)();
};
constexpr Profile kProfiles[] = {
    {"datacenter", datacenter},
    {"consumer", consumer},
    {"consumer-heatsink", consumer_heatsink},
    {"generic", generic},
};

// Every numeric key's bound, declared once (README "Simulated drives"). Wide
// enough for any drive on the market, narrow enough that the thermal model's
// arithmetic stays finite and meaningful.
constexpr NumberRange kTemperature{-40, 200, "°C"};
constexpr NumberRange kAmbient{-40, 100, "°C"};
constexpr NumberRange kMbps{0.001, 1e6, "MB/s"};
constexpr NumberRange kIops{1, 1e9, "IOPS"};
constexpr NumberRange kRatedDwpd{0.001, 1000, "DWPD"};
constexpr NumberRange kWarrantyYears{0.1, 50, "years"};
constexpr NumberRange kRatedTbw{0.001, 1e6, "TB"};
constexpr NumberRange kWriteDwpd{0, 1000, "DWPD"};
constexpr IntegerRange kSensors{1, 8};
constexpr ByteRange kCapacity{kDataUnitBytes, 1'000'000'000'000'000};  // 1 PB
constexpr ByteRange kBackgroundRate{0, 1'000'000'000'000};            // 1 TB/s; also <= max_*_mbps

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
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
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
  auto dwpd = t.number("rated_dwpd", kRatedDwpd);
  auto years = t.number("warranty_years", kWarrantyYears);
  const toml::node* tbw_node = t.raw().get("rated_tbw");
  if (tbw_node != nullptr) {
    if (dwpd || years) t.fail("rated_tbw", "give either rated_tbw or rated_dwpd + warranty_years");
    // A number is terabytes, a string a size ("600TB").
    std::optional<double> tbw;
    if (tbw_node->is_string()) {
      auto b = t.bytes("rated_tbw", {static_cast<std::uint64_t>(kRatedTbw.lo * kTB),
                                      static_cast<std::uint64_t>(kRatedTbw.hi * kTB)});
      tbw = static_cast<double>(*b);
    } else {
      tbw = *t.number("rated_tbw", kRatedTbw) * kTB;
    }
    s.rated_tbw_bytes = *tbw;
    if (s.warranty_years > 0) s.rated_dwpd = *tbw / (static_cast<double>(s.capacity_bytes) * 365 * s.warranty_years);
    return;
  }
  if (dwpd || years) {
    if (dwpd) s.rated_dwpd = *dwpd;
    if (years) s.warranty_years = *years;
    s.rated_tbw_bytes = 0;  // derive from DWPD so it follows the capacity
  }
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
  // Background load is not throttled (drive_model.cpp): a drive cannot be
  // asked to sustain more than it can write or read at all.
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

}  // namespace

const std::vector<std::string>& sim_profile_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& p : kProfiles) v.emplace_back(p.name);
    return v;
  }();
  return names;
}

SimDriveSpec sim_profile(std::string_view profile) {
  for (const auto& p : kProfiles) {
    if (profile == p.name) return p.make();
  }
  throw std::out_of_range("unknown sim profile \"" + std::string(profile) + "\"");
}

double rated_endurance_bytes(const SimDriveSpec& spec) {
  if (spec.rated_tbw_bytes > 0) return spec.rated_tbw_bytes;
  return spec.rated_dwpd * static_cast<double>(spec.capacity_bytes) * 365 * spec.warranty_years;
}

SimDriveSpec parse_sim_drive(TableReader& t) {
  auto profile = t.choice("profile", sim_profile_names());
  SimDriveSpec s = sim_profile(profile.value_or("generic"));

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
  if (s.name.empty()) t.fail_here(t.where() + ": missing name");
  if (s.serial.empty()) t.fail_here(t.where() + ": missing serial");

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
  if (auto f = t.choice("fault", {"none", "hang", "fail"})) {
    s.fault = *f == "hang" ? SimFault::hang : *f == "fail" ? SimFault::fail : SimFault::none;
  }
  return s;
}

}  // namespace nvmond
