#include "collectors/analytics/drive_analytics.hpp"

#include "core/log.hpp"

namespace nvmond {
namespace {

constexpr const char* kThermalStateKey = "thermal";

SampleRecord sample_of(const HealthSnapshot& snap) {
  SampleRecord s;
  s.time = snap.taken;
  s.data_units_written = snap.smart.data_units_written;
  s.data_units_read = snap.smart.data_units_read;
  s.power_on_hours = snap.smart.power_on_hours;
  s.percentage_used = snap.smart.percentage_used;
  s.composite_temperature_k = snap.smart.composite_temperature_k;
  if (snap.ocp) s.media_bytes_written = snap.ocp->physical_media_units_written;
  return s;
}

ThermalEventRecord record_of(const ThrottleEvent& e) {
  return {e.start, e.end, e.peak_celsius, throttle_source_labels(e.sources), e.level};
}

}  // namespace

ThermalView thermal_view(const ThermalState& s) {
  ThermalView v;
  v.throttling = s.open.has_value() && s.active != 0;
  v.level = v.throttling ? s.level : 0;
  v.active_sources = v.throttling ? s.active : 0;
  if (s.open) v.current_start = s.open->start;
  v.last_peak_celsius = s.last_peak_celsius;
  v.events = s.events;
  v.source_events = s.source_events;
  v.source_seconds = s.source_seconds;
  v.level_events = s.level_events;
  v.level_seconds = s.level_seconds;
  return v;
}

StoreStatus DriveAnalytics::restore(const DriveKey& key) {
  auto last = store_.last_sample(key);
  if (!last) return last.error();
  auto state = store_.state(key, kThermalStateKey);
  if (!state) return state.error();
  ThermalState thermal;
  if (*state) {
    if (auto decoded = decode_thermal_state(**state)) {
      thermal = std::move(*decoded);
    } else {
      log::warn("drive {} ({}): stored thermal state is unreadable; starting the detector afresh",
                key.serial, key.model);
    }
  }
  last_ = *last;
  thermal_ = ThermalDetector(std::move(thermal));
  key_ = key;
  return std::monostate{};
}

Result<AnalyticsView> DriveAnalytics::update(const DriveInfo& info, const HealthSnapshot& snap,
                                             const AnalyticsConfig& config, const DriveRating& rating) {
  DriveKey key{info.serial, info.model};
  if (!key_ || !(*key_ == key)) {
    if (auto r = restore(key); !r) return r.error();
  }
  if (last_ && snap.taken <= last_->time) return view_;

  SampleRecord sample = sample_of(snap);
  sample.segment = 0;
  if (last_) {
    sample.segment = last_->segment;
    if (is_counter_reset(*last_, sample)) {
      ++sample.segment;
      log::info("drive {} ({}) at {}: SMART counters went backwards; starting wear segment {}",
                info.serial, info.model, info.path, sample.segment);
    }
  }

  std::vector<ThrottleEvent> events = thermal_.update(snap, info.controller, config.thermal);
  PollRecord record;
  record.drive = key;
  record.samples.push_back(sample);
  for (const auto& e : events) record.events.push_back(record_of(e));
  record.state.emplace_back(kThermalStateKey, encode_thermal_state(thermal_.state()));
  StoreStatus committed = store_.commit(record);
  last_ = sample;

  WearInputs in;
  in.latest = sample;
  for (std::size_t w = 0; w < kWearWindows.size(); ++w) {
    auto start = store_.first_sample_since(key, sample.segment, sample.time - kWearWindows[w].length);
    if (start && *start) in.window_start[w] = **start;
    else if (committed && !start) committed = start.error();
  }
  in.capacity_bytes = info.capacity_bytes;
  in.rated = resolve_endurance(rating, info.model, info.capacity_bytes, snap.ocp);
  in.config = config.wear;

  const bool was_over = view_.wear.over_rating;
  view_.serial = info.serial;
  view_.model = info.model;
  view_.updated = snap.taken;
  view_.wear = compute_wear(in);
  view_.thermal = thermal_view(thermal_.state());
  if (view_.wear.over_rating && !was_over) {
    log::warn("drive {} ({}) at {}: written at {:.2f} DWPD over 7 days, above its rating of {:.2f} DWPD ({})",
              info.serial, info.model, info.path, view_.wear.windows[kRecentWindow].dwpd.value_or(0),
              view_.wear.rated ? view_.wear.rated->dwpd : 0.0,
              view_.wear.rated ? view_.wear.rated->source : "unrated");
  }
  if (!committed) return committed.error();
  return view_;
}

}  // namespace nvmond
