#pragma once
// When a [[soak]] runs: once (when the daemon starts or the table appears),
// every INTERVAL after its last start, or at a calendar expression, each
// plus up to `randomized_delay` (systemd's RandomizedDelaySec).
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "schedule/calendar.hpp"

namespace nvmond {

struct Schedule {
  enum class Kind { once, interval, calendar };
  Kind kind = Kind::once;
  Duration interval{};
  std::optional<CalendarSpec> calendar;
  // "once", "every 6h", or the calendar's normalized form.
  std::string normalized() const;
};

// "once", "every DURATION" (as config durations: "90m", "6h", "7d"), or an
// OnCalendar expression. Reason "schedule" or "calendar" on error.
Result<Schedule> parse_schedule(std::string_view text);

// The next planned start (before any randomized delay), strictly after the
// last one; none when a once-schedule has run or a calendar has no more.
// `now`: when the schedule is (re)considered; a never-started once or
// interval is due then.
std::optional<WallTime> next_start(const Schedule& s, std::optional<WallTime> last_start, WallTime now);

}  // namespace nvmond
