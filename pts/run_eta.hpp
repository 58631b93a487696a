#pragma once
// How long a run has left, in target time: the rest of the stage it is in
// plus every stage after it. A stage that has just ended (steady state
// reached, SLC cliff found, byte budget written) has nothing left, however
// many rounds its limit would have allowed; a stage still going counts the
// rounds its limit allows (an upper bound when steady state may end it
// sooner), or its bytes left at the last round's write rate.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "pts/plan.hpp"

namespace nvmond {

// Where a run is, after a round was committed.
struct RunPosition {
  std::size_t stage = 0;            // index in the plan's stages
  std::size_t elements_done = 0;    // element rounds of this stage committed
  std::uint64_t bytes_written = 0;  // host bytes this stage has written
  bool stage_over = false;          // the stage ends here, whatever its limit
  double bytes_per_second = 0;      // the last round's throughput
};

// Seconds of target time left; nullopt when a stage's length cannot be told
// (no round limit and no rate to spend its byte budget at).
std::optional<double> run_eta_seconds(const TestPlan& plan, const RunPosition& at);

}  // namespace nvmond
