#include "collectors/analytics/config.hpp"

namespace nvmond {

AnalyticsConfig read_analytics_config(TableReader& root) {
  AnalyticsConfig c;
  if (auto wear = root.table("wear")) {
    if (auto f = wear->number_in("warn_factor", 0.01, 1000)) c.wear.warn_factor = *f;
    wear->finish();
  }
  if (auto thermal = root.table("thermal")) {
    c.thermal.threshold_c = thermal->number_in("threshold_c", -50, 200);
    if (auto g = thermal->duration("max_gap")) {
      if (g->count() == 0) thermal->fail("max_gap", "must be positive");
      c.thermal.max_gap = *g;
    }
    thermal->finish();
  }
  if (auto store = root.table("store")) {
    if (auto raw = store->duration("raw_retention")) {
      if (*raw < std::chrono::hours(1)) store->fail("raw_retention", "must be at least 1h");
      c.retention.raw = *raw;
    }
    if (auto hourly = store->duration("hourly_retention")) c.retention.hourly = *hourly;
    if (c.retention.hourly.count() != 0 && c.retention.hourly < c.retention.raw) {
      store->fail("hourly_retention", "must be 0 (forever) or at least raw_retention");
    }
    store->finish();
  }
  return c;
}

DriveRating read_drive_rating(TableReader& device) {
  DriveRating r;
  r.rated_dwpd = device.number_in("rated_dwpd", 0.001, 1000);
  r.warranty_years = device.number_in("warranty_years", 0.1, 50);
  r.rated_tbw_bytes = device.bytes("rated_tbw");
  if (r.rated_tbw_bytes && *r.rated_tbw_bytes == 0) device.fail("rated_tbw", "must be positive");
  if (r.rated_dwpd && r.rated_tbw_bytes) {
    device.fail("rated_tbw", "give either rated_dwpd (with warranty_years) or rated_tbw, not both");
  }
  return r;
}

}  // namespace nvmond
