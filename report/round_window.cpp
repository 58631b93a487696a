#include "report/round_window.hpp"

#include <algorithm>

namespace nvmond::report {

bool is_test_round(const RoundRecord& r) { return r.phase.empty() || phase_from_name(r.phase) == Phase::test; }

std::optional<RoundWindow> steady_state_rounds(const SteadyStateReport& s) {
  const WindowCheck* w = window_of(s);
  if (!w) return std::nullopt;
  return RoundWindow{s.stage, w->first, w->last};
}

std::optional<RoundWindow> steady_state_rounds(const RunRecord& run) {
  if (!run.results->steady_state) return std::nullopt;
  return steady_state_rounds(*run.results->steady_state);
}

std::optional<RoundWindow> measured_rounds(const std::optional<MeasurementWindow>& window,
                                           const std::optional<SteadyStateReport>& steady) {
  if (window) return RoundWindow{window->stage, window->first, window->last};
  if (!steady) return std::nullopt;
  return steady_state_rounds(*steady);
}

std::optional<RoundWindow> measured_rounds(const RunRecord& run) {
  return measured_rounds(run.results->measurement_window, run.results->steady_state);
}

bool in_window(const RoundRecord& r, const RoundWindow& w) {
  return static_cast<std::size_t>(r.stage) == w.stage && r.round >= w.first && r.round <= w.last;
}

std::optional<IndexSpan> index_span(const RunRecord& run, const RoundWindow& w) {
  std::optional<IndexSpan> span;
  for (const RoundRecord* r : run.rounds) {
    if (!in_window(*r, w)) continue;
    const auto i = static_cast<double>(r->index);
    span = span ? IndexSpan{std::min(span->from, i), std::max(span->to, i)} : IndexSpan{i, i};
  }
  return span;
}

std::optional<double> index_of(const RunRecord& run, const RoundWindow& w, std::size_t round,
                               const std::string& element) {
  for (const RoundRecord* r : run.rounds) {
    if (static_cast<std::size_t>(r->stage) != w.stage || r->round != round) continue;
    if (element.empty() || r->label.empty() || r->label == element) return static_cast<double>(r->index);
  }
  return std::nullopt;
}

}  // namespace nvmond::report
