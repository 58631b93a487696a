#pragma once
// A run as one typed value: what ran on what (the header), how it ended,
// its rounds and what they amount to. The executor ends with one
// (pts/run.hpp makes it), a report from the store rebuilds one, and run.json
// (runmodel/run_json.hpp) is its encoding.
#include <vector>

#include "runmodel/round_record.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_results.hpp"
#include "runmodel/run_status.hpp"

namespace nvmond {

struct Run {
  RunHeader header;
  RunStatus status = RunStatus::failed;
  std::vector<RoundRecord> rounds;
  RunResults results;
};

}  // namespace nvmond
