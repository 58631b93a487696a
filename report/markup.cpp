#include "report/markup.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace nvmond::report {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string pts_round(double round_from_zero) {
  return std::isfinite(round_from_zero) ? num(round_from_zero + 1, 0) : "–";
}

std::string num(double value, int decimals) {
  if (!std::isfinite(value)) return "0";
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

namespace {

// Three significant digits of `v` (already scaled into [1, 1000)).
std::string three_digits(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return num(v, decimals);
}

// Scales by powers of 1000 and picks the suffix; `suffixes[0]` is for values < 1000.
std::string scaled(double value, const std::array<const char*, 6>& suffixes) {
  if (!std::isfinite(value)) return "–";
  double v = value;
  std::size_t i = 0;
  while (std::fabs(v) >= 999.5 && i + 1 < suffixes.size()) {
    v /= 1000.0;
    ++i;
  }
  return three_digits(v) + suffixes[i];
}

}  // namespace

std::string si(double value) { return scaled(value, {"", "k", "M", "G", "T", "P"}); }

std::string bytes(double value) { return scaled(value, {" B", " kB", " MB", " GB", " TB", " PB"}); }

std::string bytes_per_second(double value) {
  return scaled(value, {" B/s", " kB/s", " MB/s", " GB/s", " TB/s", " PB/s"});
}

std::string block_size(double bs) {
  if (!std::isfinite(bs)) return "–";
  if (bs >= 1048576 && std::fmod(bs, 1048576) == 0) return num(bs / 1048576) + " MiB";
  if (bs >= 512 && std::fmod(bs, 512) == 0) return num(bs / 1024, 2) + " KiB";
  return num(bs, 0) + " B";
}

std::string seconds(double value) {
  if (!std::isfinite(value)) return "–";
  const double a = std::fabs(value);
  if (a == 0.0) return "0 s";
  if (a < 1e-6) return three_digits(value * 1e9) + " ns";
  if (a < 1e-3) return three_digits(value * 1e6) + " µs";
  if (a < 1.0) return three_digits(value * 1e3) + " ms";
  return three_digits(value) + " s";
}

}  // namespace nvmond::report
