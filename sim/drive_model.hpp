#pragma once
// The physics and bookkeeping of one simulated NVMe drive, shared by the
// simulated Device (the poller reads SMART from it) and the simulated IoEngine
// (workloads write through it), so heat, SLC cache, garbage collection and
// wear react to the workload the daemon runs.
//
// Time: the model owns no clock. Callers move it forward with advance_to(t)
// (the simulated Device does so with clock.wall() on every call; the sim
// IoEngine before each completion). Between two advances the model integrates
// the thermal RC exactly (piecewise-constant power, steps ≤ τ/20 and ≤ 10 s)
// and applies the configured background load.
//
// I/O: io() accounts one host command completed "now" (the last advanced
// time). Its heat is added as an impulse (energy / heat capacity), which is
// exact for the RC model whatever the call rate. The returned service time is
// the drive's occupancy for that command in its current state: bytes over the
// bandwidth allowed now (SLC or post-cache, capped by the throttle level), or
// 1/IOPS for small random commands. An engine that serialises service times
// (one command in service at a time, the rest queued) therefore sees the
// drive's throughput, throttled; add access_latency() for per-command latency
// at low queue depth.
//
// Faults the operator asks for in the drive's spec: media errors, derived
// from power-on time so they survive a restart with the counters (no state of
// their own), and a degraded PCIe link.
//
// Thread-safety: every method locks an internal mutex; the IoEngine and the
// poller may call from different threads. Non-copyable, non-movable: share it
// with std::shared_ptr.
#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "collectors/device.hpp"
#include "collectors/health.hpp"
#include "collectors/persistent_event.hpp"
#include "core/atomic_file.hpp"
#include "sim/sim_drive_spec.hpp"
#include "sim/valid_data_map.hpp"
#include "core/clock.hpp"
#include "core/io_op.hpp"
#include "core/result.hpp"
#include "core/u128.hpp"

namespace nvmond {

// Entries the simulated Error Information log keeps (Identify ELPE + 1).
inline constexpr std::size_t kSimErrorLogEntries = 16;
// Events the simulated Persistent Event log keeps; it drops its oldest.
inline constexpr std::size_t kSimEventLogEvents = 256;

// The simulated drive's Persistent Event log, as it keeps it: a power-on
// event when the drive is new, a thermal excursion each time the composite
// temperature rises to WCTEMP, and the one spec.thermal_excursion_at asks for.
struct SimEventLog {
  struct Event {
    std::uint64_t seq = 0;  // the drive's own numbering, for the fingerprint
    std::uint8_t type = 0;
    WallTime at{};
    std::uint8_t over_celsius = 0;  // thermal excursions
    std::uint8_t threshold_celsius = 0;
  };
  std::vector<Event> events;  // oldest first
  std::uint64_t next_seq = 1;
  bool hot = false;       // composite at or over WCTEMP at the last step
  bool injected = false;  // spec.thermal_excursion_at has been recorded
};

// Where the simulated telemetry log's data areas 1, 2 and 3 end (blocks of
// 512 bytes; block 0 is the header): 4 KiB, 32 KiB, 128 KiB of data.
inline constexpr std::array<std::uint16_t, 3> kSimTelemetryAreaLastBlock = {8, 64, 256};
// The IEEE OUI in the simulated telemetry header (a locally administered one).
inline constexpr std::uint32_t kSimTelemetryOui = 0x02AB5Eu;

// The short Device Self-test's length; NVMe bounds a short test at 2 minutes.
inline constexpr Duration kSimShortSelfTest = std::chrono::minutes(2);

// The simulated latency monitor's Active Thresholds A..D as stored (5 ms x
// (raw + 1)): 5, 10, 20 and 50 ms. Lower than a real drive's defaults so a
// throttled or deeply queued simulated drive fills the buckets.
inline constexpr std::array<std::uint8_t, kOcpLatencyBuckets> kSimLatencyThresholdsRaw = {0, 1, 3, 9};
// Its active window: 12 periods of 5 minutes (an hour).
inline constexpr std::uint16_t kSimLatencyWindowPeriods = 12;

class DriveModel {
 public:
  DriveModel(SimDriveSpec spec, WallTime start);
  DriveModel(const DriveModel&) = delete;
  DriveModel& operator=(const DriveModel&) = delete;

