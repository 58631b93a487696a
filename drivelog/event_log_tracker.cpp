#include "drivelog/event_log_tracker.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <sstream>

#include "core/log.hpp"

namespace nvmond {

namespace {

constexpr const char* kEventLogStateKey = "event_log";
constexpr int kStateVersion = 1;
// How far back a throttle event may have started and still cover an
// excursion: longer than any throttle episode the detector keeps open.
constexpr Duration kCoverLookBack = std::chrono::hours(24);

std::size_t label_index(std::uint8_t type) {
  const auto labels = pel_type_labels();
  const auto it = std::find(labels.begin(), labels.end(), pel_type_label(type));
  return static_cast<std::size_t>(it - labels.begin());
}

WallTime from_ms(std::uint64_t ms) {
  return WallTime{std::chrono::duration_cast<WallTime::duration>(std::chrono::milliseconds(ms))};
}

void add_source(std::vector<std::string>& sources, const char* label) {
  if (std::find(sources.begin(), sources.end(), label) == sources.end()) sources.emplace_back(label);
}

}  // namespace

bool should_read_event_log(const std::optional<EventLogReadMark>& last, const HealthSnapshot& snap) {
  if (!last) return true;
  if (snap.taken - last->at >= kEventLogReadInterval || snap.taken < last->at) return true;
  const auto& now = snap.smart.thermal;
  const bool warning = (snap.smart.critical_warning & kWarnTemperature) != 0;
  return now.warning_minutes > last->thermal.warning_minutes || now.critical_minutes > last->thermal.critical_minutes ||
         (warning && !last->temperature_warning);
}

EventLogReadMark event_log_read_mark(const HealthSnapshot& snap) {
  return {snap.taken, snap.smart.thermal, (snap.smart.critical_warning & kWarnTemperature) != 0};
}

std::string encode_event_log_state(const EventLogState& state) {
  std::string out = fmt::format("{} {} {}", kStateVersion, state.generation, state.last_fingerprint);
  for (const auto n : state.counts) out += " " + std::to_string(n);
  return out;
}

std::optional<EventLogState> decode_event_log_state(const std::string& text) {
  std::istringstream in(text);
  int version = 0;
  EventLogState s;
  if (!(in >> version) || version != kStateVersion) return std::nullopt;
  if (!(in >> s.generation >> s.last_fingerprint)) return std::nullopt;
  for (auto& n : s.counts) {
    if (!(in >> n)) return std::nullopt;
  }
  std::string rest;
  if (in >> rest) return std::nullopt;
  return s;
}

std::optional<WallTime> pel_event_time(const PersistentEventLog& log, std::size_t index, WallTime read_at) {
  const PelTimestamp& ts = log.events[index].header.timestamp;
  if (ts.host_set()) return from_ms(ts.milliseconds());
  // Counted from a reset: placeable only against the header's own
  // timestamp of the same kind, and only when no reset came after it.
  const PelTimestamp& now = log.header.timestamp;
  if (now.host_set() || now.milliseconds() < ts.milliseconds()) return std::nullopt;
  for (std::size_t i = index + 1; i < log.events.size(); ++i) {
    if (log.events[i].header.type == static_cast<std::uint8_t>(PelEventType::power_on_reset)) return std::nullopt;
  }
  return read_at - std::chrono::duration_cast<WallTime::duration>(
                       std::chrono::milliseconds(now.milliseconds() - ts.milliseconds()));
}

std::optional<Error> EventLogTracker::restore(const DriveKey& drive, WallTime first_poll) {
  auto stored = store_.state(drive, kEventLogStateKey);
  if (!stored) return stored.error();
  auto last = store_.last_sample(drive);
  if (!last) return last.error();
  state_.reset();
  if (*stored) {
    state_ = decode_event_log_state(**stored);
    // Counting the log again is the lesser harm than never counting it.
    if (!state_) {
      log::warn("drive {} ({}): stored event log state is unreadable; reading the log as new", drive.serial,
                drive.model);
    }
  }
  previous_poll_.reset();
  if (*last) previous_poll_ = (*last)->time;
  first_poll_ = first_poll;
  drive_ = drive;
  return std::nullopt;
}

std::optional<ThermalEventRecord> EventLogTracker::throttle_of(const DriveInfo& info, const Fresh& fresh,
                                                               std::vector<ThermalEventRecord>& pending) {
  const auto* hot = std::get_if<PelThermalExcursion>(&fresh.event.data);
  if (!hot || !fresh.time) return std::nullopt;
  const WallTime t = *fresh.time;
  const DriveKey drive{info.serial, info.model};
  auto covers = [&](const ThermalEventRecord& e) { return e.start <= t && e.end && t <= *e.end; };
  // An event written earlier in this update (two excursions in one episode).
  for (auto& e : pending) {
    if (covers(e)) {
      e.peak_celsius = std::max(e.peak_celsius, hot->peak_celsius());
      return std::nullopt;
    }
  }
  ThermalEventRecord out;
  if (auto stored = store_.events(drive, t - kCoverLookBack)) {
    for (const auto& e : *stored) {
      if (e.start <= t && !e.end && !fresh.while_not_running) return std::nullopt;  // the detector's open event has it
      if (covers(e)) out = e;
    }
  }
  if (out.sources.empty()) {
    out.start = t;
    out.end = t;
    out.peak_celsius = hot->peak_celsius();
    // Critical when the threshold crossed is at or over CCTEMP; else light.
    const unsigned cctemp_c = info.controller.cctemp_k > 273 ? info.controller.cctemp_k - 273u : 0u;
    out.level = cctemp_c != 0 && hot->threshold_celsius >= cctemp_c ? 3 : 1;
  } else {
    out.peak_celsius = std::max(out.peak_celsius, hot->peak_celsius());
  }
  add_source(out.sources, kThrottleSourceEventLog);
  if (fresh.while_not_running) add_source(out.sources, kThrottleSourceNotRunning);
  return out;
}

EventLogTracker::Update EventLogTracker::update(const DriveInfo& info, const HealthSnapshot& snap) {
  Update out;
  const DriveKey drive{info.serial, info.model};
  if (!drive_ || !(*drive_ == drive)) {
    if (auto e = restore(drive, snap.taken)) {
      drive_.reset();
      out.error = e;
      return out;
    }
  }
  if (!snap.event_log) return out;
  const PersistentEventLog& log = *snap.event_log;

  std::size_t first_new = 0;
  if (state_ && state_->generation != log.header.generation) {
    out.cleared = true;
  } else if (state_ && state_->last_fingerprint != 0) {
    // The newest match: a drive that wrote the same record twice has the
    // later one as the one counted.
    for (std::size_t i = log.events.size(); i-- > 0;) {
      if (log.events[i].fingerprint == state_->last_fingerprint) {
        first_new = i + 1;
        break;
      }
    }
  }
  EventLogState next = state_.value_or(EventLogState{});
  next.generation = log.header.generation;
  if (!log.events.empty()) next.last_fingerprint = log.events.back().fingerprint;
  if (state_ && first_new == log.events.size() && next.generation == state_->generation &&
      next.last_fingerprint == state_->last_fingerprint) {
    return out;
  }

  for (std::size_t i = first_new; i < log.events.size(); ++i) {
    Fresh f{log.events[i], pel_event_time(log, i, snap.taken), false};
    f.while_not_running = f.time && *f.time < first_poll_ && (!previous_poll_ || *f.time > *previous_poll_);
    ++next.counts[label_index(f.event.header.type)];
    out.fresh.push_back(std::move(f));
  }
  for (const auto& f : out.fresh) {
    if (auto record = throttle_of(info, f, out.throttles)) {
      std::erase_if(out.throttles, [&](const auto& e) { return e.start == record->start; });
      out.throttles.push_back(std::move(*record));
    }
  }

  PollRecord record;
  record.drive = drive;
  record.events = out.throttles;
  record.state.emplace_back(kEventLogStateKey, encode_event_log_state(next));
  if (auto committed = store_.commit(record); !committed) {
    // Not counted: the next read tries again, rather than counts a restart
    // would repeat.
    out.error = committed.error();
    out.fresh.clear();
    out.throttles.clear();
    out.cleared = false;
    return out;
  }
  state_ = next;
  return out;
}

}  // namespace nvmond
