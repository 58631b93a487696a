#pragma once
// Where `nvmonctl test run --target` and [[soak]] target= point: a simulated
// drive or a real block device / file, as a PTS TestTarget.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/sim_device.hpp"
#include "services/config.hpp"
#include "pts/target.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

// The live model of the [[sim]] drive with this serial (the daemon's
// polled drives); nullptr: none.
using SimModelLookup = std::function<std::shared_ptr<DriveModel>(const std::string& serial)>;

// Opens TARGET for a PTS run: "sim:X" is the [[sim]] drive named or with
// serial X (its model from `models` when the daemon has one, else a fresh
// model), or a fresh drive of the built-in profile X; anything else a block
// device or file, written only where `guard` allows. `pace`: the clock a
// simulated drive's rounds keep pace with (the daemon's; none: as fast as
// the model computes). A device's identify and safety check happen here:
// call it where waiting on the device is allowed (a run's own thread).
Result<std::unique_ptr<TestTarget>> open_test_target(const std::string& target, const std::vector<SimSettings>& sims,
                                                     const SafetyGuard& guard, const SimModelLookup& models,
                                                     const Clock* pace = nullptr);

}  // namespace nvmond