  // Integrates the drive up to t. An earlier or equal t is a no-op.
  void advance_to(WallTime t);
  // The same through a host idle a test declares (PTS HIR's wait states):
  // only then does the garbage collection reclaim room in the background.
  // The gaps between other advances are not host idle to the model: under an
  // accelerated clock the milliseconds between two rounds are minutes of
  // model time, where a real drive would have seen milliseconds.
  void idle_to(WallTime t);
  // Accounts one completed host command of `bytes` and returns its service
  // time (see above). bytes == 0 counts a command and takes no time.
  // Without a place the model cannot tell which LBAs a write makes valid: it
  // counts the whole drive as holding valid data, the state of a drive in
  // service and the least spare its garbage collection can have.
  Duration io(IoOp kind, std::uint64_t bytes, bool sequential);
  // The same for one command at a known place: a write makes
  // [offset, offset + bytes) valid.
  Duration io_at(IoOp kind, std::uint64_t offset, std::uint64_t bytes, bool sequential);
  // `count` commands of `bytes` each at once, for simulated runs that move in
  // steps of many commands (PTS rounds): the same accounting as `count` calls
  // of io(), and the drive's total occupancy for them.
  Duration io_batch(IoOp kind, std::uint64_t bytes, std::uint64_t count, bool sequential);
  // A batch of sequential commands from `at`, wrapping at the end of `range`
  // to its start: writes make that extent valid.
  Duration io_batch_sequential(IoOp kind, std::uint64_t bytes, std::uint64_t count, LbaRange range, std::uint64_t at);
  // A batch of random commands, `share` of them spread uniformly over each
  // zone's range: writes raise each zone's valid share as random writes do.
  struct RandomZone {
    LbaRange range;
    double share;
  };
  Duration io_batch_random(IoOp kind, std::uint64_t bytes, std::uint64_t count, std::span<const RandomZone> zones);
  // Service time one command would take now, without doing it.
  Duration service_time(IoOp kind, std::uint64_t bytes, bool sequential) const;
  // Deallocate (TRIM) of `range`: its data is no longer valid, which leaves
  // the garbage collection more spare.
  void deallocate(LbaRange range);
  // Secure erase / format: back to fresh-out-of-box (empty SLC cache, no GC
  // backlog, no valid data). Lifetime counters (SMART) are kept, as on a real
  // drive.
  void purge();

  // Snapshots at the last advanced time.
  SmartLog smart() const;
  std::optional<OcpSmartLog> ocp() const;  // nullopt unless spec.has_ocp
  TemperatureThresholds thresholds() const;
  // Get Features 10h: the first two throttle points as TMT1 and TMT2 (0
  // where there is no such level); nullopt unless
  // spec.host_thermal_management.
  std::optional<HostThermalManagement> host_thermal_management() const;
  // The Error Information log: the newest of the injected media errors (at
  // most kSimErrorLogEntries), newest first; empty when none.
  std::vector<ErrorLogEntry> error_log() const;
  // The Device Self-test log: the running test with its completion so far,
  // then the results of the tests run on this model, newest first, then the
  // history the drive came with: a passed short test, and with
  // spec.self_test_failure a newer failed extended test (first failed
  // segment 5), both at the power-on hours the model started (or was
  // restored) with. At most 20 results, as the log holds. The tests run
  // and a running one are not part of the saved state: a restored drive
  // shows its history only (a real drive keeps them).
  SelfTestLog self_test_log() const;
  // The Persistent Event log, timestamps host-set in the drive's time;
  // generation 1 for the drive's life.
  PersistentEventLog persistent_event_log() const;
  // Device Self-test: a short test takes kSimShortSelfTest, an extended one
  // extended_self_test_duration() of the model's time. It ends when the
  // model is advanced past its end: passed, or with spec.self_test_failure
  // failed in segment 2 (short) or 5 (extended). Error "busy" (what a drive
  // answers with Device Self-test in Progress) while one runs.
  std::optional<Error> start_self_test(SelfTestKind kind);
  // Ends the running test with result 1h (aborted by a Device Self-test
  // command); nothing to do when none runs.
  void abort_self_test();
  Duration extended_self_test_duration() const;
  // The Telemetry Controller-Initiated log: data areas 1..3 end at blocks
  // kSimTelemetryAreaLastBlock; with spec.telemetry_interval the drive has
  // saved floor(power-on time / interval) captures, the newest available
  // with that count (mod 256) as its generation. The data is a pattern of
  // the serial, the generation and the block, so a saved copy can be
  // checked byte for byte. telemetry_log reads through `data_area` (1..3).
  TelemetryHeader telemetry_header() const;
  TelemetryLog telemetry_log(unsigned data_area) const;
  // x4 at 16 GT/s, x2 with degraded_link; AER counters all zero.
  PcieLink pcie_link() const;
  ControllerIdentity controller_identity() const;
  DriveInfo identity() const;  // path "sim:NAME", backend "sim"

