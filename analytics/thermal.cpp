#include "analytics/thermal.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>

#include "core/json_fields.hpp"

namespace nvmond {
namespace {

constexpr std::array<std::string_view, kThrottleSourceCount> kLabels{
    "tmt1",       "tmt2", "warning_temp_time", "critical_temp_time", "critical_warning", "ocp", "sensor_threshold",
    "performance"};

constexpr SourceMask bit(ThrottleSource s) { return static_cast<SourceMask>(1u << static_cast<unsigned>(s)); }

// Counter signals: the drive counts events and/or time itself.
struct CounterSignal {
  ThrottleSource source;
  int level;
  std::uint32_t SmartThermalCounters::*transitions;  // nullptr: no event counter
  std::uint32_t SmartThermalCounters::*time;
  double seconds_per_unit;
};
constexpr CounterSignal kCounterSignals[] = {
    {ThrottleSource::tmt1, 1, &SmartThermalCounters::tmt1_transitions, &SmartThermalCounters::tmt1_seconds, 1},
    {ThrottleSource::tmt2, 2, &SmartThermalCounters::tmt2_transitions, &SmartThermalCounters::tmt2_seconds, 1},
    {ThrottleSource::warning_temp_time, 1, nullptr, &SmartThermalCounters::warning_minutes, 60},
    {ThrottleSource::critical_temp_time, 3, nullptr, &SmartThermalCounters::critical_minutes, 60},
};

bool has_time_counter(ThrottleSource s) {
  // The inferred signal brings its own interval-exact seconds.
  if (s == ThrottleSource::performance) return true;
  return std::any_of(std::begin(kCounterSignals), std::end(kCounterSignals),
                     [s](const CounterSignal& c) { return c.source == s; });
}

ThermalCounters counters_of(const HealthSnapshot& snap) {
  ThermalCounters c;
  c.time = snap.taken;
  c.smart = snap.smart.thermal;
  c.composite_k = snap.smart.composite_temperature_k;
  if (snap.ocp) c.ocp_count = snap.ocp->thermal_throttling_count;
  return c;
}

// A counter that went backwards was reset: count from its new value.
std::uint32_t delta(std::uint32_t now, std::uint32_t before) { return now >= before ? now - before : 0; }

void raise(ThermalSignals& s, ThrottleSource src, int level) {
  s.active |= bit(src);
  s.level = std::max(s.level, level);
}

int sensor_level(std::uint16_t k, std::optional<std::uint16_t> over_k, const ControllerIdentity* composite_of,
                 const ThermalConfig& config) {
  if (k == 0) return 0;  // absent sensor
  int level = 0;
  if (over_k && *over_k != 0 && k >= *over_k) level = 1;
  if (config.threshold_c && kelvin_to_celsius(k) >= *config.threshold_c) level = std::max(level, 1);
  if (composite_of != nullptr) {
    if (composite_of->wctemp_k != 0 && k >= composite_of->wctemp_k) level = std::max(level, 1);
    if (composite_of->cctemp_k != 0 && k >= composite_of->cctemp_k) level = 3;
  }
  return level;
}

// The throttling the drive itself reports, as opposed to the temperature
// thresholds nvmond compares the sensors with and to the inferred
// `performance` signal: a throughput drop near WCTEMP can have another
// cause (the demo's simulated consumer drive under a WSAT soak slows at
// about 78 °C and throttles at 83 °C), and its episode is dated from an
// interval's start. Either would teach a throttle point the drive does not have.
constexpr SourceMask kDriveThrottleSources =
    bit(ThrottleSource::tmt1) | bit(ThrottleSource::tmt2) | bit(ThrottleSource::ocp);

// When, in (`since`, `now`], the drive's own throttling began: the earliest
// its time counters tell (their seconds back from now), else now (a signal
// without a time).
WallTime drive_throttle_began(const ThermalSignals& sig, WallTime since, WallTime now) {
  WallTime began = now;
  for (const ThrottleSource s : {ThrottleSource::tmt1, ThrottleSource::tmt2}) {
    if (!(sig.active & bit(s))) continue;
    const auto back = from_seconds(sig.counted_seconds[static_cast<std::size_t>(s)]);
    began = std::min(began, now - std::chrono::duration_cast<WallTime::duration>(back));
  }
  return std::clamp(began, since, now);
}

// The composite (°C) at `t`, linear between the previous poll's reading and
// this one's; this one's where there is no previous reading.
double composite_at(const std::optional<ThermalCounters>& last, std::uint16_t now_k, WallTime t, WallTime now) {
  const double now_c = kelvin_to_celsius(now_k);
  if (!last || last->composite_k == 0 || now <= last->time) return now_c;
  const double before_c = kelvin_to_celsius(last->composite_k);
  return before_c + (now_c - before_c) * (seconds(t - last->time) / seconds(now - last->time));
}

void record_onset(ThermalState& s, double celsius) {
  s.onsets_celsius.push_back(celsius);
  if (s.onsets_celsius.size() > kThrottleOnsetsKept) s.onsets_celsius.erase(s.onsets_celsius.begin());
}

}  // namespace

std::optional<double> observed_throttle_onset(const ThermalState& s) {
  if (s.onsets_celsius.empty()) return std::nullopt;
  return *std::min_element(s.onsets_celsius.begin(), s.onsets_celsius.end());
}

std::string_view throttle_source_label(ThrottleSource s) { return kLabels[static_cast<std::size_t>(s)]; }

std::vector<std::string> throttle_source_labels(SourceMask mask) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kThrottleSourceCount; ++i) {
    if (mask & bit(throttle_source(i))) out.emplace_back(kLabels[i]);
  }
  return out;
}

