#include "report/axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/markup.hpp"

namespace nvmond::report {

double nice_number(double x, bool round) {
  const double exp = std::floor(std::log10(x));
  const double f = x / std::pow(10.0, exp);
  double nf;
  if (round) {
    nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  } else {
    nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  }
  return nf * std::pow(10.0, exp);
}

std::string format_tick(double value, TickFormat format) {
  switch (format) {
    case TickFormat::si: return si(value);
    case TickFormat::seconds: return seconds(value);
    case TickFormat::bytes: return bytes(value);
    case TickFormat::bytes_per_second: return bytes_per_second(value);
    case TickFormat::elapsed: {
      const long total = std::lround(value);
      const long h = total / 3600, m = total / 60 % 60, sec = total % 60;
      return sec == 0 ? fmt::format("{}:{:02}", h, m) : fmt::format("{}:{:02}:{:02}", h, m, sec);
    }
    case TickFormat::plain: break;
  }
  return num(value, 3);
}

double ResolvedAxis::fraction(double v) const {
  double f;
  if (scale == ScaleKind::log10) {
    if (!(v > 0.0)) return 0.0;
    f = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  } else {
    f = (v - lo) / (hi - lo);
  }
  return std::clamp(f, 0.0, 1.0);
}

namespace {

constexpr int kTargetTicks = 6;

// Elapsed time steps on clock boundaries: seconds, minutes, hours.
double time_step(double raw) {
  static constexpr double kSteps[] = {1,   2,   5,    10,   15,   30,    60,    120,   300,
                                      600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
  for (const double s : kSteps) {
    if (s >= raw) return s;
  }
  return 86400.0 * nice_number(raw / 86400.0, false);
}

ResolvedAxis resolve_linear(const Axis& axis, double lo, double hi) {
  if (axis.include_zero && std::isnan(axis.min)) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + (lo == 0.0 ? 1.0 : std::fabs(lo) * 0.1);
  double step = axis.format == TickFormat::elapsed ? time_step((hi - lo) / (kTargetTicks - 1))
                                                   : nice_number((hi - lo) / (kTargetTicks - 1), true);
  ResolvedAxis r;
  r.scale = ScaleKind::linear;
  r.lo = std::isnan(axis.min) ? std::floor(lo / step) * step : axis.min;
  r.hi = std::isnan(axis.max) ? std::ceil(hi / step - 1e-9) * step : axis.max;
  for (double t = std::ceil(r.lo / step - 1e-9) * step; t <= r.hi + step * 1e-9; t += step) {
    const double v = std::fabs(t) < step * 1e-9 ? 0.0 : t;
    r.ticks.push_back({v, format_tick(v, axis.format)});
  }
  return r;
}

ResolvedAxis resolve_log(const Axis& axis, double lo, double hi) {
  if (!(lo > 0.0)) lo = hi > 0.0 ? hi / 10.0 : 1.0;
  if (!(hi > lo)) hi = lo * 10.0;
  ResolvedAxis r;
  r.scale = ScaleKind::log10;
  r.lo = std::isnan(axis.min) ? std::pow(10.0, std::floor(std::log10(lo) + 1e-9)) : axis.min;
  r.hi = std::isnan(axis.max) ? std::pow(10.0, std::ceil(std::log10(hi) - 1e-9)) : axis.max;
  if (r.hi <= r.lo) r.hi = r.lo * 10.0;
  const int decades = static_cast<int>(std::lround(std::log10(r.hi / r.lo)));
  // Few decades get 2 and 5 in between, so the axis still has several labels.
  const bool minor = decades <= 2;
  for (double p = std::pow(10.0, std::floor(std::log10(r.lo))); p <= r.hi * (1 + 1e-9); p *= 10.0) {
    for (const double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !minor) continue;
      const double v = p * m;
      if (v >= r.lo * (1 - 1e-9) && v <= r.hi * (1 + 1e-9)) {
        r.ticks.push_back({v, format_tick(v, axis.format)});
      }
    }
  }
  return r;
}

}  // namespace

ResolvedAxis resolve_axis(const Axis& axis, double data_lo, double data_hi) {
  double lo = std::isnan(axis.min) ? data_lo : axis.min;
  double hi = std::isnan(axis.max) ? data_hi : axis.max;
  if (std::isnan(lo) || std::isnan(hi)) {
    lo = axis.scale == ScaleKind::log10 ? 1.0 : 0.0;
    hi = axis.scale == ScaleKind::log10 ? 10.0 : 1.0;
  }
  return axis.scale == ScaleKind::log10 ? resolve_log(axis, lo, hi) : resolve_linear(axis, lo, hi);
}

}  // namespace nvmond::report
