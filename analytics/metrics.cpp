#include "analytics/metrics.hpp"

#include <atomic>
#include <string>

#include "core/log.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {
namespace {

// Adds one series of the drive to the family: labels after serial (none or
// one), then its value.
struct Add {
  MetricSet& out;
  const Family& family;
  const LabelPrefix& id;
  void operator()(double value) const { out.add(family, id, value); }
  void operator()(std::string_view label, std::string_view text, double value) const {
    out.add(family, id, {{label, text}}, value);
  }
};
// Adds the series of one drive to a family.
using Emit = void (*)(const AnalyticsView&, const Add&);

double timestamp_seconds(WallTime t) { return seconds(t.time_since_epoch()); }

struct FamilySpec {
  Family family;
  Emit emit;
  // Left out while the drive's history is unreadable: a fresh detector's
  // zeros would read as a counter reset, then a jump on recovery.
  bool needs_history = false;
};

template <typename T>
void if_set(const std::optional<T>& v, const Add& add) {
  if (v) add(static_cast<double>(*v));
}

template <typename T>
void if_set(const std::optional<T>& v, const Add& add, std::string_view label, std::string_view text) {
  if (v) add(label, text, static_cast<double>(*v));
}

// One series per wear window (window="1d", ...), then window="lifetime".
void per_window(const AnalyticsView& v, const Add& add, std::optional<double> WindowRate::*rate,
                const std::optional<double>& lifetime) {
  for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
    if_set(v.wear.windows[w].*rate, add, "window", kWearWindows[w].label);
  }
  if_set(lifetime, add, "window", "lifetime");
}

template <typename T>
void per_source(const std::array<T, kThrottleSourceCount>& by_source, const Add& add) {
  for (std::size_t i = 0; i < kThrottleSourceCount; ++i) {
    add("source", throttle_source_label(throttle_source(i)), static_cast<double>(by_source[i]));
  }
}

template <typename T>
void per_level(const std::array<T, kMaxThrottleLevel + 1>& by_level, const Add& add) {
  for (int l = 1; l <= kMaxThrottleLevel; ++l) {
    add("level", std::to_string(l), static_cast<double>(by_level[static_cast<std::size_t>(l)]));
  }
}

