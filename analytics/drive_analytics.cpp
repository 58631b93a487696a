#include "analytics/drive_analytics.hpp"

#include <fmt/chrono.h>

#include <algorithm>
#include <array>

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

// The detector's state as stored, less the time of its last poll. That time
// is always the drive's newest sample's (the state and the sample of a poll
// share a record), so restore() takes it from there, and a state that
// changed in nothing else is not written again: a quiet drive's poll then
// writes its sample alone.
ThermalState stored_form(ThermalState s) {
  if (s.last) {
    s.last->time = WallTime{};
    s.last->composite_k = 0;  // the sample's too
  }
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
  v.throttle_onset_celsius = observed_throttle_onset(s);
  return v;
}

StoreStatus DriveAnalytics::restore(const DriveKey& key) {
  thermal_written_.reset();
  auto last = store_.last_sample(key);
  if (!last) return last.error();
  auto state = store_.state(key, kThermalStateKey);
  if (!state) return state.error();
  ThermalState thermal;
  if (*state) {
    if (auto decoded = decode_thermal_state(**state)) {
      thermal = std::move(*decoded);
      thermal_written_ = stored_form(thermal);
      if (thermal.last && *last && (*last)->time > thermal.last->time) thermal.last->time = (*last)->time;
      if (thermal.last && *last) thermal.last->composite_k = (*last)->composite_temperature_k;
    } else {
      log::warn("drive {} ({}): stored thermal state is unreadable; starting the detector afresh", key.serial,
                key.model);
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
    if (auto r = restore(key); !r) {
      thermal_ = ThermalDetector();
      refresh_view(info, sample_of(snap), snap, config, rating, false);
      return r.error();
    }
  }
  if (last_ && snap.taken < last_->time) {
    if (!clock_behind_) {
      log::warn(
          "drive {} ({}) at {}: clock reads {:%FT%TZ}, before the newest stored sample "
          "({:%FT%TZ}); not recording history until it catches up",
          info.serial, info.model, info.path, std::chrono::floor<std::chrono::seconds>(snap.taken),
          std::chrono::floor<std::chrono::seconds>(last_->time));
      clock_behind_ = true;
    }
    const std::uint64_t skipped = view_.skipped_clock_behind + 1;
    if (view_.serial.empty() || !view_.history) refresh_view(info, *last_, snap, config, rating, true);
    view_.skipped_clock_behind = skipped;
    return view_;
  }
  if (clock_behind_) {
    log::info("drive {} ({}) at {}: clock caught up with the stored history; recording again", info.serial, info.model,
              info.path);
    clock_behind_ = false;
  }
  if (last_ && snap.taken == last_->time) return view_;

  SampleRecord sample = sample_of(snap);
  sample.segment = 0;
  if (last_) {
    sample.segment = last_->segment;
    if (is_counter_reset(*last_, sample)) {
      ++sample.segment;
      log::info("drive {} ({}) at {}: SMART counters went backwards; starting wear segment {}", info.serial, info.model,
                info.path, sample.segment);
    }
  }

  const std::uint16_t composite_k = snap.smart.composite_temperature_k;
  const std::uint16_t warning_k = info.controller.wctemp_k;
  const InferredThrottle inferred =
      performance_.poll(info.serial, snap.taken, composite_k != 0 ? kelvin_to_celsius(composite_k) : 0,
                        warning_k != 0 ? kelvin_to_celsius(warning_k) : 0, config.thermal.performance);
  std::vector<ThrottleEvent> events = thermal_.update(snap, info.controller, config.thermal, inferred);
  PollRecord record;
  record.drive = key;
  record.samples.push_back(sample);
  for (const auto& e : events) record.events.push_back(record_of(e));
  ThermalState thermal_now = stored_form(thermal_.state());
  if (thermal_now != thermal_written_) {
    record.state.emplace_back(kThermalStateKey, encode_thermal_state(thermal_.state()));
  }
  StoreStatus committed = store_.commit(record);
  // Not queued: written again with the next poll.
  if (committed) {
    thermal_written_ = std::move(thermal_now);
  } else {
    thermal_written_.reset();
  }
  last_ = sample;

  const bool was_over = view_.wear.over_rating;
  StoreStatus read = refresh_view(info, sample, snap, config, rating, true);
  if (committed && !read) committed = read.error();
  if (view_.wear.over_rating && !was_over) {
    log::warn("drive {} ({}) at {}: written at {:.2f} DWPD over 7 days, above its rating of {:.2f} DWPD ({})",
              info.serial, info.model, info.path, view_.wear.windows[kRecentWindow].dwpd.value_or(0),
              view_.wear.rated ? view_.wear.rated->dwpd : 0.0, view_.wear.rated ? view_.wear.rated->source : "unrated");
  }
  if (!committed) return committed.error();
  return view_;
}

StoreStatus DriveAnalytics::refresh_view(const DriveInfo& info, const SampleRecord& sample, const HealthSnapshot& snap,
                                         const AnalyticsConfig& config, const DriveRating& rating, bool history) {
  StoreStatus read = std::monostate{};
  WearInputs in;
  in.latest = sample;
  if (history) {
    std::array<WallTime, kWearWindows.size()> since;
    for (std::size_t w = 0; w < since.size(); ++w) since[w] = sample.time - kWearWindows[w].length;
    // A failed read leaves the windows empty.
    if (auto starts = store_.first_samples_since(*key_, sample.segment, since); !starts) {
      read = starts.error();
    } else {
      std::copy(starts->begin(), starts->end(), in.window_start.begin());
    }
  }
  in.capacity_bytes = info.capacity_bytes;
  in.rated = resolve_endurance(rating, info.model, info.capacity_bytes, snap.ocp);
  in.config = config.wear;

  view_.serial = info.serial;
  view_.model = info.model;
  view_.updated = sample.time;
  view_.history = history;
  view_.wear = compute_wear(in);
  view_.thermal = thermal_view(thermal_.state());
  return read;
}

}  // namespace nvmond
