#pragma once
// Executes a TestPlan on a TestTarget as one durable run: the run row and
// every finished round are committed to the RunStore before the next round
// starts, so a crash loses at most the round in progress. A run of the same
// name left "running" by a crash is resumed at its next round (after the
// simulated drive is restored to its state after the last committed round),
// or closed as interrupted when resume is off.
//
// Destructive plans are checked with the target's safety check before
// anything touches the store or the device.
//
// Thread-safety: run() on one thread; stop() from any thread ends the element
// in progress at its next I/O and leaves the run resumable.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_store.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/round_record.hpp"
#include "pts/run.hpp"
#include "pts/run_eta.hpp"
#include "pts/steady_state.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"

namespace nvmond {

struct RunOptions {
  std::string name;    // the run's key in the store ([[soak]] name, or a label)
  std::string target;  // as the user gave it
  bool resume = true;  // resume an unfinished run of this name; false: close it as interrupted
  // On resume, put a simulated drive back to its state after the last
  // committed round (a crash lost what came after). Off when the same
  // process resumes a run it paused: the drive went on living meanwhile.
  bool restore_checkpoint = true;
  // The fingerprint of the [[soak]] definition the run starts from, kept in
  // its row (RunRow::definition); empty for other runs.
  std::string definition{};
};

struct RunProgress {
  std::size_t index = 0;  // rounds committed so far (this one included)
  std::string phase;
  std::string label;
  std::size_t round = 0;  // PTS round within its stage
  int stage = 0;
  double iops = 0;
  double bytes_per_second = 0;
  std::optional<double> eta_seconds;  // target time left in the run, when known (pts/run_eta.hpp)
  bool resumed = false;
  // The stage's steady-state evaluation after this round (none when the
  // stage tracks no steady state).
  std::optional<SteadyStateResult> steady;
  // Latency of the round's dominant operation (the one with more I/Os):
  // {quantile, seconds} for p50, p99, p99.9, p99.99.
  std::vector<std::pair<double, double>> latency;
  double seconds = 0;                   // the round's length, target time
  std::optional<double> temperature_c;  // the drive's hottest during the round
};

struct RunOutcome {
  // completed | interrupted | failed, or paused when stop() paused it (the
  // store still says running and the same process resumes it).
  RunStatus status = RunStatus::failed;
  std::optional<Error> failure;
  std::int64_t run_id = 0;
  Run run;  // the run as it ended (none before it had its row in the store)
  // False when the run's end could not be written to the store (it was
  // stopped while the store was unavailable): the store still says running,
  // and the run is resumed or closed from there, not from `status`.
  bool recorded = true;
};

class RunExecutor {
 public:
  using ProgressFn = std::function<void(const RunProgress&)>;
  // Called once the run has its row in the store (created or resumed), before
  // any purge or I/O; with the row as it now stands and whether it resumed.
  using OpenFn = std::function<void(const RunRow& run, bool resumed)>;
  RunExecutor(TestPlan plan, TestTarget& target, RunStore& store, RunOptions options, ProgressFn progress = {});
  RunOutcome run();
  void stop(StopAs as = StopAs::paused);
  void on_open(OpenFn fn) { on_open_ = std::move(fn); }

