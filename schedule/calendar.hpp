#pragma once
// Calendar expressions in systemd's OnCalendar syntax (systemd.time(7)):
//   [WEEKDAYS] [[YYYY-]MM-DD] [HH:MM[:SS]] [TIMEZONE]
// with `*`, lists (1,15), ranges (1..5, Mon..Fri), repetitions (*/15, 0/6),
// and the shorthands minutely, hourly, daily, weekly, monthly, quarterly,
// semiannually, yearly/annually. Date omitted: every day; time omitted:
// 00:00:00; seconds omitted: 0. Zone omitted: the process's local time.
//
// DST follows systemd: a local time inside a spring-forward gap does not
// exist and is skipped to the next matching time; a local time shown twice
// when clocks fall back fires once, at its first occurrence.
//
// Pure: parse once, ask next_after() as often as needed (thread-safe, const).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "schedule/time_zone.hpp"

namespace nvmond {

class CalendarSpec {
 public:
  // Reason "calendar" with the offending token on error.
  static Result<CalendarSpec> parse(std::string_view text);

  // The first time strictly after `t` matching the expression; none when
  // no such time exists (a year list entirely in the past).
  std::optional<WallTime> next_after(WallTime t) const;
  // systemd's normalized form, e.g. "Mon..Fri *-*-* 22:30:00 Europe/Berlin".
  std::string normalized() const;

  struct Item {
    int lo = 0, hi = 0, step = 1;
    bool star = false;  // written as * (or */step)
  };
  using Field = std::vector<Item>;  // empty: any value

 private:
  bool matches_date(std::chrono::year_month_day ymd) const;
  std::optional<SysSeconds> first_in_day(std::chrono::sys_days day, int from_tod, SysSeconds after) const;

  unsigned weekdays_ = 0;  // bit per weekday, 0 = Sunday; 0 means any
  Field year_, month_, day_, hour_, minute_, second_;
  TimeZone zone_ = TimeZone::utc();
  std::string zone_name_;  // empty: local time
};

}  // namespace nvmond
