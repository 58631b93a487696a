#pragma once
// One chart axis: its scale (linear or log-10), the data range it shows, the
// ticks drawn on it and how their labels read. Pure maths, no SVG.
#include <limits>
#include <string>
#include <vector>

namespace nvmond::report {

enum class ScaleKind { linear, log10 };

// How tick labels print: a plain number, SI-suffixed count (IOPS), latency in
// s/ms/µs, bytes, bytes per second, or elapsed seconds as h:mm (ticks then
// fall on whole seconds, minutes or hours).
enum class TickFormat { plain, si, seconds, bytes, bytes_per_second, elapsed };

struct Axis {
  std::string title;  // with its unit, e.g. "Throughput (MB/s)"
  ScaleKind scale = ScaleKind::linear;
  TickFormat format = TickFormat::plain;
  // Range forced by the caller (NaN = fit the data). A linear axis that does
  // not force min includes zero, so bars and rates are not exaggerated.
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  bool include_zero = true;
};

struct Tick {
  double value;
  std::string label;
};

// The resolved axis: domain [lo, hi] after rounding to nice ticks.
struct ResolvedAxis {
  ScaleKind scale = ScaleKind::linear;
  double lo = 0.0;
  double hi = 1.0;
  std::vector<Tick> ticks;
  // Position in [0, 1] of `v` along the axis (values outside clamp to the edge;
  // non-positive values on a log axis map to 0).
  double fraction(double v) const;
};

// Extends [data_lo, data_hi] (finite values from the data; the caller passes
// NaN for both when there is none) to nice tick boundaries.
ResolvedAxis resolve_axis(const Axis& axis, double data_lo, double data_hi);

// 1, 2 or 5 times a power of ten, nearest to `x` (rounded) or not below it.
double nice_number(double x, bool round);

std::string format_tick(double value, TickFormat format);

}  // namespace nvmond::report