  double composite_celsius() const;
  double valid_share(LbaRange range) const;  // of the valid-data map, 0..1
  // Host writes the garbage collection has made room for while the host was
  // idle (bytes): they go at the fresh-out-of-box random write rate.
  double idle_gc_reserve_bytes() const;
  int throttle_level() const;                // 0 = not throttled, 1.. = throttle[level-1]
  double write_limit_bytes_per_s() const;    // for a sequential write issued now
  Duration access_latency(IoOp kind) const;  // spec read/write latency

  // The OCP Latency Monitor (C3h): one host command of `kind` that took
  // `latency` from submission to completion, as the engine timed it, counted
  // in the bucket the monitor's thresholds (kSimLatencyThresholdsRaw) put it
  // in; faster than threshold A is not counted. No-op without has_ocp.
  // `count` commands of the same latency: a simulated PTS slice.
  void record_latency(IoOp kind, Duration latency, std::uint64_t count = 1);
  // nullopt unless spec.has_ocp, like ocp().
  std::optional<OcpLatencyMonitorLog> ocp_latency_monitor() const;
  // The C1h log: no panic, or with spec.ocp_panic a standing one.
  std::optional<OcpErrorRecoveryLog> ocp_error_recovery() const;
  WallTime now() const;                               // last advanced time
  const SimDriveSpec& spec() const { return spec_; }  // immutable after construction

  // Set Features FID 04h. sensor 0 = composite, 1..8 = temperature sensors.
  // Returns false (the drive's "invalid field") for an absent sensor.
  bool set_over_threshold(int sensor, std::uint16_t kelvin);
  bool set_under_threshold(int sensor, std::uint16_t kelvin);

  // Injected faults, shared by every SimDevice handle over this model.
  SimFault fault() const;
  void set_fault(SimFault fault);
  // Blocks the calling thread while the fault is "hang", for at most the
  // spec's hang duration of real time. Returns early when the fault is
  // cleared; after release_hangs() it never blocks again (shutdown must not
  // wait an hour).
  void wait_if_hung() const;
  void release_hangs();
  int hung_calls() const;  // threads blocked in wait_if_hung now

  // Persistence: every counter and the physical state as JSON (128-bit
  // values as decimal strings). load_state replaces the state with a saved
  // one of the same serial; nullopt on success. Time continues from the saved
  // time: the gap to the next advance_to is integrated like any other.
  std::string save_state() const;
  std::optional<Error> load_state(const std::string& json);
  // After a restore, the caller's clock may be behind the saved time (an
  // accelerated demo clock restarted from real time): rebase the model's
  // time to `t` keeping every counter. No-op when t is later.
  void resume_at(WallTime t);

 private:
  // The SMART log's thermal counters with time in exact seconds: integrated
  // in steps of a fraction of a second, truncated to the log's units only
  // when the log is read.
  struct ExactThermalCounters {
    double warning_temp_s = 0;
    double critical_temp_s = 0;
    std::uint32_t tmt1_transitions = 0;
    std::uint32_t tmt2_transitions = 0;
    double tmt1_s = 0;
    double tmt2_s = 0;
    SmartThermalCounters in_log_units() const;
  };
  struct Counters {
    u128 host_read_bytes = 0;  // host commands + background load
    u128 host_write_bytes = 0;
    u128 read_commands = 0;  // host commands only; background adds bytes/128 KiB
    u128 write_commands = 0;
    u128 background_read_bytes = 0;
    u128 background_write_bytes = 0;
    u128 media_write_bytes = 0;  // host writes × write amplification
    double media_write_fraction = 0;
    u128 busy_ns = 0;
    u128 power_on_ns = 0;
    u128 power_cycles = 1;
    ExactThermalCounters thermal;
    std::uint32_t throttle_events = 0;
  };
  struct Physical {
    double temp_c = 0;  // composite (node) temperature
    int level = 0;      // throttle level
    std::uint64_t slc_used = 0;
    // Free space the garbage collection reclaimed while the host was idle,
    // in bytes of host writes it can take without collecting in the
    // foreground (PTS host idle recovery). Spent by random writes first.
    double gc_reserve = 0;
    u128 written_since_purge = 0;  // drives the GC cliff
    WallTime last_io{};
    // Background load is emitted as round(rate × elapsed) so that any split
    // of the same span into advances writes the same bytes.
    std::int64_t background_elapsed_ns = 0;
  };

