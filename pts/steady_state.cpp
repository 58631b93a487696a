#include "pts/steady_state.hpp"

#include <algorithm>
#include <cmath>

namespace nvmond {

std::optional<std::string> validate(const SteadyStateRule& rule) {
  if (rule.window != 4 && rule.window != 5) {
    return "steady-state window must be 5 rounds (the PTS: x-4..x) or 4 (as the reviews ran it), not " +
           std::to_string(rule.window);
  }
  if (!(rule.range_limit > 0) || !(rule.slope_limit > 0)) return "steady-state limits must be positive";
  if (rule.max_rounds != 0 && rule.max_rounds < rule.window) {
    return "steady-state max_rounds must be 0 (fixed length) or at least the window";
  }
  return std::nullopt;
}

WindowCheck check_window(std::span<const double> y, std::size_t first, const SteadyStateRule& rule) {
  WindowCheck c;
  c.first = first;
  c.last = first + y.size() - 1;
  const double n = static_cast<double>(y.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double x = static_cast<double>(first + i);
    sx += x;
    sy += y[i];
    sxx += x * x;
    sxy += x * y[i];
  }
  c.average = sy / n;
  const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
  c.range = *hi - *lo;
  const double denom = n * sxx - sx * sx;
  c.slope = denom != 0 ? (n * sxy - sx * sy) / denom : 0.0;
  c.intercept = (sy - c.slope * sx) / n;
  c.slope_excursion = std::fabs(c.slope) * (n - 1);
  c.range_limit = rule.range_limit * std::fabs(c.average);
  c.slope_excursion_limit = rule.slope_limit * std::fabs(c.average);
  c.range_ok = c.range <= c.range_limit;
  c.slope_ok = c.slope_excursion <= c.slope_excursion_limit;
  return c;
}

namespace {

thread_local std::uint64_t evaluations = 0;

SteadyStateResult evaluate_one(std::span<const double> series, const SteadyStateRule& rule) {
  SteadyStateResult r;
  const auto w = static_cast<std::size_t>(rule.window);
  if (w == 0 || series.size() < w) return r;
  auto window_ending = [&](std::size_t last) {
    return check_window(series.subspan(last + 1 - w, w), last + 1 - w, rule);
  };
  if (rule.max_rounds > 0) {
    const std::size_t end = std::min(series.size(), static_cast<std::size_t>(rule.max_rounds));
    for (std::size_t last = w - 1; last < end; ++last) {
      r.window = window_ending(last);
      r.windows = {*r.window};
      if (r.window->ok()) {
        r.reached = true;
        r.round = last;
        return r;
      }
    }
    return r;
  }
  // Fixed length: the final window decides. Walk back while the earlier
  // windows pass too and the earlier rounds stay within the final window's
  // band (average ± half the range limit): a slow drift passes every 5-round
  // window on its own, but it is not the state the run ends in.
  r.window = window_ending(series.size() - 1);
  r.windows = {*r.window};
  if (!r.window->ok()) return r;
  r.reached = true;
  const double band = r.window->range_limit / 2;
  std::size_t entered = series.size() - 1;
  while (entered >= w && window_ending(entered - 1).ok() &&
         std::fabs(series[entered - w] - r.window->average) <= band) {
    --entered;
  }
  r.round = entered;
  return r;
}

}  // namespace

SteadyStateResult evaluate_steady_state(std::span<const double> series, const SteadyStateRule& rule) {
  ++evaluations;
  return evaluate_one(series, rule);
}

SteadyStateResult evaluate_steady_state(std::span<const std::vector<double>> series, const SteadyStateRule& rule) {
  ++evaluations;
  if (series.size() == 1) return evaluate_one(std::span<const double>(series[0]), rule);
  SteadyStateResult r;
  const auto w = static_cast<std::size_t>(rule.window);
  std::size_t rounds = series.empty() ? 0 : series[0].size();
  for (const auto& y : series) rounds = std::min(rounds, y.size());
  if (w == 0 || rounds < w) return r;
  auto windows_ending = [&](std::size_t last) {
    std::vector<WindowCheck> checks;
    for (const auto& y : series) {
      checks.push_back(check_window(std::span(y).subspan(last + 1 - w, w), last + 1 - w, rule));
    }
    return checks;
  };
  auto all_ok = [](const std::vector<WindowCheck>& checks) {
    return std::all_of(checks.begin(), checks.end(), [](const WindowCheck& c) { return c.ok(); });
  };
  if (rule.max_rounds > 0) {
    const std::size_t end = std::min(rounds, static_cast<std::size_t>(rule.max_rounds));
    for (std::size_t last = w - 1; last < end; ++last) {
      r.windows = windows_ending(last);
      r.window = r.windows.front();
      if (all_ok(r.windows)) {
        r.reached = true;
        r.round = last;
        return r;
      }
    }
    return r;
  }
  r.windows = windows_ending(rounds - 1);
  r.window = r.windows.front();
  if (!all_ok(r.windows)) return r;
  r.reached = true;
  std::size_t entered = 0;
  for (const auto& y : series) {
    const auto one = evaluate_one(std::span<const double>(y.data(), rounds), rule);
    entered = std::max(entered, one.round.value_or(rounds - 1));
  }
  r.round = entered;
  return r;
}

std::uint64_t steady_state_evaluations() { return evaluations; }

}  // namespace nvmond