ThermalSignals read_thermal_signals(const std::optional<ThermalCounters>& last, const HealthSnapshot& snap,
                                    const ControllerIdentity& id, const ThermalConfig& config) {
  ThermalSignals s;
  const SmartLog& l = snap.smart;
  const ThermalCounters now = counters_of(snap);

  if (last) {
    for (const auto& c : kCounterSignals) {
      std::uint32_t events = c.transitions != nullptr ? delta(now.smart.*c.transitions, last->smart.*c.transitions) : 0;
      double secs = delta(now.smart.*c.time, last->smart.*c.time) * c.seconds_per_unit;
      if (events > 0 || secs > 0) raise(s, c.source, c.level);
      s.counted_seconds[static_cast<std::size_t>(c.source)] = secs;
    }
  }
  if (l.critical_warning & kWarnTemperature) raise(s, ThrottleSource::critical_warning, 1);
  if (snap.ocp) {
    int status = std::min<int>(snap.ocp->thermal_throttling_status, kMaxThrottleLevel);
    bool counted = last && last->ocp_count && snap.ocp->thermal_throttling_count > *last->ocp_count;
    if (status > 0 || counted) raise(s, ThrottleSource::ocp, std::max(status, 1));
  }

  int level = sensor_level(l.composite_temperature_k, snap.thresholds.over_k[0], &id, config);
  double hottest = l.composite_temperature_k != 0 ? kelvin_to_celsius(l.composite_temperature_k) : 0;
  for (std::size_t i = 0; i < l.sensor_temperature_k.size(); ++i) {
    std::uint16_t k = l.sensor_temperature_k[i];
    level = std::max(level, sensor_level(k, snap.thresholds.over_k[i + 1], nullptr, config));
    if (k != 0) hottest = std::max(hottest, kelvin_to_celsius(k));
  }
  if (level > 0) raise(s, ThrottleSource::sensor_threshold, level);
  s.hottest_celsius = hottest;
  return s;
}

