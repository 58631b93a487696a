#pragma once
// The report's charts, built from one or several runs. A single-run report
// passes one RunView; `nvmonctl compare` and the mixed test's reduced-range
// section pass several and get the same charts overlaid, one colour per run.
// Each builder returns nullopt when no run has the data.
#include <optional>
#include <string>
#include <vector>

#include "report/chart.hpp"
#include "report/run_record.hpp"

namespace nvmond::report {

struct RunView {
  const RunRecord* run;
  std::string label;  // legend text when overlaid
  std::string color;
};

// What the per-round throughput chart tracks: the steady-state variable when
// there is one, else bandwidth for throughput-like tests and IOPS otherwise.
bool tracks_bandwidth(const RunRecord& run);

// Rounds of the test phase (precondition rounds are drawn but not judged).
std::optional<Chart> throughput_per_round(const std::vector<RunView>& runs, const std::string& id);
// The steady-state measurement window close up (PTS's "steady state
// convergence" plot): the window's rounds and a few before, with the band.
// `s` is the run's steady state or one sub-test's, named in `title`.
std::optional<Chart> steady_state_window(const RunRecord& run, const SteadyStateReport& s, const std::string& id,
                                         const std::string& title);
// IOPS of the test rounds against the data written since the run began
// (PTS WSAT's "IOPS vs TGBW"): a drive's cliff sits at a share of its
// capacity, whatever its speed.
std::optional<Chart> iops_over_data_written(const std::vector<RunView>& runs, const std::string& id);
std::optional<Chart> latency_per_round(const std::vector<RunView>& runs, const std::string& id);
// The caption that says how latency_per_round drew a single run.
std::string latency_per_round_note(const RunRecord& run);
// Throughput and composite temperature over elapsed time, on one time scale,
// with throttle events shaded and WCTEMP/CCTEMP drawn.
std::optional<Chart> throughput_over_time(const std::vector<RunView>& runs, const std::string& id);
std::optional<Chart> temperature_over_time(const std::vector<RunView>& runs, const std::string& id);
std::optional<Chart> latency_vs_queue_depth(const RunRecord& run, const std::string& id);
std::optional<Chart> latency_histogram(const RunRecord& run, const std::string& id);
// A demand-intensity sweep (PTS CBW, DIRTH): mean response time against
// IOPS. One run: a line per thread count through its queue depths; several:
// a line per run through its points by rising threads x queue depth. Only
// runs that kept the sweep's histograms (response_time_histograms) count.
std::optional<Chart> demand_intensity(const std::vector<RunView>& runs, const std::string& id);
// The same sweep's IOPS against queue depth, a line per thread count (PTS
// "demand variation": which threads x queue depth a drive needs).
std::optional<Chart> demand_variation(const RunRecord& run, const std::string& id);
// One op's response-time histogram at one sweep point; nullopt when that
// point has no I/O of the op.
std::optional<Chart> point_histogram(const nvmond::PointHistogram& p, bool reads, const std::string& id);
// Test rounds grouped by stage, in run order: HIR's steady state, wait
// states and baselines, XSR's access groups.
struct StageRounds {
  int stage;
  std::string label;  // the stage's element label; XSR: "AG1 SEQ 1MiB write"
  std::vector<const RoundRecord*> rounds;
};
std::vector<StageRounds> rounds_by_stage(const RunRecord& run);
// PTS HIR's "IOPS v time, all wait states" and XSR's "throughput v time, all
// access groups": each round's IOPS (HIR) or throughput (XSR) at its time
// since the run began, a line per stage (HIR's baselines share one), the
// wait states' stretches shaded as host idle between bursts (HIR) or each
// access group's stretch named (XSR). Overlaid runs: one line per run.
std::optional<Chart> rate_over_time_by_stage(const std::vector<RunView>& runs, const std::string& id);
std::optional<Chart> slc_fill(const std::vector<RunView>& runs, const std::string& id);

}  // namespace nvmond::report
