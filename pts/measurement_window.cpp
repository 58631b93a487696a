#include "pts/measurement_window.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pts/latency_distribution.hpp"

namespace nvmond {

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// The last round every element of the stage finished (a stopped run leaves
// its last round part-done), else the only, unfinished one.
std::size_t last_complete_round(const Stage& stage, const std::vector<const RoundRecord*>& rounds) {
  const std::size_t last = rounds.back()->round;
  std::size_t in_last = 0;
  for (const RoundRecord* r : rounds) in_last += r->round == last ? 1 : 0;
  return in_last < stage.elements.size() && last > 0 ? last - 1 : last;
}

}  // namespace

std::optional<MeasurementWindow> measurement_window(const Stage& stage, std::size_t stage_index,
                                                    const std::vector<const RoundRecord*>& rounds,
                                                    const std::optional<SteadyStateResult>& steady) {
  if (rounds.empty()) return std::nullopt;
  MeasurementWindow w;
  w.stage = stage_index;
  w.last = last_complete_round(stage, rounds);
  w.first = w.last;
  if (!stage.steady_state) return w;
  if (steady && steady->reached && steady->window) {
    w.first = steady->window->first;
    w.last = steady->window->last;
    w.steady_state = true;
    return w;
  }
  const auto len = static_cast<std::size_t>(stage.steady_state->rule.window);
  w.first = w.last + 1 >= len ? w.last + 1 - len : 0;
  return w;
}

OpSummary window_summary(const std::vector<const OpSummary*>& rounds, double seconds) {
  OpSummary s;
  if (rounds.empty()) return s;
  double latency_sum = 0;
  bool distributions = true;
  LatencyDistribution sum;
  s.min = std::numeric_limits<double>::infinity();
  for (const OpSummary* o : rounds) {
    s.ops += o->ops;
    s.bytes += o->bytes;
    s.errors += o->errors;
    latency_sum += o->mean * static_cast<double>(o->ops);
    if (o->ops > 0) s.min = std::min(s.min, o->min);
    s.max = std::max(s.max, o->max);
    distributions = distributions && !o->distribution.empty() == (o->ops > 0);
    add_to(sum, o->distribution);
  }
  if (!std::isfinite(s.min)) s.min = 0;
  s.iops = seconds > 0 ? static_cast<double>(s.ops) / seconds : 0;
  s.bytes_per_second = seconds > 0 ? static_cast<double>(s.bytes) / seconds : 0;
  s.mean = s.ops > 0 ? latency_sum / static_cast<double>(s.ops) : 0;
  for (auto [q, field] :
       {std::pair{0.5, &OpSummary::p50}, std::pair{0.9, &OpSummary::p90}, std::pair{0.99, &OpSummary::p99},
        std::pair{0.999, &OpSummary::p999}, std::pair{0.9999, &OpSummary::p9999}}) {
    s.*field = distributions ? quantile_of(sum, q, s.min * 1e9, s.max * 1e9) * 1e-9 : kUnknown;
  }
  s.p99999 = distributions ? quantile_of(sum, 0.99999, s.min * 1e9, s.max * 1e9) * 1e-9 : kUnknown;
  return s;
}

}  // namespace nvmond
