#pragma once
// The SNIA PTS steady-state rule, as pure functions over a series of
// per-round values (IOPS, bytes/s or latency of the tracked element).
//
// A window of N consecutive rounds (N = 5 by default; 4 is allowed) is in
// steady state when, with avg the window's mean:
//   range:  max(y) - min(y)                      <= 20 % of avg
//   slope:  excursion of the least-squares line   <= 10 % of avg
//           across the window, |slope| × (N - 1)
// A test that runs until steady state checks every window that ends at a
// round below max_rounds (25) and stops at the first that passes. A
// fixed-length soak (max_rounds = 0) is judged on its final window; the round
// it reports is where the run entered the steady state it ends in: the first
// round from which every later window passes and every value stays within the
// final window's average ± half the range limit, so neither a FOB plateau the
// write cliff later breaks nor a slow drift is mistaken for it.
// A stage may track several variables (the IOPS test tracks three): it is in
// steady state only when every one of them passes over the same window.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runmodel/steady_state_verdict.hpp"

namespace nvmond {

// nullopt when the rule is one the specification allows.
std::optional<std::string> validate(const SteadyStateRule& rule);

// Checks rounds [first, first + window.size()) whose values are `window`.
WindowCheck check_window(std::span<const double> window, std::size_t first, const SteadyStateRule& rule);

// Steady state of `series` under `rule` (see the header comment for the two
// modes). Pure; the series is every round so far, oldest first.
SteadyStateResult evaluate_steady_state(std::span<const double> series, const SteadyStateRule& rule);
// The same for several variables measured in the same rounds: reached when
// all of them pass over one window (a fixed-length soak: every final window
// passes; the round is the latest at which one of them entered its state).
SteadyStateResult evaluate_steady_state(std::span<const std::vector<double>> series, const SteadyStateRule& rule);

// How many verdicts (calls of either overload above) this thread has
// evaluated: each walks every window of a stage's rounds, so a run judges a
// stage once per round and reuses the verdict, and tests count that it does.
std::uint64_t steady_state_evaluations();

}  // namespace nvmond
