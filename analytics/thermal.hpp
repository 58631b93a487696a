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
//   performance           inferred, not reported: a fixed workload's throughput
//                         fell while the drive was near WCTEMP
//                         (performance_throttle.hpp); level 1
// Levels: 1 light (TMT1, warning temperature, OCP status 1), 2 heavy (TMT2,
// OCP 2), 3 critical (critical temperature, CCTEMP, OCP 3).
//
// Counter signals are deltas between polls: they say throttling happened in
// (previous poll, this poll]. A counter that went backwards (reset, drive
// swapped) is rebased, never turned into a phantom event or negative seconds.
// An event ends at the last poll that saw any signal, or where the inferred
// `performance` episode ended when it was the only one left.
//
// Throttle onset: the first time in an event that one of the throttle
// signals the drive itself reports (tmt1, tmt2, ocp: not the temperature
// thresholds nvmond compares with, nor the inferred performance signal,
// which a slowdown of another cause can raise) is active, the composite
// temperature then is recorded, interpolated between the polls around the
// time the signal says throttling began. The newest kThrottleOnsetsKept are
// kept: the drive's real throttle point, as observed.
//
// Merging, and what the metrics count: overlapping signals of any source,
// inferred or reported, make one event (an inferred episode that may have
// begun before the newest event closed reopens it: `onset_after`). The
// merged event count and the per-level seconds count each event and each
// second once; the per-source counts say which sources took part (an event of
// tmt1 and performance counts once for each), so summing them over `source`
// double-counts overlap.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analytics/config.hpp"
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
  performance,
};
inline constexpr std::size_t kThrottleSourceCount = 8;  // SourceMask has room for 8
inline constexpr int kMaxThrottleLevel = 3;
using SourceMask = std::uint8_t;  // bit i: ThrottleSource(i)
inline constexpr std::size_t kThrottleOnsetsKept = 8;

std::string_view throttle_source_label(ThrottleSource s);
inline ThrottleSource throttle_source(std::size_t i) { return static_cast<ThrottleSource>(i); }
std::vector<std::string> throttle_source_labels(SourceMask mask);

// The drive's raw counters at the previous poll.
struct ThermalCounters {
  WallTime time{};
  SmartThermalCounters smart;
  std::optional<std::uint8_t> ocp_count;
  // The composite then; 0: not known. Not in the persisted form: the
  // drive's newest stored sample holds it (DriveAnalytics::restore).
  std::uint16_t composite_k = 0;
  bool operator==(const ThermalCounters&) const = default;
};

struct ThrottleEvent {
  WallTime start{};
  WallTime last_seen{};         // the last poll with an active signal
  std::optional<WallTime> end;  // set when closed (== last_seen)
  double peak_celsius = 0;
  SourceMask sources = 0;
  int level = 0;                 // highest level reached
  std::uint8_t levels_seen = 0;  // bit L: level L was reached
  bool operator==(const ThrottleEvent&) const = default;
};

// Everything the detector must remember across polls and restarts.
struct ThermalState {
  std::optional<ThermalCounters> last;  // nullopt before the first poll
  SourceMask active = 0;                // sources active at the last poll
  int level = 0;                        // level at the last poll, 0: not throttling
  std::optional<ThrottleEvent> open;
  // The newest closed event and the poll that closed it: an inferred episode
  // reported late (a workload's interval ends after the poll) that began by
  // then reopens it instead of counting the overlap twice.
  std::optional<ThrottleEvent> last_closed;
  WallTime last_closed_at{};
  std::optional<double> last_peak_celsius;                          // newest event's peak, open or closed
  std::uint64_t events = 0;                                         // merged events
  std::array<std::uint64_t, kThrottleSourceCount> source_events{};  // events a source took part in
  std::array<double, kThrottleSourceCount> source_seconds{};
  std::array<std::uint64_t, kMaxThrottleLevel + 1> level_events{};  // [L]: events reaching L
  std::array<double, kMaxThrottleLevel + 1> level_seconds{};        // [L]: time spent at L
  // Composite °C at the drive's own throttle onsets, oldest first, at most
  // kThrottleOnsetsKept.
  std::vector<double> onsets_celsius;
  bool operator==(const ThermalState&) const = default;
};

// What one poll shows.
struct ThermalSignals {
  SourceMask active = 0;
  int level = 0;
  // Seconds reported by the drive's own time counters since the last poll.
  std::array<double, kThrottleSourceCount> counted_seconds{};
  double hottest_celsius = 0;  // composite and sensors now
};

// What the throughput of the workloads says about (previous poll, this poll]
// (performance_watch.hpp). Its times are interval-exact, finer than polls.
struct InferredThrottle {
  bool active = false;              // throttling at some time in the span
  double seconds = 0;               // how long, within the span
  std::optional<WallTime> started;  // an episode began in the span, here
  std::optional<WallTime> ended;    // and the last one ended here (not throttling now)
  // With `started`: the slowdown began after this, not necessarily at
  // `started`. The interval before the first slow one can have slowed too
  // little to cross the line, so the onset lies anywhere from that
  // interval's start on; a drive signal that closed after it may have seen
  // the same excursion.
  std::optional<WallTime> onset_after;
};

ThermalSignals read_thermal_signals(const std::optional<ThermalCounters>& last, const HealthSnapshot& snap,
                                    const ControllerIdentity& id, const ThermalConfig& config);

// Not thread-safe: one poller per drive.
class ThermalDetector {
 public:
  explicit ThermalDetector(ThermalState state = {}) : state_(std::move(state)) {}
  // Returns the events to persist: those closed by this poll and the open one
  // (rewritten on every poll). A snapshot not newer than the last is ignored.
  // `inferred` joins the drive's own signals as source `performance`: an
  // event it alone opens starts when its episode started (reopening the
  // newest event if that closed after the episode may have begun), and one
  // it alone keeps open ends when its episode ended, not at the next poll.
  std::vector<ThrottleEvent> update(const HealthSnapshot& snap, const ControllerIdentity& id,
                                    const ThermalConfig& config, const InferredThrottle& inferred = {});
  const ThermalState& state() const { return state_; }

 private:
  ThermalState state_;
};

// The drive's throttle point as observed: the lowest of the kept onsets, or
// nullopt before the first. Each onset is at or a little above the point
// (a signal without a time of its own dates the onset at the poll that saw
// it, after the crossing), so the lowest is the closest; the point is the
// drive's setting, so recent events agree on it.
std::optional<double> observed_throttle_onset(const ThermalState& s);

// Persisted form (JSON text), for the Store's per-drive state. Version 2
// has 8 sources; a version-1 state (7 sources, before `performance`) loads
// with the 8th at zero.
std::string encode_thermal_state(const ThermalState& s);
std::optional<ThermalState> decode_thermal_state(std::string_view text);

}  // namespace nvmond
