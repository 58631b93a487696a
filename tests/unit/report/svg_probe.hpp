#pragma once
// Reads back what the report wrote: finds elements by the ids, classes and
// data-* attributes the SVG writer promises (report/chart.hpp), without a
// regex engine (the WSAT page is half a megabyte).
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace nvmond::report::test {

// The text of one start tag: from "<" to ">".
inline std::string tag_at(const std::string& doc, std::size_t pos) {
  const auto end = doc.find('>', pos);
  return doc.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1);
}

inline std::string attr(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto p = tag.find(key);
  if (p == std::string::npos) return {};
  const auto start = p + key.size();
  return tag.substr(start, tag.find('"', start) - start);
}

inline double num_attr(const std::string& tag, const std::string& name) {
  return std::strtod(attr(tag, name).c_str(), nullptr);
}

// The whole <svg id="ID"> … </svg> element, or "" when absent.
inline std::string svg_by_id(const std::string& doc, const std::string& id) {
  const auto p = doc.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + id + "\"");
  if (p == std::string::npos) return {};
  return doc.substr(p, doc.find("</svg>", p) + 6 - p);
}

// Start tags that begin with `prefix` (e.g. "<rect class=\"x-span steady-state\"").
inline std::vector<std::string> tags(const std::string& doc, const std::string& prefix) {
  std::vector<std::string> out;
  for (auto p = doc.find(prefix); p != std::string::npos; p = doc.find(prefix, p + 1)) out.push_back(tag_at(doc, p));
  return out;
}

// The points of every <polyline> of the series named `name`, in order.
inline std::vector<std::pair<double, double>> series_points(const std::string& svg, const std::string& name) {
  std::vector<std::pair<double, double>> out;
  const auto g = svg.find("<g class=\"series\" data-series=\"" + name + "\"");
  if (g == std::string::npos) return out;
  const auto end = svg.find("</g>", g);
  for (auto p = svg.find("<polyline points=\"", g); p != std::string::npos && p < end;
       p = svg.find("<polyline points=\"", p + 1)) {
    const std::string pts = attr(tag_at(svg, p), "points");
    const char* s = pts.c_str();
    char* next = nullptr;
    while (*s) {
      const double x = std::strtod(s, &next);
      if (next == s || *next != ',') break;
      const double y = std::strtod(next + 1, &next);
      out.emplace_back(x, y);
      s = next;
      while (*s == ' ') ++s;
    }
  }
  return out;
}

// The plot geometry an <svg> declares: maps x pixels back to data (linear axes).
struct PlotX {
  double left, width, lo, hi;
  explicit PlotX(const std::string& svg) {
    const auto t = tag_at(svg, 0);
    left = num_attr(t, "data-plot-x");
    width = num_attr(t, "data-plot-width");
    lo = num_attr(t, "data-x-lo");
    hi = num_attr(t, "data-x-hi");
  }
  double data(double px) const { return lo + (px - left) / width * (hi - lo); }
};

}  // namespace nvmond::report::test
