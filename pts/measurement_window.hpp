#pragma once
// The rounds a stage's reported values come from (PTS "measurement window"),
// and those values: every element's IOPS, bytes/s and latency over the
// window, not over one round of it.
//
// A round is (stage, round within the stage), as RoundRecord and run.json
// keep it; the window is a range of rounds of one stage.
#include <cstddef>
#include <optional>
#include <vector>

#include "pts/plan.hpp"
#include "runmodel/round_record.hpp"
#include "runmodel/run_results.hpp"
#include "runmodel/steady_state_verdict.hpp"

namespace nvmond {

// The steady-state window when the stage reached steady state (`steady`:
// its verdict over `rounds`, none when it tracks none); else its last
// `window` complete rounds, x-4..x (its last complete round when it tracks no
// steady state). nullopt before the stage has a round.
std::optional<MeasurementWindow> measurement_window(const Stage& stage, std::size_t stage_index,
                                                    const std::vector<const RoundRecord*>& rounds,
                                                    const std::optional<SteadyStateResult>& steady);

// One op of one element over a window's rounds: counts summed, rates over
// the summed time, the mean weighted by I/Os, the extremes of the window and
// its quantiles from the summed distributions. A quantile is NaN when a round
// kept no distribution (rounds stored before they did).
OpSummary window_summary(const std::vector<const OpSummary*>& rounds, double seconds);

}  // namespace nvmond
