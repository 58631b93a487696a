#include "analytics/metrics.hpp"

#include <atomic>
#include <functional>
#include <string>

#include "core/log.hpp"

namespace nvmond {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;
// Adds the series of one drive to a family.
using Emit = std::function<void(const AnalyticsView&, const std::function<void(Labels, double)>&)>;

double timestamp_seconds(WallTime t) { return seconds(t.time_since_epoch()); }

struct FamilySpec {
  const char* name;
  MetricType type;
  const char* help;
  Emit emit;
  // Left out while the drive's history is unreadable: a fresh detector's
  // zeros would read as a counter reset, then a jump on recovery.
  bool needs_history = false;
};

template <typename T>
void if_set(const std::optional<T>& v, const std::function<void(Labels, double)>& add, Labels extra = {}) {
  if (v) add(std::move(extra), static_cast<double>(*v));
}

const std::vector<FamilySpec>& specs() {
  static const std::vector<FamilySpec> kSpecs = {
      {"nvme_dwpd", MetricType::Gauge,
       "Drive writes per day (host bytes written per day / capacity) over a window; window=\"lifetime\" "
       "is data units written over power-on time.",
       [](const AnalyticsView& v, const auto& add) {
         for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
           if_set(v.wear.windows[w].dwpd, add, {{"window", std::string(kWearWindows[w].label)}});
         }
         if_set(v.wear.lifetime_dwpd, add, {{"window", "lifetime"}});
       }},
      {"nvme_host_write_rate_bytes_per_second", MetricType::Gauge,
       "Host write rate over a window, from the data units written counter.",
       [](const AnalyticsView& v, const auto& add) {
         for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
           if_set(v.wear.windows[w].bytes_per_second, add, {{"window", std::string(kWearWindows[w].label)}});
         }
         if_set(v.wear.lifetime_bytes_per_second, add, {{"window", "lifetime"}});
       }},
      {"nvme_dwpd_window_covered_seconds", MetricType::Gauge,
       "Span of history actually behind each DWPD window (shorter than the window after gaps or a counter reset).",
       [](const AnalyticsView& v, const auto& add) {
         for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
           add({{"window", std::string(kWearWindows[w].label)}}, seconds(v.wear.windows[w].covered));
         }
       }},
      {"nvme_rated_dwpd", MetricType::Gauge, "Rated drive writes per day over the warranty period.",
       [](const AnalyticsView& v, const auto& add) {
         if (v.wear.rated && v.wear.rated->dwpd > 0) add({}, v.wear.rated->dwpd);
       }},
      {"nvme_rated_endurance_bytes", MetricType::Gauge, "Rated host bytes written over the warranty period.",
       [](const AnalyticsView& v, const auto& add) {
         if (v.wear.rated) add({}, v.wear.rated->bytes);
       }},
      {"nvme_rated_endurance_info", MetricType::Gauge,
       "Where the endurance rating comes from: config, drive (OCP endurance estimate) or builtin (fallback table).",
       [](const AnalyticsView& v, const auto& add) {
         if (v.wear.rated) add({{"source", std::string(v.wear.rated->source)}}, 1);
       }},
      {"nvme_endurance_used_ratio", MetricType::Gauge, "Host bytes written / rated endurance bytes.",
       [](const AnalyticsView& v, const auto& add) { if_set(v.wear.endurance_used_ratio, add); }},
      {"nvme_projected_wearout_timestamp_seconds", MetricType::Gauge,
       "When the rated endurance is reached at the 7-day write rate (Unix time).",
       [](const AnalyticsView& v, const auto& add) {
         if (v.wear.projected_wearout) add({}, timestamp_seconds(*v.wear.projected_wearout));
       }},
      {"nvme_write_amplification_ratio", MetricType::Gauge,
       "Physical media bytes written / host bytes written over 7 days (OCP drives only).",
       [](const AnalyticsView& v, const auto& add) { if_set(v.wear.write_amplification, add); }},
      {"nvme_write_rate_over_rating", MetricType::Gauge,
       "1 when the 7-day DWPD exceeds the rated DWPD times [wear] warn_factor.",
       [](const AnalyticsView& v, const auto& add) {
         if (v.wear.rated && v.wear.rated->dwpd > 0) add({}, v.wear.over_rating ? 1 : 0);
       }},
      {"nvme_thermal_throttling", MetricType::Gauge, "1 while the drive is thermally throttling.",
       [](const AnalyticsView& v, const auto& add) { add({}, v.thermal.throttling ? 1 : 0); },
       true},
      {"nvme_thermal_throttle_level", MetricType::Gauge,
       "Current throttle level: 0 none, 1 light, 2 heavy, 3 critical.",
       [](const AnalyticsView& v, const auto& add) { add({}, v.thermal.level); },
       true},
      {"nvme_thermal_throttle_last_peak_celsius", MetricType::Gauge,
       "Hottest sensor reading during the newest throttle event (open or closed).",
       [](const AnalyticsView& v, const auto& add) { if_set(v.thermal.last_peak_celsius, add); },
       true},
      {"nvme_thermal_throttle_merged_events_total", MetricType::Counter,
       "Throttle events, overlapping signals merged into one event.",
       [](const AnalyticsView& v, const auto& add) { add({}, static_cast<double>(v.thermal.events)); },
       true},
      {"nvme_thermal_throttle_events_total", MetricType::Counter,
       "Throttle events each signal source took part in (one event may count for several sources).",
       [](const AnalyticsView& v, const auto& add) {
         for (std::size_t i = 0; i < kThrottleSourceCount; ++i) {
           add({{"source", std::string(throttle_source_label(throttle_source(i)))}},
               static_cast<double>(v.thermal.source_events[i]));
         }
       },
       true},
      {"nvme_thermal_throttle_seconds_total", MetricType::Counter,
       "Seconds throttled by source: the drive's own time counters where it has them, the slow workload "
       "intervals for performance, else time between polls that both saw the signal.",
       [](const AnalyticsView& v, const auto& add) {
         for (std::size_t i = 0; i < kThrottleSourceCount; ++i) {
           add({{"source", std::string(throttle_source_label(throttle_source(i)))}}, v.thermal.source_seconds[i]);
         }
       },
       true},
      {"nvme_thermal_throttle_level_events_total", MetricType::Counter,
       "Throttle events in which the level was reached.",
       [](const AnalyticsView& v, const auto& add) {
         for (int l = 1; l <= kMaxThrottleLevel; ++l) {
           add({{"level", std::to_string(l)}}, static_cast<double>(v.thermal.level_events[static_cast<std::size_t>(l)]));
         }
       },
       true},
      {"nvme_thermal_throttle_level_seconds_total", MetricType::Counter,
       "Seconds spent throttling at each level (sums to the time spent in merged events).",
       [](const AnalyticsView& v, const auto& add) {
         for (int l = 1; l <= kMaxThrottleLevel; ++l) {
           add({{"level", std::to_string(l)}}, v.thermal.level_seconds[static_cast<std::size_t>(l)]);
         }
       },
       true},
      {"nvmond_history_skipped_samples_total", MetricType::Counter,
       "Polls not recorded in the history, by reason (clock_behind: dated before the newest stored sample).",
       [](const AnalyticsView& v, const auto& add) {
         add({{"reason", "clock_behind"}}, static_cast<double>(v.skipped_clock_behind));
       }},
  };
  return kSpecs;
}

// A series without a serial would merge every such drive into one: a bug
// upstream, never exported.
void refuse_unnamed(const AnalyticsView& v) {
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true)) {
    log::error("BUG: analytics view of a drive without a serial (model \"{}\"); its series are not exported",
               v.model);
  }
}

}  // namespace

std::vector<prometheus::MetricFamily> analytics_metric_families(std::span<const AnalyticsView> views) {
  std::vector<MetricFamily> out;
  for (const auto& spec : specs()) {
    MetricFamily f{spec.name, spec.help, spec.type, {}};
    for (const auto& v : views) {
      if (v.serial.empty()) {
        refuse_unnamed(v);
        continue;
      }
      if (spec.needs_history && !v.history) continue;
      spec.emit(v, [&](Labels extra, double value) {
        ClientMetric m;
        m.label.push_back({"serial", v.serial});
        for (auto& l : extra) m.label.push_back(std::move(l));
        if (spec.type == MetricType::Counter) m.counter.value = value;
        else m.gauge.value = value;
        f.metric.push_back(std::move(m));
      });
    }
    if (!f.metric.empty()) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace nvmond