const std::vector<FamilySpec>& specs() {
  static const std::vector<FamilySpec> kSpecs = {
      {{"nvme_dwpd", Family::gauge,
        "Drive writes per day (host bytes written per day / capacity) over a window; window=\"lifetime\" "
        "is data units written over power-on time."},
       [](const AnalyticsView& v, const Add& add) { per_window(v, add, &WindowRate::dwpd, v.wear.lifetime_dwpd); }},
      {{"nvme_host_write_rate_bytes_per_second", Family::gauge,
        "Host write rate over a window, from the data units written counter."},
       [](const AnalyticsView& v, const Add& add) {
         per_window(v, add, &WindowRate::bytes_per_second, v.wear.lifetime_bytes_per_second);
       }},
      {{"nvme_dwpd_window_covered_seconds", Family::gauge,
        "Span of history actually behind each DWPD window (shorter than the window after gaps or a counter reset)."},
       [](const AnalyticsView& v, const Add& add) {
         for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
           add("window", kWearWindows[w].label, seconds(v.wear.windows[w].covered));
         }
       }},
      {{"nvme_rated_dwpd", Family::gauge, "Rated drive writes per day over the warranty period."},
       [](const AnalyticsView& v, const Add& add) {
         if (v.wear.rated && v.wear.rated->dwpd > 0) add(v.wear.rated->dwpd);
       }},
      {{"nvme_rated_endurance_bytes", Family::gauge, "Rated host bytes written over the warranty period."},
       [](const AnalyticsView& v, const Add& add) {
         if (v.wear.rated) add(v.wear.rated->bytes);
       }},
      {{"nvme_rated_endurance_info", Family::gauge,
        "Where the endurance rating comes from: config, drive (OCP endurance estimate) or builtin (fallback table)."},
       [](const AnalyticsView& v, const Add& add) {
         if (v.wear.rated) add("source", v.wear.rated->source, 1);
       }},
      {{"nvme_endurance_used_ratio", Family::gauge, "Host bytes written / rated endurance bytes."},
       [](const AnalyticsView& v, const Add& add) { if_set(v.wear.endurance_used_ratio, add); }},
      {{"nvme_projected_wearout_timestamp_seconds", Family::gauge,
        "When the rated endurance is reached at the 7-day write rate (Unix time)."},
       [](const AnalyticsView& v, const Add& add) {
         if (v.wear.projected_wearout) add(timestamp_seconds(*v.wear.projected_wearout));
       }},
      {{"nvme_write_amplification_ratio", Family::gauge,
        "Physical media bytes written / host bytes written over 7 days (OCP drives only)."},
       [](const AnalyticsView& v, const Add& add) { if_set(v.wear.write_amplification, add); }},
      {{"nvme_write_rate_over_rating", Family::gauge,
        "1 when the 7-day DWPD exceeds the rated DWPD times [wear] warn_factor."},
       [](const AnalyticsView& v, const Add& add) {
         if (v.wear.rated && v.wear.rated->dwpd > 0) add(v.wear.over_rating ? 1 : 0);
       }},
      {{"nvme_thermal_throttling", Family::gauge, "1 while the drive is thermally throttling."},
       [](const AnalyticsView& v, const Add& add) { add(v.thermal.throttling ? 1 : 0); },
       true},
      {{"nvme_thermal_throttle_level", Family::gauge, "Current throttle level: 0 none, 1 light, 2 heavy, 3 critical."},
       [](const AnalyticsView& v, const Add& add) { add(v.thermal.level); },
       true},
      {{"nvme_thermal_throttle_last_peak_celsius", Family::gauge,
        "Hottest sensor reading during the newest throttle event (open or closed)."},
       [](const AnalyticsView& v, const Add& add) { if_set(v.thermal.last_peak_celsius, add); },
       true},
      {{"nvme_thermal_throttle_onset_celsius", Family::gauge,
        "Composite temperature at which the drive itself began to throttle: the lowest onset of its "
        "recent throttle events (absent until one is observed)."},
       [](const AnalyticsView& v, const Add& add) { if_set(v.thermal.throttle_onset_celsius, add); },
       true},
      {{"nvme_thermal_throttle_merged_events_total", Family::counter,
        "Throttle events, overlapping signals merged into one event."},
       [](const AnalyticsView& v, const Add& add) { add(static_cast<double>(v.thermal.events)); },
       true},
      {{"nvme_thermal_throttle_events_total", Family::counter,
        "Throttle events each signal source took part in (one event may count for several sources)."},
       [](const AnalyticsView& v, const Add& add) { per_source(v.thermal.source_events, add); },
       true},
      {{"nvme_thermal_throttle_seconds_total", Family::counter,
        "Seconds throttled by source: the drive's own time counters where it has them, the slow workload "
        "intervals for performance, else time between polls that both saw the signal."},
       [](const AnalyticsView& v, const Add& add) { per_source(v.thermal.source_seconds, add); },
       true},
      {{"nvme_thermal_throttle_level_events_total", Family::counter, "Throttle events in which the level was reached."},
       [](const AnalyticsView& v, const Add& add) { per_level(v.thermal.level_events, add); },
       true},
      {{"nvme_thermal_throttle_level_seconds_total", Family::counter,
        "Seconds spent throttling at each level (sums to the time spent in merged events)."},
       [](const AnalyticsView& v, const Add& add) { per_level(v.thermal.level_seconds, add); },
       true},
      {{"nvmond_history_skipped_samples_total", Family::counter,
        "Polls not recorded in the history, by reason (clock_behind: dated before the newest stored sample)."},
       [](const AnalyticsView& v, const Add& add) {
         add("reason", "clock_behind", static_cast<double>(v.skipped_clock_behind));
       }},
  };
  return kSpecs;
}

// A series without a serial would merge every such drive into one: a bug
// upstream, never exported.
void refuse_unnamed(const AnalyticsView& v) {
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true)) {
    log::error("BUG: analytics view of a drive without a serial (model \"{}\"); its series are not exported", v.model);
  }
}

}  // namespace

void add_analytics_metrics(std::span<const AnalyticsView> views, MetricSet& out) {
  // Families in table order, each with every drive's series.
  for (const auto& spec : specs()) out.declare(spec.family);
  for (const auto& v : views) {
    if (v.serial.empty()) {
      refuse_unnamed(v);
      continue;
    }
    const auto id = LabelPrefix::of({{"serial", v.serial}});
    for (const auto& spec : specs()) {
      if (spec.needs_history && !v.history) continue;
      spec.emit(v, Add{out, spec.family, id});
    }
  }
}

std::vector<prometheus::MetricFamily> analytics_metric_families(std::span<const AnalyticsView> views) {
  MetricSet out(MetricSet::Order::as_declared);
  add_analytics_metrics(views, out);
  return out.take();
}

}  // namespace nvmond
