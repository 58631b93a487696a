#pragma once
// The facts of a run's plan that its results are analysed from: the stages
// with their elements, steady-state rules and tracked values, SLC detection
// and histogram points, and the QoS checks. The store keeps them in the
// run's header blob (runmodel/run_codec.hpp), so a run reported from the
// store is analysed under the plan it ran, not under what today's plan
// builders make of its parameters. run.json does not carry them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/io_op.hpp"
#include "runmodel/stage_phase.hpp"
#include "runmodel/steady_state_verdict.hpp"
#include "runmodel/tracked_variable.hpp"

namespace nvmond {

struct ElementFacts {
  std::string label;
  std::uint32_t bs = 0;  // the (first) block size
  double read_pct = 0;
  unsigned threads = 1, queue_depth = 1;
  double range_fraction = 1.0;  // of the tested range
  bool operator==(const ElementFacts&) const = default;
};

struct TrackedFacts {
  std::size_t element = 0;
  TrackedVariable variable = TrackedVariable::iops;
  bool operator==(const TrackedFacts&) const = default;
};

// The steady-state rule and what it follows.
struct SteadyStateFacts {
  SteadyStateRule rule;
  bool stop_when_reached = true;
  std::vector<TrackedFacts> tracked;
  bool operator==(const SteadyStateFacts&) const = default;
};

struct SlcFacts {
  double drop_fraction = 0;
  int drop_rounds = 0;
  bool operator==(const SlcFacts&) const = default;
};

struct StageFacts {
  Phase phase = Phase::test;
  std::string kind, label;
  int group = 0;
  std::vector<ElementFacts> elements;
  int max_rounds = 1;
  std::optional<SteadyStateFacts> steady_state;
  std::optional<SlcFacts> slc;
  bool iops_point_histograms = false;
  std::optional<std::size_t> points_of;
  bool preconditions = false;
  bool operator==(const StageFacts&) const = default;
};

struct QosFacts {
  IoOp op = IoOp::read;
  std::uint32_t bs = 0;
  double quantile = 0, limit_seconds = 0;
  std::size_t element = 0;
  bool operator==(const QosFacts&) const = default;
};

struct PlanRecord {
  std::vector<StageFacts> stages;
  std::vector<QosFacts> qos;
  std::string compare_label;  // non-empty: group 1 is a comparison run
  bool operator==(const PlanRecord&) const = default;
};

}  // namespace nvmond
