#pragma once
// A run's header as the executor starts it: what the plan and the target
// say about what runs on what, and the drive's health records around it.
#include <string>

#include "core/clock.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"
#include "runmodel/run_header.hpp"

namespace nvmond {

RunHeader run_header(const TestPlan& plan, const TargetRecord& id, const std::string& target, bool simulated,
                     WallTime started);
SmartRecord smart_record(const HealthSample& h);

}  // namespace nvmond
