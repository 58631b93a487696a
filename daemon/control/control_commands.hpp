#pragma once
// What each control-socket command does (docs/operations.md): typed
// dispatch from a control protocol request to the soak boundary, the
// scheduler and the published drive summaries, and back to its reply.
//
// Nothing here waits on a device, a database or a file: `start` answers at
// once with the run's ticket (its schedule name, state `opening` or
// `queued`), which nvmonctl follows with `list`; a self-test command goes to
// the drive's poll thread and is answered when that thread posts back;
// `history` and `show` read the run store through `offload`.
//
// Thread-safety: event-loop thread only; every hook answers on it.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device.hpp"
#include "control/protocol.hpp"
#include "core/clock.hpp"
#include "polling/drive_summary.hpp"
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
  // What uses the drive with this serial now ("job fio-1", "run wsat-12"),
  // where a self-test must not start; nullopt: nothing. The daemon answers
  // from its DriveClaims, as the self-test scheduler does.
  std::function<std::optional<std::string>(const std::string& serial)> drive_user = {};
  // Sends a Device Self-test to the controller at `path` (Fleet::self_test):
  // start `kind`, or abort when nullopt; `done` gets the drive's answer
  // later, on the loop.
  std::function<void(const std::string& path, std::optional<SelfTestKind> kind,
                     std::function<void(std::optional<Error>)> done)>
      self_test = {};
  // Runs `work` (a run store read) off the loop and hands its reply to
  // `done` on the loop. Empty: runs it at once (tests).
  std::function<void(std::function<control::AnyReply()> work, std::function<void(control::AnyReply)> done)> offload =
      {};
};

using ControlDone = std::function<void(control::AnyReply reply)>;

// Answers `request` through `done`, now or later (on the loop's thread).
void handle_control(const control::Request& request, ControlContext& ctx, ControlDone done);

// The same where every hook answers at once (tests with synchronous fakes):
// returns the reply; throws std::logic_error when a hook answered later.
control::AnyReply handle_control(const control::Request& request, ControlContext& ctx);

}  // namespace nvmond
