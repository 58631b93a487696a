// The contents of a chart's plot area: x spans, y bands, bars, reference
// lines and series, in that order (later ones on top).
#include <fmt/format.h>

#include <algorithm>

#include "report/markup.hpp"
#include "report/svg_frame.hpp"

namespace nvmond::report::detail {

std::string dash_attr(Dash d) {
  switch (d) {
    case Dash::dashed: return " stroke-dasharray=\"7 4\"";
    case Dash::dotted: return " stroke-dasharray=\"2 3\"";
    case Dash::solid: break;
  }
  return "";
}

namespace {

void render_spans(std::string& out, const Chart& c, const Frame& f) {
  if (c.spans.empty()) return;
  out += "<g class=\"x-spans\">";
  for (const auto& s : c.spans) {
    if (!plottable(s.from, f.x.scale) || !plottable(s.to, f.x.scale)) continue;
    const double x0 = f.px(s.from);
    // A span of zero width (a one-sample event) still shows as a 2 px mark.
    const double w = std::max(2.0, f.px(s.to) - x0);
    out += fmt::format(
        "<rect class=\"x-span {}\" data-from=\"{}\" data-to=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"{}\" fill-opacity=\"{}\"><title>{}</title></rect>",
        escape(s.kind), num(s.from, 6), num(s.to, 6), num(x0, 3), num(f.top), num(w, 3), num(f.height), escape(s.color),
        num(s.opacity, 2), escape(s.label));
  }
  out += "</g>";
}

void render_bands(std::string& out, const Chart& c, const Frame& f) {
  if (c.bands.empty()) return;
  out += "<g class=\"y-bands\">";
  for (const auto& b : c.bands) {
    if (!plottable(b.from, f.y.scale) || !plottable(b.to, f.y.scale)) continue;
    const double x0 = std::isnan(b.x_from) ? f.left : f.px(b.x_from);
    const double x1 = std::isnan(b.x_to) ? f.left + f.width : f.px(b.x_to);
    const double y0 = f.py(std::max(b.from, b.to));
    const double y1 = f.py(std::min(b.from, b.to));
    out += fmt::format(
        "<rect class=\"y-band\" data-from=\"{}\" data-to=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"{}\" fill-opacity=\"{}\"/>",
        num(b.from, 6), num(b.to, 6), num(x0, 3), num(y0, 3), num(std::max(1.0, x1 - x0), 3),
        num(std::max(1.0, y1 - y0), 3), escape(b.color), num(b.opacity, 2));
  }
  out += "</g>";
}

void render_bars(std::string& out, const Chart& c, const Frame& f) {
  if (c.bars.empty()) return;
  out += "<g class=\"bars\">";
  const double slot = f.width / static_cast<double>(f.slots);
  const double base = f.top + f.height;
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double top = plottable(b.value, f.y.scale) ? f.py(b.value) : base;
    out += fmt::format(
        "<rect class=\"bar\" data-label=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"{}\"><title>{}: {}</title></rect>",
        escape(b.label), num(b.value, 6), num(f.left + slot * static_cast<double>(i) + slot * 0.1, 3), num(top, 3),
        num(slot * 0.8, 3), num(base - top, 3), escape(c.bar_color), escape(b.label), num(b.value, 6));
  }
  out += "</g>";
}

void render_lines(std::string& out, const Chart& c, const Frame& f) {
  if (c.lines.empty()) return;
  out += "<g class=\"ref-lines\">";
  for (const auto& l : c.lines) {
    double x1, y1, x2, y2;
    if (l.vertical) {
      if (!plottable(l.value, f.x.scale)) continue;
      x1 = x2 = f.px(l.value);
      y1 = std::isnan(l.to) ? f.top : f.py(l.to);
      y2 = std::isnan(l.from) ? f.top + f.height : f.py(l.from);
    } else {
      if (!plottable(l.value, f.y.scale)) continue;
      y1 = y2 = f.py(l.value);
      x1 = std::isnan(l.from) ? f.left : f.px(l.from);
      x2 = std::isnan(l.to) ? f.left + f.width : f.px(l.to);
    }
    out += fmt::format(
        "<line class=\"ref-line\" data-value=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-width=\"1.5\"{}><title>{}</title></line>",
        num(l.value, 6), num(x1, 3), num(y1, 3), num(x2, 3), num(y2, 3), escape(l.color), dash_attr(l.dash),
        escape(l.label));
  }
  out += "</g>";
}

void render_series(std::string& out, const Series& s, const Frame& f) {
  out += fmt::format("<g class=\"series\" data-series=\"{}\" stroke=\"{}\" fill=\"none\" stroke-width=\"{}\"{}>",
                     escape(s.name), escape(s.color), num(s.width), dash_attr(s.dash));
  std::string stretch;
  auto flush = [&] {
    if (!stretch.empty()) out += "<polyline points=\"" + stretch + "\"/>";
    stretch.clear();
  };
  for (const auto& p : s.points) {
    if (!plottable(p.x, f.x.scale) || !plottable(p.y, f.y.scale)) {
      flush();
      continue;
    }
    if (!stretch.empty()) stretch += ' ';
    stretch += num(f.px(p.x), 2) + "," + num(f.py(p.y), 2);
  }
  flush();
  if (s.markers) {
    out += fmt::format("<g class=\"markers\" fill=\"{}\" stroke=\"none\">", escape(s.color));
    for (const auto& p : s.points) {
      if (plottable(p.x, f.x.scale) && plottable(p.y, f.y.scale)) {
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>", num(f.px(p.x), 2), num(f.py(p.y), 2));
      }
    }
    out += "</g>";
  }
  out += "</g>";
}

}  // namespace

void render_plot(std::string& out, const Chart& c, const Frame& f) {
  render_spans(out, c, f);
  render_bands(out, c, f);
  render_bars(out, c, f);
  render_lines(out, c, f);
  for (const auto& s : c.series) render_series(out, s, f);
}

}  // namespace nvmond::report::detail
