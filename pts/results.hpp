#pragma once
// What a run's rounds amount to (runmodel/run_results.hpp), from the plan
// and the rounds. analyse() is pure, and it judges each stage's steady state
// once: a live run and one rebuilt from the store get the same results from
// the same plan, header and rounds.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "pts/measurement_window.hpp"
#include "pts/plan.hpp"
#include "pts/steady_state.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_results.hpp"

namespace nvmond {

RunResults analyse(const TestPlan& plan, const RunHeader& header, const std::vector<RoundRecord>& rounds);

// The max, mid and min IOPS points (in that order, as element indices of
// `sweep`) over the measurement window of `rounds`, stage `stage`'s (whose
// steady-state verdict is `steady`); empty before it has a measured round.
std::vector<std::pair<const char*, std::size_t>> sweep_iops_points(const Stage& sweep, std::size_t stage,
                                                                   const std::vector<const RoundRecord*>& rounds,
                                                                   const std::optional<SteadyStateResult>& steady);

}  // namespace nvmond
