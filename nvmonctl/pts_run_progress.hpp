#pragma once
// What `nvmonctl test run` shows of each round: one line naming the stage,
// the round, the phase and element, IOPS, throughput, the drive's
// temperature and the run's ETA. On a terminal the line is rewritten in
// place (carriage return, then erase to the end of the line); piped, each
// round is a line of its own, for logs and scripts.
#include <iosfwd>
#include <string>

#include "pts/run_executor.hpp"

namespace nvmond {

// The line, without any line ending or terminal control.
std::string progress_line(const RunProgress& p);

// "H:MM:SS".
std::string hms(double seconds);

class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, bool live) : out_(out), live_(live) {}
  void round(const RunProgress& p);
  // Ends the live line, so what follows starts on a line of its own.
  void finish();

 private:
  std::ostream& out_;
  bool live_;
  bool line_open_ = false;
};

}  // namespace nvmond
