#pragma once
// `nvmonctl test run TEST --target TARGET [--config FILE] [--profile NAME]
// [--set KEY=VALUE]... --out DIR`: one PTS test in the foreground. Progress
// (nvmonctl/pts_run_progress.hpp) goes to `progress`; DIR/run.json is written when the run ends
// (completed, failed or interrupted). The run is durable in DIR/runs.db: run
// again with the same --out after a crash and it resumes at the next round.
//
// TARGET: a block device or file (written only where the [safety] table of
// --config allows), or sim:NAME — a [[sim]] drive of --config by name or
// serial, or a fresh drive of a built-in profile ("sim:datacenter"). Simulated
// drives run on their own clock, as fast as the model computes.
//
// Exit codes: 0 completed, 1 refused or failed, 2 bad arguments or config.
#include <iosfwd>
#include <string>
#include <vector>

namespace nvmond {

struct TestRunArgs {
  std::string test;
  std::string target;
  std::string config;  // optional daemon-style TOML ([safety], [[sim]])
  std::vector<std::string> sets;
  // The PTS profile: "enterprise" (PTS-E, the default) or "client" (PTS-C).
  std::string profile = "enterprise";
  std::string out;
  std::string name;  // the run's key in DIR/runs.db; default TEST@TARGET
  bool resume = true;
  // One progress line rewritten in place (a terminal), or a line per round.
  bool live_progress = false;
};

int test_run_command(const TestRunArgs& args, std::ostream& progress, std::ostream& err);

}  // namespace nvmond
