#include <gtest/gtest.h>

#include <sstream>

#include "nvmonctl/pts_run_progress.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

RunProgress a_round() {
  RunProgress p;
  p.stage = 1;
  p.round = 14;
  p.phase = "test";
  p.label = "RND 4KiB write";
  p.iops = 51234.4;
  p.bytes_per_second = 209.8e6;
  p.temperature_c = 41.25;
  p.eta_seconds = 3723;
  return p;
}

TEST(ProgressLine, NamesStageRoundIopsTemperatureAndEta) {
  const std::string line = progress_line(a_round());
  // Rounds as the PTS counts them, from 1 (RunProgress's are from 0).
  EXPECT_NE(line.find("stage 2 round   15 test"), std::string::npos) << line;
  EXPECT_NE(line.find("RND 4KiB write"), std::string::npos) << line;
  EXPECT_NE(line.find("51234 IOPS"), std::string::npos) << line;
  EXPECT_NE(line.find("209.8 MB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("41.2 °C"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 1:02:03"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(ProgressLine, LeavesOutWhatIsNotKnown) {
  RunProgress p = a_round();
  p.temperature_c.reset();
  p.eta_seconds.reset();
  const std::string line = progress_line(p);
  EXPECT_EQ(line.find("°C"), std::string::npos) << line;
  EXPECT_EQ(line.find("ETA"), std::string::npos) << line;
}

TEST(ProgressPrinter, OnATerminalRewritesOneLineAndEndsIt) {
  std::ostringstream out;
  ProgressPrinter live(out, true);
  live.round(a_round());
  live.round(a_round());
  live.finish();
  const std::string line = progress_line(a_round());
  EXPECT_EQ(out.str(), "\r" + line + "\x1b[K\r" + line + "\x1b[K\n");
}

TEST(ProgressPrinter, PipedPrintsALinePerRound) {
  std::ostringstream out;
  ProgressPrinter piped(out, false);
  piped.round(a_round());
  piped.round(a_round());
  piped.finish();
  const std::string line = progress_line(a_round());
  EXPECT_EQ(out.str(), line + "\n" + line + "\n");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
