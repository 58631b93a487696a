#include "nvmonctl/pts_run_progress.hpp"

#include <fmt/core.h>

#include <ostream>

namespace nvmond {

std::string hms(double s) {
  const auto t = static_cast<long long>(s);
  return fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
}

std::string progress_line(const RunProgress& p) {
  std::string line =
      fmt::format("{}stage {} round {:>4} {:<12} {:<24} {:>12.0f} IOPS {:>10.1f} MB/s", p.resumed ? "[resumed] " : "",
                  p.stage + 1, p.round + 1, p.phase, p.label, p.iops, p.bytes_per_second / 1e6);
  if (p.temperature_c) line += fmt::format(" {:>5.1f} °C", *p.temperature_c);
  if (p.eta_seconds) line += "  ETA " + hms(*p.eta_seconds);
  return line;
}

void ProgressPrinter::round(const RunProgress& p) {
  if (live_) {
    // "\x1b[K" erases what a longer line before left to the right.
    out_ << '\r' << progress_line(p) << "\x1b[K";
    line_open_ = true;
  } else {
    out_ << progress_line(p) << '\n';
  }
  out_.flush();
}

void ProgressPrinter::finish() {
  if (line_open_) out_ << '\n';
  line_open_ = false;
}

}  // namespace nvmond
