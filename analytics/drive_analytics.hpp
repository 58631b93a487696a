#pragma once
// One drive's derived health: wear rate against its rating and thermal
// throttling, kept across restarts through the Store.
//
// Per poll the daemon calls update(); it persists the sample, the thermal
// events and the detector state in one transaction, then recomputes the view.
// The view is plain data; analytics_metric_families() (metrics.hpp) turns
// views into Prometheus families.
//
// Throttling is also inferred from the throughput the drive's workloads
// report to `feed` (performance_watch.hpp), merged with the drive's own
// signals as source `performance`.
//
// Not thread-safe: one DriveAnalytics per drive, driven by that drive's poller.
// The Store and the feed are shared and must outlive it.
#include <optional>
#include <string>

#include "analytics/config.hpp"
#include "analytics/performance_watch.hpp"
#include "analytics/thermal.hpp"
#include "analytics/wear.hpp"
#include "collectors/health.hpp"
#include "store/store.hpp"

namespace nvmond {

struct ThermalView {
  bool throttling = false;
  int level = 0;  // current level, 0 when not throttling
  SourceMask active_sources = 0;
  std::optional<WallTime> current_start;         // start of the open event
  std::optional<double> last_peak_celsius;       // newest event, open or closed
  std::optional<double> throttle_onset_celsius;  // observed_throttle_onset
  std::uint64_t events = 0;                      // merged events
  std::array<std::uint64_t, kThrottleSourceCount> source_events{};
  std::array<double, kThrottleSourceCount> source_seconds{};
  std::array<std::uint64_t, kMaxThrottleLevel + 1> level_events{};
  std::array<double, kMaxThrottleLevel + 1> level_seconds{};
};

struct AnalyticsView {
  std::string serial;
  std::string model;
  WallTime updated{};  // time of the sample behind this view
  // False while the drive's history could not be read: the view then says
  // only what one snapshot can (lifetime rates, rating), no windows, no
  // thermal state.
  bool history = true;
  // Snapshots dated before the newest stored sample (the clock stepped
  // back): not stored, the view stays at the newest stored sample.
  std::uint64_t skipped_clock_behind = 0;
  WearView wear;
  ThermalView thermal;
};

class DriveAnalytics {
 public:
  explicit DriveAnalytics(Store& store, ThroughputFeed* feed = nullptr) : store_(store), performance_(feed) {}

  // The first call for a drive identity (serial + model) restores its state
  // from the Store, whatever its path now; until that succeeds view() holds
  // a snapshot-only view (history false) and the restore is retried on the
  // next call. A snapshot dated before the newest stored sample (a clock
  // stepped back) is counted, logged once, and neither stored nor analysed:
  // the view stays at the newest stored sample, so no counter goes back. On
  // a store error the in-memory analytics still advance and view() holds the
  // new view; the error (with context) is returned so the daemon can count
  // it. view() always names the drive.
  Result<AnalyticsView> update(const DriveInfo& info, const HealthSnapshot& snap, const AnalyticsConfig& config,
                               const DriveRating& rating = {});

  const AnalyticsView& view() const { return view_; }
  const PerformanceWatch& performance() const { return performance_; }

 private:
  StoreStatus restore(const DriveKey& key);
  // Recomputes the view as of `sample`; `history` false: without the store.
  StoreStatus refresh_view(const DriveInfo& info, const SampleRecord& sample, const HealthSnapshot& snap,
                           const AnalyticsConfig& config, const DriveRating& rating, bool history);

  Store& store_;
  std::optional<DriveKey> key_;  // set once restored
  std::optional<SampleRecord> last_;
  ThermalDetector thermal_;
  // What the store holds of the detector's state (stored_form), nullopt if
  // unknown. Compared as a value, not as its encoded text: encoding it on
  // every poll only to find it unchanged was a tenth of a drive-poll.
  std::optional<ThermalState> thermal_written_;
  PerformanceWatch performance_;
  bool clock_behind_ = false;  // for logging the state change once
  AnalyticsView view_;
};

ThermalView thermal_view(const ThermalState& s);

}  // namespace nvmond
