#pragma once
// Time zones for calendar schedules, read from the system's zoneinfo (TZif
// files with their POSIX-rule footer), because GCC 12's <chrono> has no tzdb
// and localtime_r() only knows the process's own zone.
//
// A TimeZone is an immutable value: safe to share between threads.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace nvmond {

using SysSeconds = std::chrono::sys_seconds;
using LocalSeconds = std::chrono::local_seconds;

// "CET-1CEST,M3.5.0,M10.5.0/3": the rule a zone follows after its last
// listed transition (and the whole of a zone given as a TZ string).
struct PosixZoneRule {
  std::int32_t std_offset = 0;  // seconds east of UTC
  std::optional<std::int32_t> dst_offset;
  // Mm.w.d and the local time of day (seconds) DST starts / ends.
  struct When {
    int month = 0, week = 0, weekday = 0;
    std::int32_t time = 7200;
  };
  When start, end;
  std::int32_t offset_at(SysSeconds t) const;
};
std::optional<PosixZoneRule> parse_posix_zone_rule(std::string_view text);

class TimeZone {
 public:
  // "UTC", an IANA name under $TZDIR or /usr/share/zoneinfo, or a POSIX TZ string.
  static Result<TimeZone> named(std::string_view name);
  // The process's zone: $TZ, else /etc/localtime, else UTC.
  static TimeZone local();
  static TimeZone utc();

  // Seconds east of UTC at `t`.
  std::int32_t offset_at(SysSeconds t) const;
  // The earliest instant showing `local` on this zone's wall clock; none
  // when the local time falls in a gap (spring forward). A repeated local
  // time (fall back) maps to its first occurrence, as systemd fires it once.
  std::optional<SysSeconds> first_instant(LocalSeconds local) const;
  LocalSeconds to_local(SysSeconds t) const {
    return LocalSeconds{t.time_since_epoch() + std::chrono::seconds(offset_at(t))};
  }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<std::int64_t> transitions_;  // Unix seconds, ascending
  std::vector<std::int32_t> offsets_;      // offset from each transition on
  std::int32_t initial_offset_ = 0;        // before the first transition
  std::optional<PosixZoneRule> footer_;
  friend Result<TimeZone> parse_tzif(std::string name, const std::string& bytes);
};

// Decodes a TZif (v1 or v2+) file's contents.
Result<TimeZone> parse_tzif(std::string name, const std::string& bytes);

}  // namespace nvmond
