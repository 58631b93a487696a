#pragma once
// How fast a drive is wearing out, from its SMART history.
//
// A window rate is (last − first) / (t_last − t_first) over the samples of the
// current counter segment inside the window: the covered span, not the
// window's nominal length, so a gap in polling (daemon down) neither dilutes
// nor inflates the rate. Counters never go backwards within a segment, so no
// rate is ever negative.
#include <array>
#include <optional>
#include <string_view>

#include "analytics/config.hpp"
#include "analytics/endurance.hpp"
#include "store/store.hpp"

namespace nvmond {

struct WearWindow {
  std::string_view label;  // "1d", "7d", "30d": the metric's window label
  Duration length;
};
inline constexpr std::array<WearWindow, 3> kWearWindows{{
    {"1d", std::chrono::hours(24)},
    {"7d", std::chrono::hours(24 * 7)},
    {"30d", std::chrono::hours(24 * 30)},
}};
// The window behind the projection, write amplification and the warning.
inline constexpr std::size_t kRecentWindow = 1;  // 7d
// A shorter covered span does not count for the warning: a burst of a few
// minutes says nothing about a daily rate.
inline constexpr Duration kMinWarnSpan = std::chrono::hours(1);

struct WindowRate {
  Duration covered{};                      // t_last − t_first; zero: no rate yet
  std::optional<double> bytes_per_second;  // host writes
  std::optional<double> dwpd;              // needs the capacity
};

struct WearView {
  std::array<WindowRate, kWearWindows.size()> windows{};
  // Lifetime: data units written over power-on time, from the drive's counters.
  std::optional<double> lifetime_bytes_per_second;
  std::optional<double> lifetime_dwpd;
  double host_bytes_written = 0;
  std::uint8_t percentage_used = 0;  // the drive's own estimate, may exceed 100
  std::optional<RatedEndurance> rated;
  std::optional<double> endurance_used_ratio;  // host bytes written / rated bytes
  // When rated bytes are reached at the 7 d rate; now if already past.
  std::optional<WallTime> projected_wearout;
  std::optional<double> write_amplification;  // Δ media bytes / Δ host bytes over 7 d
  // 7 d DWPD above rated DWPD × warn_factor.
  bool over_rating = false;
};

struct WearInputs {
  SampleRecord latest;
  // Per window: the oldest sample of latest.segment inside it (may be latest).
  std::array<std::optional<SampleRecord>, kWearWindows.size()> window_start{};
  std::uint64_t capacity_bytes = 0;
  std::optional<RatedEndurance> rated;
  WearConfig config;
};

WearView compute_wear(const WearInputs& in);

// For callers that hold the history in memory (tests, tools): the window
// starts of `latest` from samples sorted by time, honouring segments.
std::array<std::optional<SampleRecord>, kWearWindows.size()> window_starts(std::span<const SampleRecord> history,
                                                                           const SampleRecord& latest);

// True when `next` cannot continue `prev`'s segment: a counter went backwards.
bool is_counter_reset(const SampleRecord& prev, const SampleRecord& next);

}  // namespace nvmond
