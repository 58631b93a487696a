#pragma once
// A chart as plain data; render_svg() turns it into one self-contained <svg>
// element (no scripts, no external fonts, text escaped).
//
// Everything drawn carries a class and data-* attributes so tests (and anyone
// post-processing a report) can find it: the <svg> has id=<id>, data-plot-x,
// data-plot-y, data-plot-width, data-plot-height and data-x-lo/data-x-hi/
// data-x-scale (and the same for y); each series is <g class="series"
// data-series=NAME> holding one <polyline> per unbroken stretch; an x span is
// <rect class="x-span KIND" data-from data-to>; a band <rect class="y-band">;
// a reference line <line class="ref-line">; bars <rect class="bar"
// data-label data-value>.
#include <limits>
#include <string>
#include <vector>

#include "report/axis.hpp"

namespace nvmond::report {

struct Point {
  double x;
  double y;  // NaN breaks the line
};

enum class Dash { solid, dashed, dotted };

struct Series {
  std::string name;  // legend text
  std::string color;
  std::vector<Point> points;
  Dash dash = Dash::solid;
  bool markers = false;  // a dot on every point (short series)
  double width = 1.6;
};

// A shaded stretch of the x axis: the steady-state window, a throttle event.
struct XSpan {
  std::string kind;  // CSS class and legend key, e.g. "steady-state", "throttle"
  std::string label;
  double from;
  double to;
  std::string color;
  double opacity = 0.15;
};

// A shaded stretch of the y axis, optionally only over [x_from, x_to].
struct YBand {
  std::string label;
  double from;
  double to;
  std::string color;
  double opacity = 0.12;
  double x_from = std::numeric_limits<double>::quiet_NaN();  // NaN = whole plot width
  double x_to = std::numeric_limits<double>::quiet_NaN();
};

// A straight line across the plot: y = value (horizontal) or x = value.
struct RefLine {
  std::string label;
  double value;
  bool vertical = false;
  std::string color;
  Dash dash = Dash::dashed;
  // Optional limits along the other axis (NaN = whole plot).
  double from = std::numeric_limits<double>::quiet_NaN();
  double to = std::numeric_limits<double>::quiet_NaN();
};

struct Bar {
  std::string label;  // category under the bar
  double value;
};

struct Chart {
  std::string id;  // unique in the page; also the anchor
  std::string title;
  Axis x;
  Axis y;
  std::vector<Series> series;
  std::vector<XSpan> spans;
  std::vector<YBand> bands;
  std::vector<RefLine> lines;
  // A bar chart when non-empty: x is then categorical (one slot per bar).
  std::vector<Bar> bars;
  std::string bar_color = "#4472c4";
  int width = 900;
  int height = 380;
  // Charts that share an x axis (throughput and temperature over time) fix
  // the plot's left edge so their time scales line up on the page.
  double plot_left = std::numeric_limits<double>::quiet_NaN();
};

std::string render_svg(const Chart& chart);

// Colours that stay distinct in print and for common colour-vision deficiencies.
const std::string& palette(std::size_t i);

}  // namespace nvmond::report