std::vector<ThrottleEvent> ThermalDetector::update(const HealthSnapshot& snap, const ControllerIdentity& id,
                                                   const ThermalConfig& config, const InferredThrottle& inferred) {
  std::vector<ThrottleEvent> changed;
  const WallTime now = snap.taken;
  if (state_.last && now <= state_.last->time) return changed;

  ThermalSignals sig = read_thermal_signals(state_.last, snap, id, config);
  const SourceMask perf = bit(ThrottleSource::performance);
  if (inferred.active) {
    raise(sig, ThrottleSource::performance, 1);
    sig.counted_seconds[static_cast<std::size_t>(ThrottleSource::performance)] = inferred.seconds;
  }
  const Duration dt = state_.last ? now - state_.last->time : Duration::zero();

  auto close_open = [&] {
    state_.open->end = state_.open->last_seen;
    changed.push_back(*state_.open);
    state_.last_closed = std::move(state_.open);
    state_.last_closed_at = now;
    state_.open.reset();
  };
  // Nobody watched through a long gap: the old event ends where it was last seen.
  if (state_.open && now - state_.open->last_seen > config.max_gap) close_open();

  for (std::size_t i = 0; i < kThrottleSourceCount; ++i) {
    state_.source_seconds[i] += sig.counted_seconds[i];
    const SourceMask b = bit(throttle_source(i));
    // Signals without a time counter are credited the interval between two
    // polls that both saw them.
    if (!has_time_counter(throttle_source(i)) && state_.open && (sig.active & b) && (state_.active & b)) {
      state_.source_seconds[i] += seconds(dt);
    }
  }

  if (sig.active != 0) {
    // Only the inferred signal knows when, between polls, it stopped.
    const bool perf_only = sig.active == perf;
    const bool ends_here = perf_only && inferred.ended.has_value();
    if (!state_.open) {
      // Time counters say how long throttling lasted before this poll; the
      // inferred signal says when it started, even before the previous poll
      // (its samples come at the end of their intervals).
      const double lookback = *std::max_element(sig.counted_seconds.begin(), sig.counted_seconds.end());
      WallTime start = now - std::chrono::duration_cast<WallTime::duration>(std::min(from_seconds(lookback), dt));
      if (inferred.active && inferred.started) start = std::clamp(*inferred.started, now - config.max_gap, start);
      const WallTime earliest = std::min(start, inferred.onset_after.value_or(start));
      if (state_.last_closed && inferred.active && earliest <= state_.last_closed_at) {
        state_.open = std::move(state_.last_closed);  // the same excursion: counted once
        state_.open->end.reset();
        state_.last_closed.reset();
      } else {
        ThrottleEvent e;
        e.start = start;
        e.last_seen = e.start;
        e.peak_celsius = sig.hottest_celsius;
        state_.open = e;
        ++state_.events;
      }
    }
    ThrottleEvent& e = *state_.open;
    const WallTime seen = ends_here ? std::clamp(*inferred.ended, e.last_seen, now) : now;
    state_.level_seconds[static_cast<std::size_t>(sig.level)] += seconds(seen - e.last_seen);
    for (std::size_t i = 0; i < kThrottleSourceCount; ++i) {
      const SourceMask b = bit(throttle_source(i));
      if ((sig.active & b) && !(e.sources & b)) ++state_.source_events[i];
    }
    if ((sig.active & kDriveThrottleSources) && !(e.sources & kDriveThrottleSources) &&
        snap.smart.composite_temperature_k != 0) {
      const WallTime since = state_.last ? state_.last->time : now;
      const WallTime began = drive_throttle_began(sig, since, now);
      record_onset(state_, composite_at(state_.last, snap.smart.composite_temperature_k, began, now));
    }
    const auto lb = static_cast<std::uint8_t>(1u << sig.level);
    if (!(e.levels_seen & lb)) ++state_.level_events[static_cast<std::size_t>(sig.level)];
    e.levels_seen |= lb;
    e.sources |= sig.active;
    e.level = std::max(e.level, sig.level);
    e.peak_celsius = std::max(e.peak_celsius, sig.hottest_celsius);
    e.last_seen = seen;
    state_.last_peak_celsius = e.peak_celsius;
    if (ends_here) {
      close_open();
      sig.active = 0;
      sig.level = 0;
    } else {
      changed.push_back(e);
    }
  } else if (state_.open) {
    close_open();
  }
  state_.active = sig.active;
  state_.level = sig.level;
  state_.last = counters_of(snap);
  return changed;
}

// --- persistence -----------------------------------------------------------

