#pragma once
// A window of rounds as run.json names it, (stage, rounds first..last of that
// stage), and where it lies among a run's rounds: the one reading of a
// window that the charts' shading, the summary and `compare` share. The
// per-round charts plot rounds in execution order (RoundRecord::index), so a
// window becomes the span of indices of the rounds in it.
#include <cstddef>
#include <optional>
#include <string>

#include "report/run_record.hpp"

namespace nvmond::report {

struct RoundWindow {
  std::size_t stage = 0;
  std::size_t first = 0, last = 0;
};

// The steady-state section's window (the deciding one, steady or not).
std::optional<RoundWindow> steady_state_rounds(const RunRecord& run);
std::optional<RoundWindow> steady_state_rounds(const SteadyStateReport& s);
// The rounds the run's element values come from: its measurement window,
// else (older runs) the steady-state window.
std::optional<RoundWindow> measured_rounds(const RunRecord& run);
// The same for one measured stage's own window and steady state (a sub-test).
std::optional<RoundWindow> measured_rounds(const std::optional<MeasurementWindow>& window,
                                           const std::optional<SteadyStateReport>& steady);

// A round of a test stage (not preconditioning); rounds written before
// rounds had a phase are all test rounds.
bool is_test_round(const RoundRecord& r);

bool in_window(const RoundRecord& r, const RoundWindow& w);

// The first and last RoundRecord::index of the window's rounds; nullopt when
// no round of the run lies in it.
struct IndexSpan {
  double from, to;
};
std::optional<IndexSpan> index_span(const RunRecord& run, const RoundWindow& w);

// The index of the round `round` of the window's stage whose element is
// labelled `element` (the tracked one, where the fitted line is drawn).
std::optional<double> index_of(const RunRecord& run, const RoundWindow& w, std::size_t round,
                               const std::string& element);

}  // namespace nvmond::report
