#pragma once
// The daemon's PTS runs: the SoakControl behind the scheduler and the
// control socket. Each run executes on its own thread (the scheduler allows
// one per drive), commits every round to the run store, and on its end
// writes STATE_DIR/runs/NAME-RUNID/{run.json,report.html}: STATE_DIR is opened
// once, when the runner is made, and each step below it is opened by
// descriptor without following a symlink; NAME is checked at start()
// (schedule/run_name.hpp).
//
// - stop(): the run ends at its next I/O, closed as interrupted with its
//   finished rounds; it is not resumed.
// - pause(): the round in progress is abandoned at its next I/O and redone
//   on resume(); the run stays "running" in the store meanwhile.
// - shutdown(): every run ends at its next I/O. A [[soak]]'s run is closed
//   as interrupted but resumable, so the next daemon resumes it at its next
//   round (as it does after kill -9, when the run is still "running"). A run
//   whose thread is stuck in I/O on a hung device past the grace period (5 s) is
//   closed in the store from here and its thread abandoned: the daemon
//   still exits within systemd's stop timeout.
// - A round the run store cannot record for a reason that heals (locked,
//   full, read-only, I/O) is kept and tried again with backoff in the
//   daemon's Clock time (soak/patient_run_store.hpp): the run shows as
//   paused with the reason (RunView::paused_reason) and goes on, without
//   losing or repeating a round, once the store takes it. A run fails only
//   for a reason that does not heal; a run stopped while its end cannot be
//   recorded is logged as such, never as failed, and the store's "running"
//   lets the next daemon resume or close it.
//
// - start(): returns at once. The run's own thread opens the target (a
//   device's identify and safety check), claims its drive (DriveClaims:
//   refused while a self-test or another run holds it), builds the plan and
//   writes the run's row, then reports the id or the refusal through `post`
//   on the loop: a hung drive or a locked runs.db holds only that run.
//
// Thread-safety: the SoakControl methods and shutdown() on one thread (the
// daemon's io_context); runs report progress from their own threads.
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "core/clock.hpp"
#include "core/throughput_feed.hpp"
#include "store/run_store.hpp"
#include "pts/run_executor.hpp"
#include "pts/target.hpp"
#include "schedule/drive_claims.hpp"
#include "schedule/soak_control.hpp"

namespace nvmond {

// A target and what it borrows (a device target keeps a reference to the
// safety guard that approved it; a reload replaces the daemon's guard).
struct OpenedTarget {
  std::unique_ptr<TestTarget> target;
  std::shared_ptr<const void> keep;
};
// Opens a [[soak]]/`nvmonctl start` target (services/targets.hpp, with the
// daemon's current drives and safety settings). Called on a run's own thread
// (it may wait on the device), so it reads no state the loop changes.
using TargetOpener = std::function<Result<OpenedTarget>(const std::string& target)>;
// Runs a closure on the thread that owns the runner (the daemon's loop:
// boost::asio::post). Empty: on the calling thread.
using PostToOwner = std::function<void(std::function<void()>)>;

class SoakRunner final : public SoakControl {
 public:
  // `clock`: the daemon's, which stamps a run closed from outside its thread
  // (an orphan, a run stuck on a hung device); it outlives the runner.
  // `throughput`: where each finished round's throughput goes, for the
  // drive's analytics to infer throttling from (none: nowhere).
  // `post`: how a run's thread reports its start to the owner's thread.
  // `claims`: who else uses each drive (none: no one is asked).
  SoakRunner(std::shared_ptr<RunStore> store, std::string state_dir, TargetOpener open, const Clock& clock,
             ThroughputSink* throughput = nullptr, PostToOwner post = {}, DriveClaims* claims = nullptr);
  ~SoakRunner() override;  // shutdown(kShutdownGrace)

  // Well inside the unit's TimeoutStopSec=10s, with the rest of the stop.
  static constexpr Duration kShutdownGrace = std::chrono::seconds(5);

  void start(const SoakRequest& request, SoakOpened opened) override;
  Result<std::monostate> stop(std::int64_t run) override;
  Result<std::monostate> pause(std::int64_t run) override;
  Result<std::monostate> resume(std::int64_t run) override;
  std::vector<RunView> active() const override;
  Result<std::vector<RunView>> history(const std::optional<std::string>& serial) const override;
  Result<RunDetail> show(std::int64_t run, const RoundPage& page = {}) const override;
  Result<std::optional<LastRun>> last_run(const std::string& name) const override;

  // Runs a crash left "running" whose name no [[soak]] has any more are
  // closed as interrupted: nothing would resume them.
  void close_orphans(const std::set<std::string>& soak_names);
  // Waits at most `timeout` of real time until no run is in progress; true
  // when none is.
  bool wait_idle(Duration timeout);
  // Ends every run (see the header comment); waits at most `grace` of real
  // time for their threads.
  void shutdown(Duration grace);

 private:
  struct Run;
  struct State;
  // An orphan that left its drive's write cache changed: put it back.
  static void put_back_write_cache(State& state, const TargetOpener& open, RunRow row);
  // The unfinished run a new one of the same name will close, when it ran
  // on another drive and left that drive's write cache changed: the new
  // run's executor holds only its own drive, so the cache is put back here.
  static void put_back_replaced_write_cache(State& state, const TargetOpener& open, const std::string& name,
                                            const std::string& serial);
  static void stop_executor(Run& run, StopAs as);
  static void held_for_store(Run& run, const std::optional<Error>& why);
  static void execute(const std::shared_ptr<State>& state, const std::shared_ptr<Run>& run);
  // The run's thread, before the executor: target, drive claim, plan.
  static std::optional<Error> open_run(State& state, Run& run);
  // Tells the owner how the start went (once), through State::post.
  static void report_opened(State& state, Run& run, Result<std::int64_t> result);
  static void finish(State& state, Run& run, const RunOutcome& out);
  void reap();  // joins the threads of ended runs
  static std::shared_ptr<Run> find(State& state, std::int64_t id);
  std::shared_ptr<Run> find(std::int64_t id) const { return find(*state_, id); }

  std::shared_ptr<State> state_;
  TargetOpener open_;
  const Clock& clock_;
};

}  // namespace nvmond
