#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <regex>

#include "schedule/calendar.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono;

WallTime utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return WallTime{sys_days{year{y} / mo / d} + hours(h) + minutes(mi) + std::chrono::seconds(s)};
}

std::string iso(std::optional<WallTime> t) {
  if (!t) return "never";
  auto s = floor<std::chrono::seconds>(*t);
  auto day = floor<days>(s);
  year_month_day ymd{day};
  hh_mm_ss hms{s - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02ld:%02ld:%02ld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()));
  return buf;
}

std::string next(std::string_view expr, WallTime after) {
  auto c = CalendarSpec::parse(expr);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? iso(c->next_after(after)) : "parse error";
}

TEST(Calendar, MonthlyCrossesMonthEndsAndYearEnd) {
  EXPECT_EQ(next("monthly UTC", utc(2026, 1, 31, 12)), "2026-02-01 00:00:00");
  EXPECT_EQ(next("*-*-31 03:00 UTC", utc(2026, 4, 1)), "2026-05-31 03:00:00");  // April has 30 days
  EXPECT_EQ(next("monthly UTC", utc(2026, 12, 15)), "2027-01-01 00:00:00");
}

TEST(Calendar, LeapDayWaitsForTheNextLeapYear) {
  EXPECT_EQ(next("*-02-29 00:00 UTC", utc(2025, 3, 1)), "2028-02-29 00:00:00");
  EXPECT_EQ(next("*-02-29 00:00 UTC", utc(2028, 2, 29)), "2032-02-29 00:00:00");
}

TEST(Calendar, WeeklyIsMondayMidnight) {
  // 2026-12-02 is a Wednesday.
  EXPECT_EQ(next("weekly UTC", utc(2026, 12, 2, 9)), "2026-12-07 00:00:00");
  EXPECT_EQ(next("weekly UTC", utc(2026, 12, 7)), "2026-12-14 00:00:00");  // strictly after
}

TEST(Calendar, WeekdayRangesListsAndRepetitions) {
  EXPECT_EQ(next("Mon..Fri 22:30 UTC", utc(2026, 12, 4, 23)), "2026-12-07 22:30:00");  // Fri late → Mon
  EXPECT_EQ(next("Sat *-*-* 02:00 UTC", utc(2026, 12, 2)), "2026-12-05 02:00:00");
  EXPECT_EQ(next("Sat,Sun 12:00 UTC", utc(2026, 12, 5, 13)), "2026-12-06 12:00:00");
  EXPECT_EQ(next("*-*-* *:0/15 UTC", utc(2026, 12, 2, 10, 16)), "2026-12-02 10:30:00");
  EXPECT_EQ(next("*-*-01,15 06:00 UTC", utc(2026, 12, 2)), "2026-12-15 06:00:00");
  EXPECT_EQ(next("*-*-01 00:00:00 UTC", utc(2026, 12, 2)), "2027-01-01 00:00:00");
  EXPECT_EQ(next("hourly UTC", utc(2026, 12, 2, 10, 59, 59)), "2026-12-02 11:00:00");
  EXPECT_EQ(next("daily UTC", utc(2026, 12, 2, 10)), "2026-12-03 00:00:00");
}

TEST(Calendar, NormalizedFormMatchesSystemd) {
  EXPECT_EQ(CalendarSpec::parse("weekly")->normalized(), "Mon *-*-* 00:00:00");
  EXPECT_EQ(CalendarSpec::parse("Mon..Fri 22:30")->normalized(), "Mon..Fri *-*-* 22:30:00");
  EXPECT_EQ(CalendarSpec::parse("Sat,Sun 12:00 UTC")->normalized(), "Sat,Sun *-*-* 12:00:00 UTC");
}

TEST(Calendar, YearListInThePastNeverFires) { EXPECT_EQ(next("2020-01-01 UTC", utc(2026, 1, 1)), "never"); }

TEST(Calendar, BadExpressionsSayWhichPart) {
  for (const char* bad : {"", "Funday 10:00", "*-13-01", "25:00", "*-*-* 10:00 Mars/Olympus", "daily extra junk"}) {
    auto c = CalendarSpec::parse(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().reason, ErrorReason::calendar);
    EXPECT_NE(c.error().message.find("calendar expression"), std::string::npos);
  }
}

