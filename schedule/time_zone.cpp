#include "schedule/time_zone.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace nvmond {
namespace {

using namespace std::chrono;

// ---- POSIX TZ strings ----------------------------------------------------

struct Cursor {
  std::string_view s;
  std::size_t i = 0;
  bool done() const { return i >= s.size(); }
  char peek() const { return done() ? '\0' : s[i]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i;
    return true;
  }
};

bool skip_name(Cursor& c) {
  if (c.eat('<')) {
    while (!c.done() && c.peek() != '>') ++c.i;
    return c.eat('>');
  }
  std::size_t start = c.i;
  while (std::isalpha(static_cast<unsigned char>(c.peek())) != 0) ++c.i;
  return c.i - start >= 3;
}

std::optional<int> number(Cursor& c) {
  if (std::isdigit(static_cast<unsigned char>(c.peek())) == 0) return std::nullopt;
  int v = 0;
  while (std::isdigit(static_cast<unsigned char>(c.peek())) != 0) v = v * 10 + (c.s[c.i++] - '0');
  return v;
}

// [+-]hh[:mm[:ss]] in seconds, sign as written.
std::optional<std::int32_t> hms(Cursor& c) {
  int sign = 1;
  if (c.eat('-')) sign = -1;
  else c.eat('+');
  auto h = number(c);
  if (!h) return std::nullopt;
  std::int32_t v = *h * 3600;
  if (c.eat(':')) {
    auto m = number(c);
    if (!m) return std::nullopt;
    v += *m * 60;
    if (c.eat(':')) {
      auto s = number(c);
      if (!s) return std::nullopt;
      v += *s;
    }
  }
  return sign * v;
}

std::optional<PosixZoneRule::When> when(Cursor& c) {
  PosixZoneRule::When w;
  if (!c.eat('M')) return std::nullopt;  // Jn and n forms: no zone in tzdata uses them
  auto m = number(c);
  if (!m || !c.eat('.')) return std::nullopt;
  auto wk = number(c);
  if (!wk || !c.eat('.')) return std::nullopt;
  auto d = number(c);
  if (!d || *m < 1 || *m > 12 || *wk < 1 || *wk > 5 || *d > 6) return std::nullopt;
  w.month = *m;
  w.week = *wk;
  w.weekday = *d;
  if (c.eat('/')) {
    auto t = hms(c);
    if (!t) return std::nullopt;
    w.time = *t;
  }
  return w;
}

// The local midnight-based instant (as if UTC) of rule date `w` in `y`.
sys_seconds rule_local(int y, const PosixZoneRule::When& w) {
  year_month ym{year{y}, month{static_cast<unsigned>(w.month)}};
  weekday first{sys_days{ym / 1}};
  unsigned day =
      1 + (static_cast<unsigned>(w.weekday) + 7 - first.c_encoding()) % 7 + static_cast<unsigned>(w.week - 1) * 7;
  unsigned month_len = static_cast<unsigned>((ym / std::chrono::last).day());
  while (day > month_len) day -= 7;
  return sys_seconds{sys_days{ym / day}} + std::chrono::seconds(w.time);
}

}  // namespace

std::optional<PosixZoneRule> parse_posix_zone_rule(std::string_view text) {
  Cursor c{text};
  PosixZoneRule r;
  if (!skip_name(c)) return std::nullopt;
  auto off = hms(c);
  if (!off) return std::nullopt;
  r.std_offset = -*off;  // POSIX counts west of UTC
  if (c.done()) return r;
  if (!skip_name(c)) return std::nullopt;
  r.dst_offset = r.std_offset + 3600;
  if (c.peek() != ',') {
    auto d = hms(c);
    if (!d) return std::nullopt;
    r.dst_offset = -*d;
  }
  if (!c.eat(',')) return std::nullopt;
  auto s = when(c);
  if (!s || !c.eat(',')) return std::nullopt;
  auto e = when(c);
  if (!e || !c.done()) return std::nullopt;
  r.start = *s;
  r.end = *e;
  return r;
}

std::int32_t PosixZoneRule::offset_at(SysSeconds t) const {
  if (!dst_offset) return std_offset;
  int y = static_cast<int>(year_month_day{floor<days>(t)}.year());
  auto begin = rule_local(y, start) - std::chrono::seconds(std_offset);
  auto finish = rule_local(y, end) - std::chrono::seconds(*dst_offset);
  bool in_dst = begin < finish ? (t >= begin && t < finish) : (t < finish || t >= begin);
  return in_dst ? *dst_offset : std_offset;
}

// ---- TZif ----------------------------------------------------------------

