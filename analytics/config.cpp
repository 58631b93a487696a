#include "analytics/config.hpp"

namespace nvmond {
namespace {

using namespace std::chrono_literals;

// Bounds of the analytics keys (docs/configuration.md).
constexpr NumberRange kWarnFactor{0.01, 1000};
constexpr NumberRange kThresholdC{-40, 200, "°C"};
constexpr DurationRange kMaxGap{1s, 24h * 365};
constexpr NumberRange kDropShare{0.01, 0.99};
constexpr NumberRange kMarginC{0, 50, "°C"};
constexpr IntegerRange kBaselineIntervals{1, 10'000};
constexpr DurationRange kRawRetention{1h, 24h * 36500};
constexpr DurationRange kHourlyRetention{0s, 24h * 36500};
constexpr NumberRange kRatedDwpd{0.001, 1000, "DWPD"};
constexpr NumberRange kWarrantyYears{0.1, 50, "years"};
constexpr ByteRange kRatedTbw{1'000'000'000, 1'000'000'000'000'000'000};  // 1 GB .. 1 EB

}  // namespace

AnalyticsConfig read_analytics_config(TableReader& root) {
  AnalyticsConfig c;
  if (auto wear = root.table("wear")) {
    if (auto f = wear->number("warn_factor", kWarnFactor)) c.wear.warn_factor = *f;
    wear->finish();
  }
  if (auto thermal = root.table("thermal")) {
    c.thermal.threshold_c = thermal->number("threshold_c", kThresholdC);
    if (auto g = thermal->duration("max_gap", kMaxGap)) c.thermal.max_gap = *g;
    if (auto perf = thermal->table("performance")) {
      PerformanceThrottleSettings& p = c.thermal.performance;
      if (auto v = perf->number("drop_share", kDropShare)) p.drop_share = *v;
      if (auto v = perf->number("margin_c", kMarginC)) p.margin_c = *v;
      if (auto v = perf->integer("baseline_intervals", kBaselineIntervals)) p.baseline_intervals = static_cast<int>(*v);
      perf->finish();
    }
    thermal->finish();
  }
  if (auto store = root.table("store")) {
    if (auto raw = store->duration("raw_retention", kRawRetention)) c.retention.raw = *raw;
    if (auto hourly = store->duration("hourly_retention", kHourlyRetention)) c.retention.hourly = *hourly;
    if (c.retention.hourly.count() != 0 && c.retention.hourly < c.retention.raw) {
      store->fail("hourly_retention", "must be 0 (forever) or at least raw_retention");
    }
    store->finish();
  }
  return c;
}

DriveRating read_drive_rating(TableReader& device) {
  DriveRating r;
  r.rated_dwpd = device.number("rated_dwpd", kRatedDwpd);
  r.warranty_years = device.number("warranty_years", kWarrantyYears);
  r.rated_tbw_bytes = device.terabytes("rated_tbw", kRatedTbw);
  if (r.rated_dwpd && r.rated_tbw_bytes) {
    device.fail("rated_tbw", "give either rated_dwpd (with warranty_years) or rated_tbw, not both");
  }
  return r;
}

}  // namespace nvmond
