#pragma once
// A steady-state rule and its verdict as a run keeps them: the rule's
// limits, each window's numbers, the deciding window and the round steady
// state was reached at. pts/steady_state.hpp evaluates the rule.
#include <cstddef>
#include <optional>
#include <vector>

namespace nvmond {

struct SteadyStateRule {
  int window = 5;             // rounds; 4 or 5
  double range_limit = 0.20;  // of the window average
  double slope_limit = 0.10;  // of the window average
  int max_rounds = 25;        // 0: fixed-length soak, no cap
  bool operator==(const SteadyStateRule&) const = default;
};

// One window's numbers. Indices are rounds (0-based), both ends inclusive.
struct WindowCheck {
  std::size_t first = 0;
  std::size_t last = 0;
  double average = 0;
  double range = 0;
  double range_limit = 0;  // absolute: rule.range_limit × average
  double slope = 0;        // per round, of y = intercept + slope × round
  double intercept = 0;
  double slope_excursion = 0;        // |slope| × (N - 1)
  double slope_excursion_limit = 0;  // absolute: rule.slope_limit × average
  bool range_ok = false;
  bool slope_ok = false;
  bool ok() const { return range_ok && slope_ok; }
};

struct SteadyStateResult {
  bool reached = false;
  std::optional<std::size_t> round;  // round at which steady state was reached
  // The deciding window: the one that passed, else the last one checked
  // (nullopt while the series is shorter than the window). With several
  // variables, the first one's.
  std::optional<WindowCheck> window;
  // Every variable's check of the deciding window, in the order tracked.
  std::vector<WindowCheck> windows;
};

}  // namespace nvmond