  struct RunningSelfTest {
    SelfTestKind kind = SelfTestKind::short_test;
    WallTime started{};
    Duration length{};
    u128 power_on_ns_at_start = 0;
  };
  void step_locked(Duration dt);
  void finish_self_test_locked();  // the running test, once the model's time passed its end
  void end_self_test_locked(std::uint8_t result, std::uint8_t segment, u128 power_on_ns);
  void update_level_locked();
  double write_cap_locked() const;              // throttle cap, bytes/s (inf if none)
  double background_write_rate_locked() const;  // background writes now, bytes/s
  double host_write_cap_locked() const;         // what the cap leaves the host, bytes/s
  double read_scale_locked() const;             // throttle cap / max write
  double gc_progress_locked() const;            // 0 = FOB, 1 = steady state
  double random_write_iops_locked() const;
  double write_amplification_locked(bool sequential) const;
  double op_waf_locked() const;  // steady random WAF for the valid data now
  double write_seconds_locked(std::uint64_t bytes, std::uint64_t count, bool sequential, std::uint64_t slc_used) const;
  void reclaim_while_idle_locked(double idle_s);
  void advance_locked(WallTime t);
  bool host_idle_ = false;  // inside idle_to: the collection may run
  double read_seconds_locked(std::uint64_t bytes, std::uint64_t count, bool sequential) const;
  Duration io_locked(IoOp kind, std::uint64_t bytes, std::uint64_t count, bool sequential);
  void account_locked(IoOp kind, std::uint64_t bytes, std::uint64_t count, bool sequential, Duration service);
  void add_heat_locked(double bytes, IoOp kind);
  double sensor_celsius_locked(int sensor) const;  // 1..8
  std::uint8_t critical_warning_locked() const;
  std::uint8_t percentage_used_locked() const;
  std::uint64_t media_errors_locked() const;
  std::uint64_t telemetry_captures_locked() const;
  TelemetryHeader telemetry_header_locked() const;
  void record_event_locked(SimEventLog::Event event);
  void note_thermal_events_locked(WallTime end);

  const SimDriveSpec spec_;
  const double heat_capacity_j_per_c_;
  mutable std::mutex mu_;
  mutable std::condition_variable hang_cv_;
  WallTime now_;
  Counters c_;
  Physical p_;
  ValidDataMap valid_;
  TemperatureThresholds thresholds_;
  SimEventLog events_;
  SimFault fault_;
  // What the SMART composite reads while the fault is stuck_temperature.
  std::optional<double> stuck_temp_c_;
  std::optional<RunningSelfTest> self_test_;
  std::vector<SelfTestResult> self_test_results_;  // of tests run on this model, newest first
  std::uint64_t history_power_on_hours_ = 0;       // of the history the drive came with
  // Latency monitor buckets [bucket][op]: since the model started (static)
  // and since the current window began (active). Not saved with the state:
  // a drive's monitor starts over when it is enabled again at power-on.
  std::array<std::array<std::uint32_t, kOcpLatencyOps>, kOcpLatencyBuckets> latency_static_{};
  std::array<std::array<std::uint32_t, kOcpLatencyOps>, kOcpLatencyBuckets> latency_active_{};
  std::optional<WallTime> latency_window_start_;
  double max_temp_c_ = 0;  // highest composite temperature the model reached
  bool hangs_released_ = false;
  mutable int hung_calls_ = 0;
};

// Writes the model's state to `path` atomically (temporary file in the same
// directory, rename; `durability` says whether it is fsynced to survive a
// host crash too), so a kill -9 leaves either the old or the new state.
// nullopt on success.
std::optional<Error> save_state_file(const DriveModel& model, const std::string& path,
                                     Durability durability = Durability::power_loss);
// Restores a model from `path`. Error reason "absent" when there is no file.
std::optional<Error> load_state_file(DriveModel& model, const std::string& path);

}  // namespace nvmond
