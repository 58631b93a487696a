#pragma once
// What a simulated NVMe drive is: identity, endurance rating, thermal and
// performance parameters, background load and injected faults. Plain data in
// base units (bytes, bytes/s, seconds, watts, °C), filled from a profile and
// then from one `[[sim]]` table of the daemon's config.
//
// Config keys of a [[sim]] table (all optional except name and serial; a
// profile supplies every default, explicit keys override it):
//
//   name                 string   required; device path becomes "sim:NAME"
//   serial               string   required; the drive's identity and state-file name
//   model                string   default: the profile's model number
//   firmware             string   default: the profile's firmware revision
//   profile              "datacenter" | "consumer" | "consumer-heatsink" | "generic"
//                                 default "generic"
//   capacity             bytes or size string ("3.84TB")
//   rated_dwpd           drive writes per day over the warranty (with warranty_years)
//   warranty_years       years
//   rated_tbw            terabytes written (10^12 bytes), number or size string;
//                                 excludes rated_dwpd; DWPD follows over warranty_years
//   sensors              1..8 temperature sensors (sensor 1 reads the composite)
//   warning_temp_c       °C, WCTEMP and the default composite over-temperature threshold
//   critical_temp_c      °C, CCTEMP
//   ambient_c            °C, air temperature around the drive
//   thermal_resistance_c_per_w  °C/W, drive to air
//   thermal_time_constant       duration (seconds or "3m"), τ of the thermal RC
//   idle_power_w         W with no I/O
//   power_per_gbps_w     W per GB/s (10^9 B/s) of host writes; reads count half
//   throttle             array of tables { at_c = °C, write_mbps = MB/s }, ascending
//                                 at_c, descending write_mbps; [] disables throttling
//   hysteresis_c         °C below at_c before a throttle level is left
//   tmt_counters         bool, default true; false: the drive throttles without
//                                 counting it (SMART thermal-management transitions
//                                 and times stay 0), as many consumer drives do
//   host_thermal_management  bool, default false; true: Identify HCTMA says the
//                                 drive supports host controlled thermal management
//                                 and Get Features 10h reports its first two
//                                 throttle points as TMT1 and TMT2
//   max_write_mbps       MB/s (10^6 B/s), sequential write into fresh SLC / media
//   max_read_mbps        MB/s, sequential read
//   slc_cache            bytes or size string; 0: no SLC cache
//   post_cache_write_mbps  MB/s once the SLC cache is full
//   random_read_iops     4 KiB random read IOPS at high queue depth
//   random_write_iops    4 KiB random write IOPS fresh-out-of-box
//   steady_random_write_iops  random write IOPS once ~1x capacity has been written
//   steady_write_amplification  NAND/host bytes for random writes in steady state
//   read_latency, write_latency  durations: access latency of one command at QD1
//   write_rate           background host writes: bytes/s, or "50MB/s" / "50MB"
//   write_dwpd           background host writes in drive writes per day (excludes write_rate)
//   read_rate            background host reads: bytes/s or "50MB/s"
//   has_ocp              bool, the drive exposes the OCP C0 SMART log
//                                 (with the C3 latency monitor and C1 error recovery logs)
//   ocp_panic            bool, the C1 error recovery log reports a standing panic
//   fault                "none" | "hang" | "fail" | "stuck_temperature"
//   thermal_excursion_at  offset date-time: a thermal excursion the Persistent
//                                 Event log records once, at that drive time
//   hang                 duration, real time a hung command blocks (default 1h)
//   telemetry_interval   duration: the drive saves controller-initiated
//                                 telemetry once per this much power-on time
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/config_reader.hpp"

namespace nvmond {

// stuck_temperature: the SMART composite temperature stays at the value it
// had when the fault began while the model keeps heating and cooling (the
// throttle still follows the real temperature), as a failed sensor does.
enum class SimFault { none, hang, fail, stuck_temperature };

// Entering a level when the composite reaches at_c caps host writes at
// write_bytes_per_s; the level is left below at_c - hysteresis.
struct ThrottleLevel {
  double at_c = 0;
  double write_bytes_per_s = 0;
  bool operator==(const ThrottleLevel&) const = default;
};

// The endurance rating, as a datasheet gives it: rated_tbw_bytes when > 0,
// else rated_dwpd × capacity × 365 × warranty_years.
struct SimEndurance {
  double rated_dwpd = 0;
  double warranty_years = 0;
  double rated_tbw_bytes = 0;
  bool operator==(const SimEndurance&) const = default;
};

struct SimDriveSpec {
  std::string name;
  std::string serial;
  std::string model;
  std::string firmware;
  std::string profile;

  std::uint64_t capacity_bytes = 0;
  SimEndurance endurance;

  int sensors = 1;
  double warning_temp_c = 70;
  double critical_temp_c = 85;
  double ambient_c = 25;
  double thermal_resistance_c_per_w = 5;
  Duration thermal_time_constant = std::chrono::seconds(120);
  double idle_power_w = 3;
  double power_per_gbps_w = 5;
  std::vector<ThrottleLevel> throttle;
  double hysteresis_c = 2;
  bool tmt_counters = true;
  bool host_thermal_management = false;

  double max_write_bytes_per_s = 1e9;
  double max_read_bytes_per_s = 2e9;
  std::uint64_t slc_cache_bytes = 0;
  double post_cache_write_bytes_per_s = 1e9;
  double random_read_iops = 200'000;
  double random_write_iops = 100'000;
  double steady_random_write_iops = 30'000;
  double steady_write_amplification = 3;
  Duration read_latency = std::chrono::microseconds(80);
  Duration write_latency = std::chrono::microseconds(20);

  double background_write_bytes_per_s = 0;
  double background_read_bytes_per_s = 0;

  bool has_ocp = false;
  SimFault fault = SimFault::none;
  Duration hang = std::chrono::hours(1);
  // One unrecovered read error (Error Information log entry, SCT 2h SC 81h)
  // per this much power-on time; zero: none.
  Duration media_error_interval = Duration::zero();
  // One new Telemetry Controller-Initiated log (generation + 1, Data
  // Available set) per this much power-on time, derived like
  // media_error_interval so it survives a restart; zero: the log exists but
  // never holds data.
  Duration telemetry_interval = Duration::zero();
  // The PCIe link trained at x2 of its x4 (a reseated or damaged slot).
  bool degraded_link = false;
  // The drive's self-test history holds a failed extended test (segment 5),
  // and every self-test run on it fails (DriveModel::start_self_test).
  bool self_test_failure = false;
  // The OCP error recovery log (C1h) reports a panic (needs has_ocp).
  bool ocp_panic = false;
  // A thermal excursion (5 °C over WCTEMP) recorded in the Persistent Event
  // log at this drive time, once, whatever the model's temperature: an
  // excursion a test can place while nvmond is stopped.
  std::optional<WallTime> thermal_excursion_at;
  bool operator==(const SimDriveSpec&) const = default;
};

// Names accepted by `profile`, in documentation order.
const std::vector<std::string>& sim_profile_names();
// The defaults of one profile (name and serial left empty). Throws
// std::out_of_range for an unknown name.
SimDriveSpec sim_profile(std::string_view profile);

// Bytes of host writes the drive is rated for over its warranty.
double rated_endurance_bytes(const SimDriveSpec& spec);

// Reads the keys above from one [[sim]] table. Leaves unknown keys for the
// caller (the daemon reads its own keys from the same table and calls
// t.finish()). Throws ConfigError with file:line:col on a bad value.
SimDriveSpec parse_sim_drive(TableReader& t);

}  // namespace nvmond
