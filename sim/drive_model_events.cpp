// The simulated drive's Persistent Event log: what it records, how it reads
// back as the log page's plain data, and its place in the state file.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "collectors/sim_name.hpp"
#include "sim/drive_model.hpp"
#include "sim/drive_model_detail.hpp"

namespace nvmond {

namespace {

constexpr std::uint64_t kHostSetOrigin = 1ull << 49;  // timestamp origin 1: set by the host
constexpr std::uint16_t kEventHeaderLength = 21;      // EHL: a 24-byte event header
constexpr std::uint16_t kResetEventLength = 8 + 36;   // firmware revision + one descriptor
constexpr std::uint16_t kExcursionEventLength = 2;
constexpr std::uint64_t kHeaderBytes = 512;
// The injected excursion's size: a clear excursion, not a brush with WCTEMP.
constexpr std::uint8_t kInjectedOverCelsius = 5;

std::uint64_t ms_since_epoch(WallTime t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  return static_cast<std::uint64_t>(std::max<std::int64_t>(ms, 0));
}

std::uint8_t celsius_byte(double c) { return static_cast<std::uint8_t>(std::clamp(std::lround(c), 0L, 255L)); }

// Stands in for the hash of a real record's bytes: distinct per event of
// one drive, never zero.
std::uint64_t fingerprint(const std::string& serial, std::uint64_t seq) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char ch : serial) h = (h ^ static_cast<std::uint8_t>(ch)) * 0x100000001b3ull;
  h ^= seq + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h == 0 ? 1 : h;
}

std::uint64_t firmware_revision(const std::string& firmware) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    const char c = i < firmware.size() ? firmware[i] : ' ';
    v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(c)) << (8 * i);
  }
  return v;
}

}  // namespace

void DriveModel::record_event_locked(SimEventLog::Event event) {
  event.seq = events_.next_seq++;
  events_.events.push_back(event);
  if (events_.events.size() > kSimEventLogEvents) events_.events.erase(events_.events.begin());
}

void DriveModel::note_thermal_events_locked(WallTime end) {
  const auto excursion = static_cast<std::uint8_t>(PelEventType::thermal_excursion);
  const std::uint8_t threshold = celsius_byte(spec_.warning_temp_c);
  const bool hot = p_.temp_c >= spec_.warning_temp_c;
  if (hot && !events_.hot) {
    record_event_locked({.type = excursion,
                         .at = end,
                         .over_celsius = celsius_byte(p_.temp_c - spec_.warning_temp_c),
                         .threshold_celsius = threshold});
  }
  events_.hot = hot;
  if (spec_.thermal_excursion_at && !events_.injected && end >= *spec_.thermal_excursion_at) {
    record_event_locked({.type = excursion,
                         .at = *spec_.thermal_excursion_at,
                         .over_celsius = kInjectedOverCelsius,
                         .threshold_celsius = threshold});
    events_.injected = true;
  }
}

PersistentEventLog DriveModel::persistent_event_log() const {
  std::lock_guard lock(mu_);
  PersistentEventLog log;
  PelHeader& h = log.header;
  h.log_id = 0x0D;
  h.log_revision = 1;
  h.timestamp.raw = kHostSetOrigin | ms_since_epoch(now_);
  h.power_on_hours = c_.power_on_ns / (static_cast<u128>(3600) * 1'000'000'000u);
  h.power_cycle_count = static_cast<std::uint64_t>(c_.power_cycles);
  h.serial = spec_.serial;
  h.model = spec_.model;
  h.generation = 1;
  h.supported_events[0] = (u128{1} << static_cast<unsigned>(PelEventType::power_on_reset)) |
                          (u128{1} << static_cast<unsigned>(PelEventType::thermal_excursion));
  std::uint64_t bytes = kHeaderBytes;
  for (const auto& e : events_.events) {
    PelEvent out;
    out.header.type = e.type;
    out.header.type_revision = 1;
    out.header.header_length = kEventHeaderLength;
    out.header.timestamp.raw = kHostSetOrigin | ms_since_epoch(e.at);
    out.fingerprint = fingerprint(spec_.serial, e.seq);
    if (e.type == static_cast<std::uint8_t>(PelEventType::thermal_excursion)) {
      out.header.event_length = kExcursionEventLength;
      out.data = PelThermalExcursion{e.over_celsius, e.threshold_celsius};
    } else {
      out.header.event_length = kResetEventLength;
      PelPowerOnReset reset;
      reset.firmware_revision = firmware_revision(spec_.firmware);
      reset.controllers = 1;
      reset.power_cycle_count = static_cast<std::uint32_t>(c_.power_cycles);
      reset.controller_timestamp = out.header.timestamp;
      out.data = reset;
    }
    bytes += kEventHeaderLength + 3u + out.header.event_length;
    log.events.push_back(std::move(out));
  }
  h.total_events = static_cast<std::uint32_t>(log.events.size());
  h.total_log_length = bytes;
  return log;
}

namespace sim_detail {

void read_event_log(const nlohmann::json& j, SimEventLog& log) {
  log.next_seq = j.at("next_seq").get<std::uint64_t>();
  log.injected = j.at("injected").get<bool>();
  for (const auto& e : j.at("events")) {
    SimEventLog::Event ev;
    ev.seq = e.at("seq").get<std::uint64_t>();
    ev.type = e.at("type").get<std::uint8_t>();
    ev.at = WallTime{
        std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(e.at("time_ns").get<std::int64_t>()))};
    ev.over_celsius = e.at("over_c").get<std::uint8_t>();
    ev.threshold_celsius = e.at("threshold_c").get<std::uint8_t>();
    log.events.push_back(ev);
  }
  if (log.events.size() > kSimEventLogEvents) {
    log.events.erase(log.events.begin(), log.events.end() - static_cast<std::ptrdiff_t>(kSimEventLogEvents));
  }
}

}  // namespace sim_detail

}  // namespace nvmond
