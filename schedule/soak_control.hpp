#pragma once
// The boundary between the soak scheduler / control socket and whatever
// executes PTS runs (soak/soak_runner.hpp's SoakRunner; a fake in tests).
// Built on the run store's records: a run is named by its RunIdentity and its
// rounds are the store's RoundRows, so the real runner passes them on as they
// are.
//
// Thread-safety: implementations are called from the daemon's io_context
// thread only, and never block it: nothing here waits on a device, the run
// store or a file. start() returns at once; the target's opening (identify,
// safety check), the plan and the run's row happen on the run's own thread,
// which reports back through `opened` on the caller's thread (a post to the
// loop, as the pollers' workers do). stop/pause/resume/active act on memory
// only. history() and show() read the run store: the daemon calls them off
// the loop (daemon/control/control_commands.hpp, ControlContext::offload).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "runmodel/run_view.hpp"
#include "runmodel/request.hpp"
#include "store/run_store.hpp"

namespace nvmond {

// What to run: a PTS test on a target. Its parameters are validated where
// they were given (a [[soak]] when the configuration loads, nvmonctl start
// when the control socket reads it) and travel typed from there.
struct SoakRequest {
  std::string name;  // the [[soak]] name, or "manual-<UTC time>" for nvmonctl start
  TestRequest test;
  std::string target;
  // A [[soak]]'s run resumes after a daemon restart; an operator's does not
  // (nothing would ask for it again).
  bool resumable = true;
  // A [[soak]]'s fingerprint (SoakEntry::definition()), kept with its run so
  // that a finished `once` soak is known after a restart; empty otherwise.
  std::string definition{};
};

// The newest run of a name, as the scheduler needs it to decide whether a
// `once` soak already ran.
struct LastRun {
  std::int64_t id = 0;
  std::string test, target;
  RunStatus status = RunStatus::running;
  bool resumable = false;  // interrupted by a stopping daemon: the next one resumes it
  std::string definition;  // empty: recorded before definitions were kept, or not a [[soak]]'s
  std::int64_t started_ns = 0;
  std::optional<std::int64_t> ended_ns;
};

struct RunDetail {
  RunView run;
  std::vector<RoundRow> rounds;
  std::optional<std::int64_t> next_round;  // where the next page starts; none after the last
};

// Which rounds a `show` returns: bounded, so that a run of 100,000 rounds
// costs the event loop no more than any other answer.
struct RoundPage {
  static constexpr std::size_t kMaxRounds = 1000;
  std::int64_t from = 0;  // round index
  std::size_t limit = kMaxRounds;
};

// What a start came to: the run's id once its row is written, or why it
// could not begin (the target named). Called exactly once, on the thread
// that called start(); never after the SoakControl has shut down.
using SoakOpened = std::function<void(Result<std::int64_t> run)>;

class SoakControl {
 public:
  virtual ~SoakControl() = default;
  // Begins a run; returns at once, `opened` says later how it went.
  virtual void start(const SoakRequest& request, SoakOpened opened) = 0;
  // Ends a run at its next I/O; it is recorded as interrupted with its
  // finished rounds, and stays resumable.
  virtual Result<std::monostate> stop(std::int64_t run) = 0;
  virtual Result<std::monostate> pause(std::int64_t run) = 0;
  virtual Result<std::monostate> resume(std::int64_t run) = 0;
  // Runs not yet ended (running or paused).
  virtual std::vector<RunView> active() const = 0;
  // Newest first; only runs on `serial` when given.
  virtual Result<std::vector<RunView>> history(const std::optional<std::string>& serial) const = 0;
  virtual Result<RunDetail> show(std::int64_t run, const RoundPage& page = {}) const = 0;
  // The newest run named `name` (none: it never ran). One indexed read of
  // the run store, which a writer holding its lock does not delay (WAL).
  virtual Result<std::optional<LastRun>> last_run(const std::string& name) const = 0;
};

}  // namespace nvmond
