#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/chart.hpp"
#include "report/markup.hpp"
#include "report/svg_frame.hpp"

namespace nvmond::report {

const std::string& palette(std::size_t i) {
  // Okabe-Ito, darkened where pale on white paper.
  static const std::vector<std::string> colors = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                                  "#7a6a00", "#56b4e9", "#e69f00", "#000000"};
  return colors[i % colors.size()];
}

namespace {

using detail::dash_attr;
using detail::Frame;
using detail::plottable;

constexpr double kFontSize = 15;  // 11 px (8.5 pt) once a 900-wide chart fits an A4 page
// Average glyph advance of sans-serif at kFontSize, on the wide side (DejaVu
// Sans, the usual Linux default, is wider than Arial), so legends never overlap.
constexpr double kCharWidth = 9.2;

double text_width(const std::string& s) {
  // UTF-8 continuation bytes do not advance.
  const auto glyphs = std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
  return static_cast<double>(glyphs) * kCharWidth;
}

struct LegendItem {
  std::string label;
  std::string color;
  enum { line, area } shape;
  Dash dash;
};

// Data ranges over everything the chart draws, so bands and lines stay visible.
void data_range(const Chart& c, double& xlo, double& xhi, double& ylo, double& yhi) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  xlo = inf, xhi = -inf, ylo = inf, yhi = -inf;
  auto addx = [&](double v) {
    if (plottable(v, c.x.scale)) xlo = std::min(xlo, v), xhi = std::max(xhi, v);
  };
  auto addy = [&](double v) {
    if (plottable(v, c.y.scale)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
  };
  for (const auto& s : c.series) {
    for (const auto& p : s.points) {
      if (plottable(p.x, c.x.scale) && plottable(p.y, c.y.scale)) addx(p.x), addy(p.y);
    }
  }
  for (const auto& b : c.bars) addy(b.value);
  for (const auto& s : c.spans) addx(s.from), addx(s.to);
  for (const auto& b : c.bands) addy(b.from), addy(b.to);
  for (const auto& l : c.lines) {
    if (l.vertical) {
      addx(l.value);
    } else {
      addy(l.value);
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (xlo > xhi) xlo = xhi = nan;
  if (ylo > yhi) ylo = yhi = nan;
}

std::vector<LegendItem> legend_items(const Chart& c) {
  std::vector<LegendItem> items;
  // A name drawn twice (the fitted line of each sub-test) is one legend entry.
  for (const auto& s : c.series) {
    const bool seen = std::any_of(items.begin(), items.end(), [&](const LegendItem& i) { return i.label == s.name; });
    if (!seen && !s.name.empty()) items.push_back({s.name, s.color, LegendItem::line, s.dash});
  }
  for (const auto& s : c.spans) {
    const bool seen = std::any_of(items.begin(), items.end(), [&](const LegendItem& i) { return i.label == s.label; });
    if (!seen && !s.label.empty()) items.push_back({s.label, s.color, LegendItem::area, Dash::solid});
  }
  for (const auto& b : c.bands) {
    if (!b.label.empty()) items.push_back({b.label, b.color, LegendItem::area, Dash::solid});
  }
  for (const auto& l : c.lines) {
    if (!l.label.empty()) items.push_back({l.label, l.color, LegendItem::line, l.dash});
  }
  return items;
}

// Lays the legend out in rows under the plot; returns its height.
double legend_height(const std::vector<LegendItem>& items, double width) {
  if (items.empty()) return 0;
  double x = 0, rows = 1;
  for (const auto& i : items) {
    const double w = 34 + text_width(i.label) + 18;
    if (x > 0 && x + w > width) rows += 1, x = 0;
    x += w;
  }
  return rows * 22 + 6;
}

void render_legend(std::string& out, const std::vector<LegendItem>& items, double left, double top, double width) {
  out += "<g class=\"legend\">";
  double x = 0, y = top;
  for (const auto& i : items) {
    const double w = 34 + text_width(i.label) + 18;
    if (x > 0 && x + w > width) y += 22, x = 0;
    const double lx = left + x;
    if (i.shape == LegendItem::line) {
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"{}/>",
                         num(lx), num(y + 9), num(lx + 28), num(y + 9), escape(i.color), dash_attr(i.dash));
    } else {
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"28\" height=\"12\" fill=\"{}\" fill-opacity=\"0.35\"/>",
                         num(lx), num(y + 3), escape(i.color));
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(lx + 34), num(y + 14), escape(i.label));
    x += w;
  }
  out += "</g>";
}

void render_axes(std::string& out, const Chart& c, const Frame& f, bool rotate_x_labels) {
  const double bottom = f.top + f.height;
  out += "<g class=\"grid\" stroke=\"#d9d9d9\" stroke-width=\"1\">";
  for (const auto& t : f.y.ticks) {
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(f.left), num(f.py(t.value)),
                       num(f.left + f.width), num(f.py(t.value)));
  }
  if (!f.categorical) {
    for (const auto& t : f.x.ticks) {
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(f.px(t.value)), num(f.top),
                         num(f.px(t.value)), num(bottom));
    }
  }
  out += "</g>";
  out += "<g class=\"axes\" fill=\"#222\">";
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>", num(f.left),
                     num(f.top), num(f.width), num(f.height));
  for (const auto& t : f.y.ticks) {
    out += fmt::format("<text class=\"y-tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", num(f.left - 6),
                       num(f.py(t.value) + 5), escape(t.label));
  }
  if (f.categorical) {
    // Rotated labels need about a line of height between neighbours, measured
    // across the slant: on narrow slots only every n-th bar is labelled.
    const double slot = f.width / static_cast<double>(f.slots);
    const auto every = static_cast<std::size_t>(std::ceil(kFontSize * 1.3 / (slot * std::sin(50 * M_PI / 180))));
    for (std::size_t i = 0; i < c.bars.size(); ++i) {
      const double x = f.slot_center(i);
      if (rotate_x_labels) {
        if (i % every != 0) continue;
        out += fmt::format(
            "<text class=\"x-tick\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-50 {0} "
            "{1})\">{2}</text>",
            num(x), num(bottom + 16), escape(c.bars[i].label));
      } else {
        out += fmt::format("<text class=\"x-tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", num(x),
                           num(bottom + 19), escape(c.bars[i].label));
      }
    }
  } else {
    for (const auto& t : f.x.ticks) {
      out += fmt::format("<text class=\"x-tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                         num(f.px(t.value)), num(bottom + 19), escape(t.label));
    }
  }
  const double ycenter = f.top + f.height / 2;
  out += fmt::format(
      "<text class=\"axis-title y-title\" x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
      "{0})\">{1}</text>",
      num(ycenter), escape(c.y.title));
  out += "</g>";
}

}  // namespace

