#pragma once
// What each control-socket command does (docs/operations.md): typed
// dispatch from a control protocol request to the soak boundary, the
// scheduler and the published drive summaries, and back to its reply.
//
// Thread-safety: event-loop thread only.
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device.hpp"
#include "control/protocol.hpp"
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
  // What uses the drive with this serial now ("job fio-1", "soak run 12"),
  // where a self-test must not start; nullopt: nothing.
  std::function<std::optional<std::string>(const std::string& serial)> drive_user = {};
  // Sends a Device Self-test to the controller at `path` (Fleet::self_test):
  // start `kind`, or abort when nullopt.
  std::function<std::optional<Error>(const std::string& path, std::optional<SelfTestKind> kind)> self_test = {};
};

// Decodes `request` with the protocol's codec (throws control::DecodeError,
// an std::invalid_argument naming the key, for a malformed one or an
// unknown version), answers it, and returns the encoded reply.
nlohmann::json handle_control(const nlohmann::json& request, ControlContext& ctx);

}  // namespace nvmond
