#pragma once
// What each control-socket command does (docs/operations.md): plain
// dispatch from a request object to the soak boundary, the scheduler and
// the published drive summaries, and back to a reply object.
//
// Thread-safety: event-loop thread only.
#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

#include "core/clock.hpp"
#include "daemon/drive_summary.hpp"
#include "schedule/soak_control.hpp"
#include "schedule/soak_scheduler.hpp"

namespace nvmond {

struct ControlContext {
  SoakControl& soaks;
  SoakScheduler& scheduler;
  const Clock& clock;
  std::function<std::vector<DriveSummary>()> drives;
  // Lets the scheduler act now (start a queued run, see a stopped one go).
  std::function<void()> tick;
};

nlohmann::json handle_control(const nlohmann::json& request, ControlContext& ctx);

nlohmann::json to_json(const RunView& r);

}  // namespace nvmond
