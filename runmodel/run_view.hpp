#pragma once
// What names a run and how it stands, as the store lists it, the soak runner
// shows it live and the control socket sends it (runmodel/run_codec.hpp
// writes and reads that payload).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "runmodel/run_status.hpp"

namespace nvmond {

// What names a run wherever it is listed, stored or live: its id, its name
// (its key in the store: a [[soak]]'s name, or a label), the test, the target
// as the operator gave it, and the serial of the drive under it.
struct RunIdentity {
  std::int64_t id = 0;
  std::string name;
  std::string test;
  std::string target;
  std::string serial;
  bool operator==(const RunIdentity&) const = default;
};

// One run as an operator sees it, live or from history.
struct RunView : RunIdentity {
  RunStatus status = RunStatus::running;
  std::int64_t round = 0;         // finished rounds
  std::int64_t rounds_total = 0;  // 0 when open-ended (until steady state)
  std::string phase;
  double iops = 0;
  double bytes_per_second = 0;  // of the last finished round
  std::optional<Duration> eta;
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> ended_ns;
  std::optional<bool> steady;  // none until the test has a steady-state window
  // The steady-state window over the tracked variable (PTS: 5 rounds):
  // its average, range and least-squares excursion, in that variable's unit.
  std::optional<double> window_average, window_range, window_excursion;
  // Latency quantiles of the last finished round: {quantile, seconds}.
  std::vector<std::pair<double, double>> round_latency;
  // Set while the daemon holds the run paused because its round cannot be
  // recorded (the run store is locked, full, ...): the store's reason
  // ("locked") and its message. Empty otherwise.
  std::string paused_reason{}, paused_detail{};
  bool operator==(const RunView&) const = default;
};

}  // namespace nvmond
