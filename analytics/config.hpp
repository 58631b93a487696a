#pragma once
// Settings of the wear and thermal analytics: plain data, read once at start-up
// (and on reload) from the optional [wear], [thermal] (with [thermal.performance]) and [store] tables of
// the daemon's config. Misconfiguration throws ConfigError with file:line:col.
#include <optional>

#include "analytics/performance_throttle.hpp"
#include "core/clock.hpp"
#include "core/config_reader.hpp"
#include "store/store.hpp"

namespace nvmond {

struct WearConfig {
  // Warn when the write rate over the 7 d window exceeds rated DWPD × warn_factor.
  double warn_factor = 1.0;
};

struct ThermalConfig {
  // Extra throttle threshold for the composite and every sensor, °C (besides
  // the drive's own WCTEMP/CCTEMP and its temperature-threshold features).
  std::optional<double> threshold_c;
  // An event still active after a longer gap between polls (daemon down, poll
  // stalled) is closed at its last sighting and a new one opened: we cannot
  // claim it throttled through time nobody watched.
  Duration max_gap = std::chrono::minutes(15);
  // [thermal.performance]: throttling inferred from a fixed workload's
  // throughput (performance_throttle.hpp).
  PerformanceThrottleSettings performance;
};

struct AnalyticsConfig {
  WearConfig wear;
  ThermalConfig thermal;
  RetentionPolicy retention;  // [store] raw_retention, hourly_retention
};

// The operator's endurance rating of one drive, from its [[device]] table.
// Either rated_dwpd (with warranty_years, default 5) or rated_tbw; both unset
// means "look the model up" (see endurance.hpp).
struct DriveRating {
  std::optional<double> rated_dwpd;
  std::optional<double> warranty_years;
  std::optional<std::uint64_t> rated_tbw_bytes;  // total bytes written, e.g. "600TB"
};

// Reads [wear], [thermal] and [store] if present. Does not call finish() on
// `root` (other sections belong to others); it does on the tables it owns.
AnalyticsConfig read_analytics_config(TableReader& root);

// Reads rated_dwpd, warranty_years and rated_tbw from a device table; the
// caller owns that table and calls finish() on it.
DriveRating read_drive_rating(TableReader& device);

}  // namespace nvmond
