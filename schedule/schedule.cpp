#include "schedule/schedule.hpp"

#include <fmt/format.h>

#include "core/config_reader.hpp"

namespace nvmond {

std::string Schedule::normalized() const {
  switch (kind) {
    case Kind::once: return "once";
    case Kind::interval:
      return fmt::format("every {}s", std::chrono::duration_cast<std::chrono::seconds>(interval).count());
    case Kind::calendar: return calendar->normalized();
  }
  return "once";
}

Result<Schedule> parse_schedule(std::string_view text) {
  Schedule s;
  if (text == "once") return s;
  if (text.substr(0, 6) == "every ") {
    auto d = parse_duration(text.substr(6));
    if (!d || *d < std::chrono::seconds(1)) {
      return Error{ErrorReason::schedule,
                   fmt::format("schedule \"{}\": expected \"every DURATION\" of at least 1s", text)};
    }
    s.kind = Schedule::Kind::interval;
    s.interval = *d;
    return s;
  }
  auto c = CalendarSpec::parse(text);
  if (!c) return c.error();
  s.kind = Schedule::Kind::calendar;
  s.calendar = std::move(*c);
  return s;
}

std::optional<WallTime> next_start(const Schedule& s, std::optional<WallTime> last_start, WallTime now) {
  switch (s.kind) {
    case Schedule::Kind::once:
      if (last_start) return std::nullopt;
      return now;
    case Schedule::Kind::interval:
      if (!last_start) return now;
      return *last_start + s.interval;
    case Schedule::Kind::calendar: return s.calendar->next_after(last_start ? std::max(*last_start, now) : now);
  }
  return std::nullopt;
}

}  // namespace nvmond
