#include "schedule/calendar.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <map>
#include <sstream>

namespace nvmond {
namespace {

using namespace std::chrono;

constexpr std::array<std::string_view, 7> kDayNames{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDayNames{"sunday",   "monday", "tuesday", "wednesday",
                                                        "thursday", "friday", "saturday"};

const std::map<std::string_view, std::string_view>& shorthands() {
  static const std::map<std::string_view, std::string_view> m{{"minutely", "*-*-* *:*:00"},
                                                              {"hourly", "*-*-* *:00:00"},
                                                              {"daily", "*-*-* 00:00:00"},
                                                              {"weekly", "Mon *-*-* 00:00:00"},
                                                              {"monthly", "*-*-01 00:00:00"},
                                                              {"quarterly", "*-01,04,07,10-01 00:00:00"},
                                                              {"semiannually", "*-01,07-01 00:00:00"},
                                                              {"yearly", "*-01-01 00:00:00"},
                                                              {"annually", "*-01-01 00:00:00"}};
  return m;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    auto at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

Error bad(std::string_view text, std::string_view why) {
  return Error{ErrorReason::calendar, fmt::format("calendar expression \"{}\": {}", text, why)};
}

// "*", "*/5", "3", "3/5", "1..5", "1..5/2", lists of these.
std::optional<CalendarSpec::Field> parse_field(std::string_view s, int lo, int hi) {
  CalendarSpec::Field f;
  if (s == "*") return f;
  for (auto part : split(s, ',')) {
    CalendarSpec::Item it;
    std::string_view range = part;
    auto slash = part.find('/');
    if (slash != std::string_view::npos) {
      auto step = to_int(part.substr(slash + 1));
      if (!step || *step < 1) return std::nullopt;
      it.step = *step;
      range = part.substr(0, slash);
    }
    if (range == "*") {
      it = {lo, hi, it.step, true};
    } else if (auto dots = range.find(".."); dots != std::string_view::npos) {
      auto a = to_int(range.substr(0, dots));
      auto b = to_int(range.substr(dots + 2));
      if (!a || !b || *a > *b) return std::nullopt;
      it.lo = *a;
      it.hi = *b;
    } else {
      auto a = to_int(range);
      if (!a) return std::nullopt;
      it.lo = *a;
      it.hi = slash == std::string_view::npos ? *a : hi;
    }
    if (it.lo < lo || it.hi > hi) return std::nullopt;
    f.push_back(it);
  }
  return f;
}

// A date "[YYYY-]MM-DD" or a time "HH:MM[:SS]": three fields, of which the
// token may leave out one (a date's leading year, a time's trailing seconds).
struct FieldsForm {
  std::string_view what;  // "date", "time"
  std::string_view form;  // as errors quote it
  char sep;
  std::array<std::pair<int, int>, 3> bounds;
  std::size_t omissible;             // the field a two-part token leaves out
  CalendarSpec::Field when_omitted;  // its value then
};

const FieldsForm kDate{"date", "[YYYY-]MM-DD", '-', {{{1970, 2199}, {1, 12}, {1, 31}}}, 0, {}};
const FieldsForm kTime{"time", "HH:MM[:SS]", ':', {{{0, 23}, {0, 59}, {0, 59}}}, 2, {{0, 0, 1, false}}};

// Reads `token` into the three fields; on error, why (for bad()).
std::optional<std::string> parse_fields(std::string_view token, const FieldsForm& f,
                                        const std::array<CalendarSpec::Field*, 3>& into) {
  const auto parts = split(token, f.sep);
  if (parts.size() != 2 && parts.size() != 3) return fmt::format("{} \"{}\" is not {}", f.what, token, f.form);
  std::size_t next = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    if (parts.size() == 2 && i == f.omissible) {
      *into[i] = f.when_omitted;
      continue;
    }
    auto field = parse_field(parts[next++], f.bounds[i].first, f.bounds[i].second);
    if (!field) return fmt::format("{} \"{}\" has a value out of range", f.what, token);
    *into[i] = *field;
  }
  return std::nullopt;
}

bool field_has(const CalendarSpec::Field& f, int v) {
  if (f.empty()) return true;
  for (const auto& it : f) {
    if (v >= it.lo && v <= it.hi && (v - it.lo) % it.step == 0) return true;
  }
  return false;
}

std::optional<int> weekday_index(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (std::size_t i = 0; i < 7; ++i) {
    if (lower == kLongDayNames[i] || (lower.size() == 3 && kLongDayNames[i].substr(0, 3) == lower)) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

std::optional<unsigned> parse_weekdays(std::string_view s) {
  unsigned mask = 0;
  for (auto part : split(s, ',')) {
    auto dots = part.find("..");
    auto a = weekday_index(part.substr(0, dots));
    auto b = dots == std::string_view::npos ? a : weekday_index(part.substr(dots + 2));
    if (!a || !b) return std::nullopt;
    // Ranges wrap the week the way systemd reads them: Mon..Sun is every day.
    int mon_a = (*a + 6) % 7, mon_b = (*b + 6) % 7;
    if (mon_a > mon_b) return std::nullopt;
    for (int d = mon_a; d <= mon_b; ++d) mask |= 1U << ((d + 1) % 7);
  }
  return mask;
}

std::string format_field(const CalendarSpec::Field& f, int width) {
  if (f.empty()) return "*";
  std::string out;
  for (const auto& it : f) {
    if (!out.empty()) out += ',';
    if (it.star) out += "*";
    else if (it.lo == it.hi) out += fmt::format("{:0{}}", it.lo, width);
    else if (it.step > 1 && !it.star) out += fmt::format("{:0{}}", it.lo, width);
    else out += fmt::format("{:0{}}..{:0{}}", it.lo, width, it.hi, width);
    if (it.step > 1) out += fmt::format("/{}", it.step);
  }
  return out;
}

}  // namespace

Result<CalendarSpec> CalendarSpec::parse(std::string_view text) {
  std::vector<std::string> tokens;
  {
    std::istringstream in{std::string(text)};
    for (std::string t; in >> t;) tokens.push_back(t);
  }
  if (tokens.empty()) return bad(text, "empty");
  if (auto it = shorthands().find(tokens.front()); it != shorthands().end()) {
    std::string expanded(it->second);
    for (std::size_t i = 1; i < tokens.size(); ++i) expanded += " " + tokens[i];
    if (tokens.size() > 2) return bad(text, "only a time zone may follow \"" + tokens.front() + "\"");
    return parse(expanded);
  }
  CalendarSpec c;
  std::size_t i = 0;
  if (i < tokens.size() && tokens[i].find_first_of(":-*0123456789") == std::string::npos) {
    if (auto mask = parse_weekdays(tokens[i])) {
      c.weekdays_ = *mask;
      ++i;
    }
  }
  bool have_date = false, have_time = false;
  if (i < tokens.size() && tokens[i].find('-') != std::string::npos && tokens[i].find(':') == std::string::npos) {
    if (auto why = parse_fields(tokens[i], kDate, {&c.year_, &c.month_, &c.day_})) return bad(text, *why);
    have_date = true;
    ++i;
  }
  if (i < tokens.size() && tokens[i].find(':') != std::string::npos) {
    if (auto why = parse_fields(tokens[i], kTime, {&c.hour_, &c.minute_, &c.second_})) return bad(text, *why);
    have_time = true;
    ++i;
  }
  if (!have_time) c.hour_ = c.minute_ = c.second_ = Field{{0, 0, 1, false}};
  if (i + 1 == tokens.size()) {
    auto z = TimeZone::named(tokens[i]);
    if (!z) return bad(text, "unknown time zone \"" + tokens[i] + "\"");
    c.zone_ = *z;
    c.zone_name_ = tokens[i];
    ++i;
  }
  if (i != tokens.size() || (!have_date && !have_time && c.weekdays_ == 0)) {
    return bad(text, "cannot read \"" + (i < tokens.size() ? tokens[i] : tokens.front()) + "\"");
  }
  if (c.zone_name_.empty()) c.zone_ = TimeZone::local();
  return c;
}

std::string CalendarSpec::normalized() const {
  std::string out;
  if (weekdays_ != 0) {
    std::string days;
    for (int mon = 0; mon < 7; ++mon) {  // Monday first, runs joined with ..
      int d = (mon + 1) % 7;
      if ((weekdays_ & (1U << d)) == 0) continue;
      int end = mon;
      while (end + 1 < 7 && (weekdays_ & (1U << ((end + 2) % 7))) != 0) ++end;
      if (!days.empty()) days += ',';
      days += kDayNames[static_cast<std::size_t>(d)];
      if (end > mon)
        days += (end - mon > 1 ? ".." : ",") + std::string(kDayNames[static_cast<std::size_t>((end + 1) % 7)]);
      mon = end;
    }
    out = days + " ";
  }
  out += format_field(year_, 4) + "-" + format_field(month_, 2) + "-" + format_field(day_, 2) + " ";
  out += format_field(hour_, 2) + ":" + format_field(minute_, 2) + ":" + format_field(second_, 2);
  if (!zone_name_.empty()) out += " " + zone_name_;
  return out;
}

bool CalendarSpec::matches_date(year_month_day ymd) const {
  if (!ymd.ok()) return false;
  if (weekdays_ != 0 && (weekdays_ & (1U << weekday{sys_days{ymd}}.c_encoding())) == 0) return false;
  return field_has(year_, static_cast<int>(ymd.year())) &&
         field_has(month_, static_cast<int>(static_cast<unsigned>(ymd.month()))) &&
         field_has(day_, static_cast<int>(static_cast<unsigned>(ymd.day())));
}

std::optional<SysSeconds> CalendarSpec::first_in_day(sys_days day, int from_tod, SysSeconds after) const {
  for (int h = from_tod / 3600; h < 24; ++h) {
    if (!field_has(hour_, h)) continue;
    for (int m = 0; m < 60; ++m) {
      if (!field_has(minute_, m) || h * 3600 + m * 60 + 59 < from_tod) continue;
      for (int s = 0; s < 60; ++s) {
        const int tod = h * 3600 + m * 60 + s;
        if (!field_has(second_, s) || tod < from_tod) continue;
        // Gap: no instant shows this time. Repeat: the first one did, and
        // it is not after `after` when we are inside the second one.
        auto at = zone_.first_instant(LocalSeconds{day.time_since_epoch() + std::chrono::seconds(tod)});
        if (at && *at > after) return at;
      }
    }
  }
  return std::nullopt;
}

std::optional<WallTime> CalendarSpec::next_after(WallTime t) const {
  const SysSeconds after = floor<std::chrono::seconds>(t);
  const LocalSeconds start = zone_.to_local(after + std::chrono::seconds(1));
  sys_days day{floor<days>(start.time_since_epoch())};
  int tod = static_cast<int>((start.time_since_epoch() - floor<days>(start.time_since_epoch())).count());
  // 28 years repeat every calendar (weekday and leap pattern): searching
  // further only matters for year lists, which end where they end.
  const sys_days limit = day + days(366 * 30);
  int last_year = year_.empty() ? 2199 : 1970;
  for (const auto& it : year_) last_year = std::max(last_year, it.star || it.step > 1 ? 2199 : it.hi);
  for (; day < limit; day += days(1), tod = 0) {
    year_month_day ymd{day};
    if (static_cast<int>(ymd.year()) > last_year) return std::nullopt;
    if (!matches_date(ymd)) continue;
    if (auto at = first_in_day(day, tod, after)) return WallTime{*at};
  }
  if (!year_.empty()) {  // a year list far ahead: jump to its first matching year
    for (int y = static_cast<int>(year_month_day{limit}.year()); y <= last_year; ++y) {
      if (!field_has(year_, y)) continue;
      for (sys_days d{year{y} / 1 / 1}; d < sys_days{year{y + 1} / 1 / 1}; d += days(1)) {
        if (!matches_date(year_month_day{d})) continue;
        if (auto at = first_in_day(d, 0, after)) return WallTime{*at};
      }
    }
  }
  return std::nullopt;
}

}  // namespace nvmond