 private:
  std::optional<Error> open_run(RunHeader& header, std::vector<RoundRecord>& rounds, bool& resumed);
  // Evaluates stage `s`'s steady state over `rounds` into verdicts_: once
  // after each round of it, which stopping, the ETA and progress all read.
  void judge(std::size_t s, const std::vector<RoundRecord>& rounds);
  bool stage_done(std::size_t stage, const std::vector<RoundRecord>& rounds) const;
  // A histogram stage's points (element indices, max, mid, min); empty for any other.
  std::vector<std::size_t> points_to_run(std::size_t stage, const std::vector<RoundRecord>& rounds) const;
  // Runs element `e` of stage `s` once, as its round `round`, and commits it
  // to the store and to `rounds`; the run's outcome when that ends it.
  std::optional<RunOutcome> run_element(std::size_t s, std::size_t e, std::size_t round, const Element& element,
                                        std::optional<std::uint64_t> left, RunHeader& header,
                                        std::vector<RoundRecord>& rounds);
  // Stage `s`'s pre-write before its round `round`: the runs of it that
  // round has not had (all of them, unless a resume comes in between).
  // `at`: where stage `s` stands, for the ETA.
  std::optional<RunOutcome> run_prewrite(std::size_t s, std::size_t round, const RunPosition& at, bool resumed,
                                         RunHeader& header, std::vector<RoundRecord>& rounds);
  // The progress call for the round just committed (the last of `rounds`).
  void report(const RunPosition& at, bool resumed, const std::vector<RoundRecord>& rounds) const;
  // The idle the element of round `r` asks for after it (none: nullopt at once).
  std::optional<Error> idle_after(const RoundRecord& r);
  // The run's rounds as the store holds them, with their latency
  // distributions (`rounds` keeps none: see keep_steering_facts); none when
  // the store cannot give them all back now.
  std::optional<std::vector<RoundRecord>> stored_rounds(std::size_t expected) const;
  // `status` completed or failed, or none when stop() ended the run.
  RunOutcome finish(std::optional<RunStatus> status, std::optional<Error> failure, RunHeader& header,
                    const std::vector<RoundRecord>& rounds);

  TestPlan plan_;
  TestTarget& target_;
  RunStore& store_;
  RunOptions options_;
  ProgressFn progress_;
  OpenFn on_open_;
  std::atomic<bool> stop_{false};
  std::atomic<StopAs> stop_as_{StopAs::paused};
  std::int64_t run_id_ = 0;
  std::vector<std::optional<SteadyStateResult>> verdicts_;  // per stage: see judge()
};

// Rounds of one stage, in order.
std::vector<const RoundRecord*> stage_rounds(const std::vector<RoundRecord>& rounds, std::size_t stage);
// Where element `element` of stage `stage` goes on: the cursor its last
// round stopped at (empty before its first, or in rounds stored without one).
SequentialCursor sequential_cursor(const std::vector<RoundRecord>& rounds, std::size_t stage, std::size_t element);
// A stage whose byte budget one sequential element of several threads
// spends (preconditioning): each thread's share of the budget (split as the
// planner splits a job's bytes) less what that thread wrote in `rounds`, the
// stage's rounds so far. Each thread covers its own part of the range, so a
// fast thread must not spend a slow one's share. Empty for any other stage,
// and once a round does not tell its threads apart (a simulated drive,
// rounds stored before it was kept): the budget is then shared.
std::vector<std::uint64_t> thread_budgets_left(const Stage& stage, const std::vector<const RoundRecord*>& rounds);
// Each tracked variable's value per round of a stage, in the order tracked
// (none when the stage tracks no steady state).
std::vector<std::vector<double>> tracked_series(const Stage& stage, const std::vector<const RoundRecord*>& rounds);
// The stage's steady-state verdict over `rounds`, its rounds so far; none
// when it tracks no steady state.
std::optional<SteadyStateResult> stage_verdict(const Stage& stage, const std::vector<const RoundRecord*>& rounds);

// Closes a run that will not go on (an older run of the same name, one whose
// thread was abandoned, one a crash left running): status interrupted, ended
// now (the end in the header the store keeps for run.json); `resumable`
// marks one the next daemon picks up again under the same id.
// A run a crash left with its drive's write cache changed (its header says
// so): puts the cache back on `target`, which the caller has checked is the
// run's drive, and records the outcome in `row.header` for the caller to
// store (close_as_interrupted does). Returns why it could not, if it could not.
bool left_write_cache_changed(const RunRow& row);
std::optional<std::string> restore_left_write_cache(RunRow& row, TestTarget& target);

std::optional<Error> close_as_interrupted(RunStore& store, const RunRow& row, WallTime now, bool resumable);

}  // namespace nvmond
