#pragma once
// Where `nvmonctl test run --target` and [[soak]] target= point: a simulated
// drive or a real block device / file, as a PTS TestTarget.
#include <memory>
#include <string>
#include <vector>

#include "sim/sim_device.hpp"
#include "services/config.hpp"
#include "pts/test_target.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

// Opens TARGET for a PTS run: "sim:X" is the [[sim]] drive named or with
// serial X (its model from `source` when the daemon has one, else a fresh
// model), or a fresh drive of the built-in profile X; anything else a block
// device or file, written only where `guard` allows. `pace`: the clock a
// simulated drive's rounds keep pace with (the daemon's; none: as fast as
// the model computes).
Result<std::unique_ptr<TestTarget>> open_test_target(const std::string& target, const std::vector<SimSettings>& sims,
                                                     const SafetyGuard& guard, const SimDeviceSource* source,
                                                     const Clock* pace = nullptr);

}  // namespace nvmond