namespace {

using nlohmann::json;

// Version 2 added the 8th source (`performance`); older states carry fewer
// sources and load with the rest at zero. More than we know is damage.
constexpr int kStateVersion = 2;

// The SMART thermal counters in a persisted state (core/json_fields.hpp).
constexpr auto kCounterFields = std::tuple{
    JsonField{"tmt1_transitions", &SmartThermalCounters::tmt1_transitions},
    JsonField{"tmt2_transitions", &SmartThermalCounters::tmt2_transitions},
    JsonField{"tmt1_seconds", &SmartThermalCounters::tmt1_seconds},
    JsonField{"tmt2_seconds", &SmartThermalCounters::tmt2_seconds},
    JsonField{"warning_minutes", &SmartThermalCounters::warning_minutes},
    JsonField{"critical_minutes", &SmartThermalCounters::critical_minutes},
};

template <typename T>
std::array<T, kThrottleSourceCount> per_source(const json& j) {
  const auto v = j.get<std::vector<T>>();
  if (v.size() > kThrottleSourceCount) throw json::other_error::create(501, "too many throttle sources", &j);
  std::array<T, kThrottleSourceCount> out{};
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

json event_json(const ThrottleEvent& e) {
  return {{"start_ns", to_unix_ns(e.start)},
          {"last_seen_ns", to_unix_ns(e.last_seen)},
          {"peak_celsius", e.peak_celsius},
          {"sources", e.sources},
          {"level", e.level},
          {"levels_seen", e.levels_seen}};
}

ThrottleEvent event_of(const json& o) {
  ThrottleEvent e;
  e.start = from_unix_ns(o.at("start_ns").get<std::int64_t>());
  e.last_seen = from_unix_ns(o.at("last_seen_ns").get<std::int64_t>());
  e.peak_celsius = o.at("peak_celsius").get<double>();
  e.sources = o.at("sources").get<SourceMask>();
  e.level = o.at("level").get<int>();
  e.levels_seen = o.at("levels_seen").get<std::uint8_t>();
  return e;
}

}  // namespace

std::string encode_thermal_state(const ThermalState& s) {
  json j;
  j["version"] = kStateVersion;
  if (s.last) {
    const auto& c = *s.last;
    j["last"] = {{"time_ns", to_unix_ns(c.time)}};
    write_fields(j["last"], c.smart, kCounterFields);
    if (c.ocp_count) j["last"]["ocp_count"] = *c.ocp_count;
  }
  j["active"] = s.active;
  j["level"] = s.level;
  if (s.open) j["open"] = event_json(*s.open);
  if (s.last_closed) {
    j["last_closed"] = event_json(*s.last_closed);
    j["last_closed_at_ns"] = to_unix_ns(s.last_closed_at);
  }
  if (s.last_peak_celsius) j["last_peak_celsius"] = *s.last_peak_celsius;
  j["events"] = s.events;
  j["source_events"] = s.source_events;
  j["source_seconds"] = s.source_seconds;
  j["level_events"] = s.level_events;
  j["level_seconds"] = s.level_seconds;
  if (!s.onsets_celsius.empty()) j["onsets_celsius"] = s.onsets_celsius;
  return j.dump();
}

std::optional<ThermalState> decode_thermal_state(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const int version = j.value("version", 0);
  if (version < 1 || version > kStateVersion) return std::nullopt;
  try {
    ThermalState s;
    if (j.contains("last")) {
      const auto& l = j.at("last");
      ThermalCounters c;
      c.time = from_unix_ns(l.at("time_ns").get<std::int64_t>());
      read_fields(l, c.smart, kCounterFields);
      if (l.contains("ocp_count")) c.ocp_count = l.at("ocp_count").get<std::uint8_t>();
      s.last = c;
    }
    s.active = j.at("active").get<SourceMask>();
    s.level = std::clamp(j.at("level").get<int>(), 0, kMaxThrottleLevel);
    if (j.contains("open")) s.open = event_of(j.at("open"));
    if (j.contains("last_closed")) {
      s.last_closed = event_of(j.at("last_closed"));
      s.last_closed->end = s.last_closed->last_seen;
      s.last_closed_at = from_unix_ns(j.at("last_closed_at_ns").get<std::int64_t>());
    }
    if (j.contains("last_peak_celsius")) s.last_peak_celsius = j.at("last_peak_celsius").get<double>();
    s.events = j.at("events").get<std::uint64_t>();
    s.source_events = per_source<std::uint64_t>(j.at("source_events"));
    s.source_seconds = per_source<double>(j.at("source_seconds"));
    s.level_events = j.at("level_events").get<decltype(s.level_events)>();
    s.level_seconds = j.at("level_seconds").get<decltype(s.level_seconds)>();
    // Kept since the onsets were learned: a state without them has none yet.
    if (j.contains("onsets_celsius")) {
      s.onsets_celsius = j.at("onsets_celsius").get<std::vector<double>>();
      if (s.onsets_celsius.size() > kThrottleOnsetsKept) {
        s.onsets_celsius.erase(s.onsets_celsius.begin(), s.onsets_celsius.end() - kThrottleOnsetsKept);
      }
    }
    return s;
  } catch (const json::exception&) {
    // A damaged state row must not stop the daemon: start the detector afresh.
    return std::nullopt;
  }
}

}  // namespace nvmond
