#pragma once
// A typed run (runmodel/run.hpp) from its plan, header, status and rounds.
#include <vector>

#include "pts/plan.hpp"
#include "pts/results.hpp"
#include "runmodel/run.hpp"

namespace nvmond {

// The run with its rounds analysed under `plan` (pts/results.hpp).
Run make_run(const TestPlan& plan, RunHeader header, RunStatus status, std::vector<RoundRecord> rounds);

}  // namespace nvmond
