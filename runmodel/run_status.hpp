#pragma once
// The states a soak run and a [[soak]] entry pass through, as enums that
// every layer branches on. Each has one text mapping (its table in
// run_status.cpp): the words that appear in the store's status column,
// run.json, control replies and logs. Reading text that names no state is an
// error (reason "decode"), never a default.
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace nvmond {

// How a run stands. The store records running, completed, interrupted and
// failed; paused exists only while the same process holds the run (it is
// still running in the store, and RunOutcome says paused when stop() paused
// it).
enum class RunStatus { running, paused, completed, interrupted, failed };

std::string_view to_text(RunStatus status);
Result<RunStatus> run_status_from_text(std::string_view text);

// How stop() leaves the run in the store.
enum class StopAs {
  paused,       // still running: the same process resumes it
  suspended,    // interrupted but resumable: the daemon is stopping
  interrupted,  // interrupted for good: an operator stopped it
};

// The status a stopped run is recorded with (paused: still running).
RunStatus stored_status(StopAs as);
// The status its outcome reports (paused for a pause, else interrupted).
RunStatus outcome_status(StopAs as);

// Where a [[soak]] (or an operator's request) stands in the scheduler.
enum class ScheduleState { idle, scheduled, queued, waiting_cool, opening, running, paused, failed };

std::string_view to_text(ScheduleState state);
Result<ScheduleState> schedule_state_from_text(std::string_view text);

}  // namespace nvmond
