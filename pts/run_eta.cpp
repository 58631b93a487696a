#include "pts/run_eta.hpp"

#include <algorithm>

namespace nvmond {

namespace {

// The length of `count` element rounds of `stage` from element round `from`
// on (elements take turns, so each has its own duration), with the host
// idle that follows each (HIR's wait states).
double element_rounds_seconds(const Stage& stage, std::size_t from, std::size_t count) {
  double total = 0;
  for (std::size_t i = from; i < from + count; ++i) {
    const Element& e = stage.elements[i % stage.elements.size()];
    total += seconds(e.duration + e.idle_after);
  }
  return total;
}

// What is left of `stage` after `done` element rounds that wrote `written`.
std::optional<double> stage_left(const Stage& stage, std::size_t done, std::uint64_t written, double bytes_per_second) {
  if (stage.elements.empty()) return 0.0;
  if (stage.max_rounds > 0) {
    // A histogram stage runs its three points, not every element.
    const std::size_t per_round =
        stage.points_of ? std::min<std::size_t>(3, stage.elements.size()) : stage.elements.size();
    const std::size_t total = static_cast<std::size_t>(stage.max_rounds) * per_round;
    return element_rounds_seconds(stage, done, total - std::min(total, done));
  }
  if (stage.byte_budget && bytes_per_second > 0) {
    return static_cast<double>(*stage.byte_budget - std::min(*stage.byte_budget, written)) / bytes_per_second;
  }
  return std::nullopt;
}

// The pre-write before each round of `stage` none of whose elements has run
// after `done` element rounds (so a round's pre-write counts whole until
// its first element is done: an upper bound while that pre-write runs).
double prewrite_left(const TestPlan& plan, const Stage& stage, std::size_t done) {
  if (!stage.prewrite || stage.max_rounds <= 0 || stage.elements.empty()) return 0;
  const Stage& w = plan.stages[*stage.prewrite];
  const std::size_t begun = (done + stage.elements.size() - 1) / stage.elements.size();
  const auto rounds = static_cast<std::size_t>(stage.max_rounds);
  return static_cast<double>(rounds - std::min(rounds, begun)) *
         element_rounds_seconds(w, 0, static_cast<std::size_t>(w.max_rounds));
}

}  // namespace

std::optional<double> run_eta_seconds(const TestPlan& plan, const RunPosition& at) {
  double total = 0;
  for (std::size_t s = at.stage; s < plan.stages.size(); ++s) {
    const bool current = s == at.stage;
    // A pre-write's time counts in the stage it runs before.
    if ((current && at.stage_over) || plan.stages[s].phase == Phase::prewrite) continue;
    const auto left =
        stage_left(plan.stages[s], current ? at.elements_done : 0, current ? at.bytes_written : 0, at.bytes_per_second);
    if (!left) return std::nullopt;
    total += *left + prewrite_left(plan, plan.stages[s], current ? at.elements_done : 0);
  }
  return total;
}

}  // namespace nvmond