Result<TimeZone> parse_tzif(std::string name, const std::string& bytes) {
  auto bad = [&](const std::string& why) { return Error{ErrorReason::zone, "time zone " + name + ": " + why}; };
  auto be = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(k)]);
    return v;
  };
  if (bytes.size() < 44 || bytes.compare(0, 4, "TZif") != 0) return bad("not a TZif file");
  const bool v2 = bytes[4] >= '2';
  std::size_t at = 0;
  int tsize = 4;
  auto counts = [&](std::size_t h, std::uint64_t(&n)[6]) {
    for (int k = 0; k < 6; ++k) n[k] = be(h + 20 + static_cast<std::size_t>(k) * 4, 4);
  };
  std::uint64_t n[6];  // isut, isstd, leap, time, type, char
  counts(0, n);
  auto block = [&](int ts) {
    return n[3] * static_cast<std::uint64_t>(ts) + n[3] + n[4] * 6 + n[5] + n[2] * static_cast<std::uint64_t>(ts + 4) +
           n[1] + n[0];
  };
  if (v2) {  // skip the 32-bit block to the 64-bit one
    std::size_t second = 44 + block(4);
    if (bytes.size() < second + 44) return bad("truncated");
    counts(second, n);
    at = second + 44;
    tsize = 8;
  } else {
    at = 44;
  }
  if (bytes.size() < at + block(tsize) || n[4] == 0) return bad("truncated");
  TimeZone z;
  z.name_ = std::move(name);
  std::vector<unsigned> idx;
  for (std::uint64_t k = 0; k < n[3]; ++k) {
    std::uint64_t raw = be(at + k * static_cast<std::uint64_t>(tsize), tsize);
    z.transitions_.push_back(tsize == 8 ? static_cast<std::int64_t>(raw)
                                        : static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
  }
  std::size_t types = at + n[3] * static_cast<std::uint64_t>(tsize) + n[3];
  auto type_offset = [&](std::uint64_t t) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(be(types + t * 6, 4)));
  };
  for (std::uint64_t k = 0; k < n[3]; ++k) {
    unsigned t = static_cast<unsigned char>(bytes[at + n[3] * static_cast<std::uint64_t>(tsize) + k]);
    if (t >= n[4]) return bad("transition type out of range");
    z.offsets_.push_back(type_offset(t));
  }
  z.initial_offset_ = type_offset(0);
  if (v2) {
    std::size_t foot = at + block(8);
    if (foot < bytes.size() && bytes[foot] == '\n') {
      auto end = bytes.find('\n', foot + 1);
      if (end != std::string::npos && end > foot + 1) {
        z.footer_ = parse_posix_zone_rule(std::string_view(bytes).substr(foot + 1, end - foot - 1));
      }
    }
  }
  return z;
}

Result<TimeZone> TimeZone::named(std::string_view name) {
  if (name == "UTC" || name == "Etc/UTC" || name == "GMT") return utc();
  std::string n(name);
  if (!n.empty() && n[0] == ':') n.erase(0, 1);
  if (n.find("..") != std::string::npos) return Error{ErrorReason::zone, "time zone " + n + ": invalid name"};
  std::string path = n;
  if (n.empty() || n[0] != '/') {
    const char* dir = std::getenv("TZDIR");
    path = std::string(dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo") + "/" + n;
  }
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_tzif(n, bytes);
  }
  if (auto rule = parse_posix_zone_rule(n)) {
    TimeZone z;
    z.name_ = n;
    z.initial_offset_ = rule->std_offset;
    z.footer_ = rule;
    return z;
  }
  return Error{ErrorReason::zone, "time zone " + n + ": unknown (no " + path + ")"};
}

TimeZone TimeZone::utc() {
  TimeZone z;
  z.name_ = "UTC";
  return z;
}

TimeZone TimeZone::local() {
  const char* tz = std::getenv("TZ");
  if (tz != nullptr && *tz != '\0') {
    if (auto z = named(tz)) return *z;
  }
  if (auto z = named("/etc/localtime")) return *z;
  return utc();
}

std::int32_t TimeZone::offset_at(SysSeconds t) const {
  const std::int64_t s = t.time_since_epoch().count();
  if (transitions_.empty() || s < transitions_.front()) {
    return transitions_.empty() && footer_ ? footer_->offset_at(t) : initial_offset_;
  }
  if (s >= transitions_.back() && footer_) return footer_->offset_at(t);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), s);
  return offsets_[static_cast<std::size_t>(it - transitions_.begin()) - 1];
}

std::optional<SysSeconds> TimeZone::first_instant(LocalSeconds local) const {
  const SysSeconds as_utc{local.time_since_epoch()};
  std::optional<SysSeconds> best;
  // Offsets in force a day either side cover every transition near `local`.
  for (auto probe : {as_utc - days(1), as_utc, as_utc + days(1)}) {
    const std::int32_t off = offset_at(probe);
    const SysSeconds u = as_utc - std::chrono::seconds(off);
    if (offset_at(u) == off && (!best || u < *best)) best = u;
  }
  return best;
}

}  // namespace nvmond
