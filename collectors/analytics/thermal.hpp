#pragma once
// Thermal throttling: when a drive slowed down to cool off, why, how hot, how
// long — from every signal NVMe and OCP give, merged into one event while any
// of them is active.
//
// Signals (stable labels, used as the metric `source` label):
//   tmt1, tmt2            thermal-management transition and time counters
//   warning_temp_time     composite above WCTEMP minutes counter
//   critical_temp_time    composite above CCTEMP minutes counter
//   critical_warning      the temperature bit of the SMART critical warning
//   ocp                   OCP C0 thermal throttling status / event count
//   sensor_threshold      composite or a sensor at/over WCTEMP, CCTEMP, its
//                         over-temperature feature threshold or [thermal] threshold_c
// Levels: 1 light (TMT1, warning temperature, OCP status 1), 2 heavy (TMT2,
// OCP 2), 3 critical (critical temperature, CCTEMP, OCP 3).
//
// Counter signals are deltas between polls: they say throttling happened in
// (previous poll, this poll]. A counter that went backwards (reset, drive
// swapped) is rebased, never turned into a phantom event or negative seconds.
// An event ends at the last poll that saw any signal.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/analytics/config.hpp"
#include "collectors/health.hpp"

namespace nvmond {

enum class ThrottleSource : std::uint8_t {
  tmt1,
  tmt2,
  warning_temp_time,
  critical_temp_time,
  critical_warning,
  ocp,
  sensor_threshold,
};
inline constexpr std::size_t kThrottleSourceCount = 7;
inline constexpr int kMaxThrottleLevel = 3;
using SourceMask = std::uint8_t;  // bit i: ThrottleSource(i)

std::string_view throttle_source_label(ThrottleSource s);
inline ThrottleSource throttle_source(std::size_t i) { return static_cast<ThrottleSource>(i); }
std::vector<std::string> throttle_source_labels(SourceMask mask);

// The drive's raw counters at the previous poll.
struct ThermalCounters {
  WallTime time{};
  std::uint32_t tmt1_transitions = 0;
  std::uint32_t tmt2_transitions = 0;
  std::uint32_t tmt1_seconds = 0;
  std::uint32_t tmt2_seconds = 0;
  std::uint32_t warning_minutes = 0;
  std::uint32_t critical_minutes = 0;
  std::optional<std::uint8_t> ocp_count;
};

struct ThrottleEvent {
  WallTime start{};
  WallTime last_seen{};         // the last poll with an active signal
  std::optional<WallTime> end;  // set when closed (== last_seen)
  double peak_celsius = 0;
  SourceMask sources = 0;
  int level = 0;                // highest level reached
  std::uint8_t levels_seen = 0; // bit L: level L was reached
};

// Everything the detector must remember across polls and restarts.
struct ThermalState {
  std::optional<ThermalCounters> last;  // nullopt before the first poll
  SourceMask active = 0;                // sources active at the last poll
  int level = 0;                        // level at the last poll, 0: not throttling
  std::optional<ThrottleEvent> open;
  std::optional<double> last_peak_celsius;  // newest event's peak, open or closed
  std::uint64_t events = 0;                 // merged events
  std::array<std::uint64_t, kThrottleSourceCount> source_events{};  // events a source took part in
  std::array<double, kThrottleSourceCount> source_seconds{};
  std::array<std::uint64_t, kMaxThrottleLevel + 1> level_events{};  // [L]: events reaching L
  std::array<double, kMaxThrottleLevel + 1> level_seconds{};        // [L]: time spent at L
};

// What one poll shows.
struct ThermalSignals {
  SourceMask active = 0;
  int level = 0;
  // Seconds reported by the drive's own time counters since the last poll.
  std::array<double, kThrottleSourceCount> counted_seconds{};
  double hottest_celsius = 0;  // composite and sensors now
};

ThermalSignals read_thermal_signals(const std::optional<ThermalCounters>& last,
                                    const HealthSnapshot& snap, const ControllerIdentity& id,
                                    const ThermalConfig& config);

// Not thread-safe: one poller per drive.
class ThermalDetector {
 public:
  explicit ThermalDetector(ThermalState state = {}) : state_(std::move(state)) {}
  // Returns the events to persist: those closed by this poll and the open one
  // (rewritten on every poll). A snapshot not newer than the last is ignored.
  std::vector<ThrottleEvent> update(const HealthSnapshot& snap, const ControllerIdentity& id,
                                    const ThermalConfig& config);
  const ThermalState& state() const { return state_; }

 private:
  ThermalState state_;
};

// Persisted form (JSON text), for the Store's per-drive state.
std::string encode_thermal_state(const ThermalState& s);
std::optional<ThermalState> decode_thermal_state(std::string_view text);

}  // namespace nvmond
