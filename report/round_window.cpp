#include "report/round_window.hpp"

#include <algorithm>
#include <cmath>

namespace nvmond::report {

bool is_test_round(const Round& r) { return r.phase.empty() || phase_from_name(r.phase) == Phase::test; }

namespace {

// The stage a window without one counts in: that of the run's last test round.
double window_stage(const RunRecord& run, const RoundWindow& w) {
  if (std::isfinite(w.stage)) return w.stage;
  for (auto it = run.rounds.rbegin(); it != run.rounds.rend(); ++it) {
    if (is_test_round(*it)) return it->stage;
  }
  return kAbsent;
}

// The round's number and whether it is in the window's stage.
std::optional<double> round_in_stage(const RunRecord& run, const Round& r, const RoundWindow& w) {
  if (!std::isfinite(r.round)) return static_cast<double>(r.index);
  const double stage = window_stage(run, w);
  if (std::isfinite(stage) && r.stage != stage) return std::nullopt;
  return r.round;
}

}  // namespace

std::optional<RoundWindow> steady_state_rounds(const SteadyState& s) {
  if (std::isnan(s.window_from) || std::isnan(s.window_to)) return std::nullopt;
  return RoundWindow{s.stage, s.window_from, s.window_to};
}

std::optional<RoundWindow> steady_state_rounds(const RunRecord& run) {
  if (!run.steady_state) return std::nullopt;
  return steady_state_rounds(*run.steady_state);
}

std::optional<RoundWindow> measured_rounds(const std::optional<MeasurementWindow>& window,
                                           const std::optional<SteadyState>& steady) {
  if (window && std::isfinite(window->from) && std::isfinite(window->to)) {
    return RoundWindow{window->stage, window->from, window->to};
  }
  if (!steady) return std::nullopt;
  return steady_state_rounds(*steady);
}

std::optional<RoundWindow> measured_rounds(const RunRecord& run) {
  return measured_rounds(run.measurement_window, run.steady_state);
}

bool in_window(const RunRecord& run, const Round& r, const RoundWindow& w) {
  const auto n = round_in_stage(run, r, w);
  return n && *n >= w.first && *n <= w.last;
}

std::optional<IndexSpan> index_span(const RunRecord& run, const RoundWindow& w) {
  std::optional<IndexSpan> span;
  for (const auto& r : run.rounds) {
    if (!in_window(run, r, w)) continue;
    const auto i = static_cast<double>(r.index);
    span = span ? IndexSpan{std::min(span->from, i), std::max(span->to, i)} : IndexSpan{i, i};
  }
  return span;
}

std::optional<double> index_of(const RunRecord& run, const RoundWindow& w, double round, const std::string& element) {
  for (const auto& r : run.rounds) {
    const auto n = round_in_stage(run, r, w);
    if (!n || *n != round) continue;
    if (element.empty() || !r.element || r.element->label == element) return static_cast<double>(r.index);
  }
  return std::nullopt;
}

}  // namespace nvmond::report
