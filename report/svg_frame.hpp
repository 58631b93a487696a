#pragma once
// Internal to the SVG writer: where the plot sits inside the <svg> and how
// data coordinates map onto it. Shared by the frame (axes, legend) and the
// plot contents (series, spans, bands, bars).
#include <cmath>
#include <string>

#include "report/axis.hpp"
#include "report/chart.hpp"

namespace nvmond::report::detail {

struct Frame {
  double left = 0, top = 0, width = 0, height = 0;
  ResolvedAxis x, y;
  bool categorical = false;  // bar chart: one slot per bar
  std::size_t slots = 0;
  double px(double v) const { return left + x.fraction(v) * width; }
  double py(double v) const { return top + (1.0 - y.fraction(v)) * height; }
  double slot_center(std::size_t i) const {
    return left + (static_cast<double>(i) + 0.5) * width / static_cast<double>(slots);
  }
};

inline bool plottable(double v, ScaleKind s) { return std::isfinite(v) && (s != ScaleKind::log10 || v > 0.0); }

std::string dash_attr(Dash d);

// Spans, bands, bars, reference lines and series, in that order (later on top).
void render_plot(std::string& out, const Chart& c, const Frame& f);

}  // namespace nvmond::report::detail