std::string render_svg(const Chart& c) {
  double xlo, xhi, ylo, yhi;
  data_range(c, xlo, xhi, ylo, yhi);
  Frame f{};
  f.categorical = !c.bars.empty();
  f.slots = c.bars.size();
  f.y = resolve_axis(c.y, ylo, yhi);
  if (!f.categorical) f.x = resolve_axis(c.x, xlo, xhi);

  double widest_y = 0;
  for (const auto& t : f.y.ticks) widest_y = std::max(widest_y, text_width(t.label));
  double widest_bar = 0;
  for (const auto& b : c.bars) widest_bar = std::max(widest_bar, text_width(b.label));
  const auto items = legend_items(c);
  f.left = std::isnan(c.plot_left) ? 34 + widest_y + 10 : c.plot_left;
  f.top = 44;
  f.width = c.width - f.left - 24;
  const bool rotate = f.categorical && widest_bar + 6 > f.width / std::max<double>(1.0, static_cast<double>(f.slots));
  const double x_labels = rotate ? widest_bar * 0.77 + 20 : 26;  // sin 50°
  const double legend_h = legend_height(items, f.width);
  f.height = c.height - f.top - x_labels - 28 - legend_h;
  const double total_h = c.height;

  std::string out;
  out.reserve(16384);
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{0}\" class=\"chart\" viewBox=\"0 0 {1} {2}\" width=\"{1}\" "
      "height=\"{2}\" role=\"img\" aria-labelledby=\"{0}-title\" font-family=\"sans-serif\" font-size=\"{3}\" "
      "data-plot-x=\"{4}\" data-plot-y=\"{5}\" data-plot-width=\"{6}\" data-plot-height=\"{7}\" "
      "data-x-scale=\"{8}\" data-x-lo=\"{9}\" data-x-hi=\"{10}\" data-y-scale=\"{11}\" data-y-lo=\"{12}\" "
      "data-y-hi=\"{13}\">",
      escape(c.id), c.width, num(total_h, 0), num(kFontSize), num(f.left, 3), num(f.top, 3), num(f.width, 3),
      num(f.height, 3),
      f.categorical                   ? "category"
      : f.x.scale == ScaleKind::log10 ? "log10"
                                      : "linear",
      num(f.x.lo, 6), num(f.x.hi, 6), f.y.scale == ScaleKind::log10 ? "log10" : "linear", num(f.y.lo, 9),
      num(f.y.hi, 9));
  out += fmt::format("<title id=\"{}-title\">{}</title>", escape(c.id), escape(c.title));
  out += fmt::format("<rect class=\"background\" width=\"{}\" height=\"{}\" fill=\"#fff\"/>", c.width, num(total_h, 0));
  out += fmt::format("<text class=\"chart-title\" x=\"{}\" y=\"26\" font-size=\"17\" font-weight=\"bold\">{}</text>",
                     num(f.left), escape(c.title));
  render_axes(out, c, f, rotate);
  detail::render_plot(out, c, f);
  const double x_title_y = f.top + f.height + x_labels + 16;
  out += fmt::format("<text class=\"axis-title x-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                     num(f.left + f.width / 2), num(x_title_y), escape(c.x.title));
  render_legend(out, items, f.left, x_title_y + 10, f.width);
  out += "</svg>";
  return out;
}

}  // namespace nvmond::report
