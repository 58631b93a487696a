#pragma once
// A run's header as the executor starts it: what the plan and the target
// say about what runs on what, and the drive's health records around it.
#include <optional>
#include <string>

#include "collectors/health.hpp"
#include "collectors/ocp_logs.hpp"
#include "core/clock.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"
#include "runmodel/run_header.hpp"

namespace nvmond {

RunHeader run_header(const TestPlan& plan, const TargetRecord& id, const std::string& target, bool simulated,
                     WallTime started);
// The drive's health log as a run records it: `log` read at `time`, the
// composite temperature as the target reads it, and where the drive's OCP
// latency monitor is enabled, its lowest threshold and the reads and writes
// it timed at or above it.
SmartRecord smart_record(WallTime time, double temperature_c, const SmartLog& log,
                         const std::optional<OcpLatencyMonitorLog>& latency_monitor);

}  // namespace nvmond
