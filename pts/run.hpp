#pragma once
// A run as one typed value: what ran on what (the header), how it ended,
// its rounds and what they amount to. The executor ends with one, a report
// from the store rebuilds one, and run.json (pts/run_json.hpp) is its
// encoding.
#include <vector>

#include "pts/plan.hpp"
#include "pts/results.hpp"
#include "pts/round_record.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"

namespace nvmond {

struct Run {
  RunHeader header;
  RunStatus status = RunStatus::failed;
  std::vector<RoundRecord> rounds;
  RunResults results;
};

// The run with its rounds analysed under `plan` (pts/results.hpp).
Run make_run(const TestPlan& plan, RunHeader header, RunStatus status, std::vector<RoundRecord> rounds);

}  // namespace nvmond