// Spring forward in Berlin, 2026-03-29: 02:00 CET → 03:00 CEST; 02:30 does not exist.
TEST(Calendar, LocalTimeInTheSpringGapIsSkippedToTheNextDay) {
  EXPECT_EQ(next("*-*-* 02:30 Europe/Berlin", utc(2026, 3, 28, 12)), "2026-03-30 00:30:00");    // 02:30 CEST
  EXPECT_EQ(next("*-*-* *:30 Europe/Berlin", utc(2026, 3, 29, 0, 45)), "2026-03-29 01:30:00");  // 03:30 CEST
}

// Fall back in Berlin, 2026-10-25: 03:00 CEST → 02:00 CET; 02:30 is shown twice.
TEST(Calendar, RepeatedLocalTimeFiresOnce) {
  EXPECT_EQ(next("*-*-* 02:30 Europe/Berlin", utc(2026, 10, 24, 12)), "2026-10-25 00:30:00");  // first, CEST
  // From the first occurrence, the second one (01:30 UTC) does not fire.
  EXPECT_EQ(next("*-*-* 02:30 Europe/Berlin", utc(2026, 10, 25, 0, 30)), "2026-10-26 01:30:00");
}

TEST(Calendar, ZonesBeyondTheirLastListedTransitionFollowTheRule) {
  // 2040 is past the 2037 end of the zoneinfo transitions: the footer rule decides.
  EXPECT_EQ(next("*-07-01 12:00 Europe/Berlin", utc(2040, 1, 1)), "2040-07-01 10:00:00");
  EXPECT_EQ(next("*-12-01 12:00 Europe/Berlin", utc(2040, 1, 1)), "2040-12-01 11:00:00");
}

TEST(Calendar, DefaultIsTheProcessLocalZone) {
  ::setenv("TZ", "America/New_York", 1);
  EXPECT_EQ(next("daily", utc(2026, 7, 1, 12)), "2026-07-02 04:00:00");
  ::unsetenv("TZ");
}

// systemd-analyze as the oracle, where it is installed.
std::vector<std::string> systemd_next(const std::string& expr, WallTime base, int n) {
  std::string cmd = "TZ=UTC systemd-analyze calendar --iterations=" + std::to_string(n) + " --base-time=@" +
                    std::to_string(duration_cast<std::chrono::seconds>(base.time_since_epoch()).count()) + " '" + expr +
                    "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
  std::vector<std::string> out;
  if (!p) return out;
  std::array<char, 512> line{};
  std::regex re(R"((?:elapse|#\d+): \w+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC)");
  while (std::fgets(line.data(), static_cast<int>(line.size()), p.get()) != nullptr) {
    std::cmatch m;
    if (std::regex_search(line.data(), m, re)) out.push_back(m[1]);
  }
  return out;
}

TEST(Calendar, AgreesWithSystemdAnalyze) {
  if (systemd_next("daily UTC", utc(2026, 1, 1), 1).empty()) GTEST_SKIP() << "systemd-analyze not available";
  const std::vector<std::string> exprs{
      "weekly Europe/Berlin",       "*-*-* 02:30 Europe/Berlin",          "Mon..Fri 22:30 Europe/Berlin",
      "*-*-01 00:00:00 UTC",        "Sat *-*-* 02:00 America/New_York",   "*-02-29 01:00 UTC",
      "*-*-* *:0/20 Europe/Berlin", "Sun *-*-25..31 02:15 Europe/Berlin", "quarterly Australia/Sydney"};
  for (WallTime base : {utc(2026, 3, 27, 22), utc(2026, 10, 24, 23, 50), utc(2027, 12, 30)}) {
    for (const auto& e : exprs) {
      auto want = systemd_next(e, base, 4);
      ASSERT_EQ(want.size(), 4U) << e;
      auto c = CalendarSpec::parse(e);
      ASSERT_TRUE(c.ok()) << e;
      WallTime t = base;
      for (const auto& w : want) {
        auto got = c->next_after(t);
        ASSERT_EQ(iso(got), w) << e << " after " << iso(t);
        t = *got;
      }
    }
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
