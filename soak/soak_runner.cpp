#include "soak/soak_runner.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/log.hpp"
#include "soak/patient_run_store.hpp"
#include "runmodel/run_codec.hpp"
#include "pts/params.hpp"
#include "runmodel/round_record.hpp"
#include "pts/plan.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_json.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "schedule/run_name.hpp"

namespace nvmond {

// Shared with the run's thread, which may outlive the runner when its
// device hangs: everything it touches lives here or in State.
struct SoakRunner::Run {
  SoakRequest request;
  TestPlan plan;
  std::unique_ptr<TestTarget> target;
  std::shared_ptr<const void> keep;  // what the target borrows (its safety guard)
  SoakOpened opened;                 // called once, on the owner's thread
  DriveClaim claim;                  // its drive, from opening to the end
  std::thread thread;

  std::mutex mu;  // guards what follows
  std::condition_variable cv;
  RunView view;
  bool registered = false;
  RunExecutor* executor = nullptr;
  PatientRunStore* recorder = nullptr;  // the executor's store, waiting while the run store recovers
  bool pause = false;
  std::optional<StopAs> ending;
  bool done = false;
  bool abandoned = false;  // shutdown gave up on its thread: it reports nothing more
};

struct SoakRunner::State {
  std::shared_ptr<RunStore> store;
  TargetOpener open;
  const Clock* clock = nullptr;          // paces a round's retries; outlives the runner and its threads (the Daemon's)
  DriveClaims* claims = nullptr;         // the Daemon's; none in some tests
  ThroughputSink* throughput = nullptr;  // outlives the runner and its threads (the Daemon's)
  std::string state_dir;
  // Opened once: the files of every run are written relative to it, and a
  // state_dir path swapped for a symlink later leads nowhere else.
  UniqueFd state_dir_fd;
  std::mutex post_mu;  // guards post: shutdown() empties it, and no run reports after
  PostToOwner post;
  bool post_closed = false;
  std::mutex mu;  // guards what follows; taken before a Run's mu
  std::condition_variable ended;
  std::map<std::int64_t, std::shared_ptr<Run>> runs;  // registered, not yet ended
  std::vector<std::shared_ptr<Run>> finished;         // ended, thread to join
};

namespace {

std::int64_t planned_rounds(const TestPlan& plan) {
  std::int64_t total = 0;
  for (const auto& s : plan.stages) {
    if (s.max_rounds <= 0 || (s.steady_state && s.steady_state->stop_when_reached) || s.byte_budget || s.slc) return 0;
    total += static_cast<std::int64_t>(s.max_rounds) * static_cast<std::int64_t>(s.elements.size());
  }
  return total;
}

RunView view_of(const RunRow& row) {
  RunView v;
  static_cast<RunIdentity&>(v) = row;
  v.status = row.status;
  v.round = row.rounds;
  v.started_ns = row.started_ns;
  v.ended_ns = row.ended_ns;
  return v;
}

}  // namespace

// Under run.mu: ends the executor's element at its next I/O, and any wait for
// the store to take a round.
void SoakRunner::stop_executor(Run& run, StopAs as) {
  if (run.executor) run.executor->stop(as);
  if (run.recorder) run.recorder->give_up();
}

// On the run's thread: the store cannot take the round (why), or takes it
// again (nullopt). Logged once per change of reason.
void SoakRunner::held_for_store(Run& run, const std::optional<Error>& why) {
  std::lock_guard lock(run.mu);
  if (run.abandoned) return;
  RunView& v = run.view;
  if (why) {
    const std::string reason(to_text(why->reason));
    if (v.paused_reason != reason) {
      log::warn("soak {}: run {} paused: the run store cannot record round {}: {}; tried again until it can",
                run.request.name, v.id, v.round, why->message);
    }
    v.paused_reason = reason;
    v.paused_detail = fmt::format("the run store cannot record round {} ({}): {}", v.round, reason, why->message);
    v.status = RunStatus::paused;
    return;
  }
  log::info("soak {}: run {}: the run store records again; the run goes on", run.request.name, v.id);
  v.paused_reason.clear();
  v.paused_detail.clear();
  if (!run.pause) v.status = RunStatus::running;
}

namespace {

// Closes a run the executor cannot close itself (its thread is stuck, or it
// is gone with a crashed daemon): its finished rounds stay as they are.
void close_in_store(RunStore& store, std::int64_t id, bool resumable, WallTime now) {
  auto row = store.run(id);
  if (!row || !*row) return;
  if (auto err = close_as_interrupted(store, **row, now, resumable)) log::error("closing run {}: {}", id, err->message);
}

// A run's directory under STATE_DIR/runs. start() checked the name; a run is
// never filed under one that is not a single safe path component.
std::string run_leaf(const std::string& name, std::int64_t id) {
  return run_name_problem(name) ? fmt::format("run-{}", id) : fmt::format("{}-{}", name, id);
}

// STATE_DIR/runs/NAME-RUNID, each step opened by descriptor without following
// a symlink, so nothing planted under runs/ redirects what root writes.
Result<UniqueFd> open_runs(int state_dir_fd, const std::string& state_dir) {
  if (state_dir_fd < 0) return Error{ErrorReason::io, state_dir + ": not open"};
  return open_directory_at(state_dir_fd, "runs", state_dir + "/runs");
}

Result<UniqueFd> open_run_dir(int state_dir_fd, const std::string& state_dir, const std::string& leaf) {
  auto runs = open_runs(state_dir_fd, state_dir);
  if (!runs) return runs.error();
  return open_directory_at(runs->get(), leaf, state_dir + "/runs/" + leaf);
}

bool exists_at(int dir_fd, const std::string& name) {
  struct stat st {};
  return ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Made when a run starts, not when it ends: the run store learns from
// STATE_DIR/runs/ which ids were ever used, so a fresh database (after a
// corrupt one) cannot hand out a running run's id again. A directory a new
// run finds under its name belongs to an older run whose record was lost:
// kept as NAME-ID.old-N, never overwritten.
void claim_run_dir(int state_dir_fd, const std::string& state_dir, const std::string& leaf, bool resumed) {
  const std::string shown = state_dir + "/runs/" + leaf;
  auto runs = open_runs(state_dir_fd, state_dir);
  if (!runs) {
    log::warn("{}", runs.error().message);
    return;
  }
  if (!resumed && exists_at(runs->get(), leaf)) {
    std::string aside;
    for (int n = 1; aside.empty() || exists_at(runs->get(), aside); ++n) aside = fmt::format("{}.old-{}", leaf, n);
    if (::renameat(runs->get(), leaf.c_str(), runs->get(), aside.c_str()) != 0) {
      log::error("{} belongs to an older run and cannot be moved aside: {}", shown, std::strerror(errno));
    } else {
      log::warn("{} belonged to an older run; kept as {}/runs/{}", shown, state_dir, aside);
    }
  }
  if (auto dir = open_directory_at(runs->get(), leaf, shown); !dir) log::warn("{}", dir.error().message);
}

}  // namespace

SoakRunner::SoakRunner(std::shared_ptr<RunStore> store, std::string state_dir, TargetOpener open, const Clock& clock,
                       ThroughputSink* throughput, PostToOwner post, DriveClaims* claims)
    : state_(std::make_shared<State>()), open_(open), clock_(clock) {
  state_->store = std::move(store);
  state_->open = std::move(open);
  state_->clock = &clock;
  state_->claims = claims;
  state_->post = std::move(post);
  state_->throughput = throughput;
  state_->state_dir = std::move(state_dir);
  state_->state_dir_fd = UniqueFd(::open(state_->state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state_->state_dir_fd.valid()) {
    log::error("state_dir {}: {}; finished runs will have no run.json or report.html there", state_->state_dir,
               std::strerror(errno));
  }
}

SoakRunner::~SoakRunner() { shutdown(kShutdownGrace); }

void SoakRunner::start(const SoakRequest& request, SoakOpened opened) {
  reap();
  // Every source of names is checked before (config, scheduler); this is the
  // one door they all pass, so a bad name never reaches a path or a log line.
  if (auto problem = run_name_problem(request.name)) {
    opened(Error{ErrorReason::name, "run name " + *problem});
    return;
  }
  auto run = std::make_shared<Run>();
  run->request = request;
  run->opened = std::move(opened);
  {
    std::lock_guard lock(state_->mu);
    state_->finished.push_back(run);  // joined once it is done; a run that never opened ends there
  }
  run->thread = std::thread([state = state_, run] { execute(state, run); });
}

void SoakRunner::report_opened(State& state, Run& run, Result<std::int64_t> result) {
  SoakOpened opened = std::move(run.opened);
  run.opened = nullptr;
  if (!opened) return;
  std::lock_guard lock(state.post_mu);
  if (state.post_closed) return;  // shut down: nobody is listening
  if (!state.post) {
    opened(std::move(result));
    return;
  }
  state.post([opened = std::move(opened), result = std::move(result)]() mutable { opened(std::move(result)); });
}

// Everything a start does before its first I/O that may wait: the target's
// opening (a device's identify and safety check), the drive's claim, the
// store's record of an older run of the same name, the plan.
std::optional<Error> SoakRunner::open_run(State& state, Run& run) {
  const SoakRequest& request = run.request;
  auto opened = state.open(request.target);
  if (!opened) return Error{opened.error().reason, fmt::format("{}: {}", request.target, opened.error().message)};
  run.target = std::move(opened->target);
  run.keep = std::move(opened->keep);
  const TargetRecord id = run.target->identity();
  if (state.claims != nullptr && !id.serial.empty()) {
    auto claim = state.claims->claim(id.serial, DriveUse{DriveUse::Kind::run, request.name, state.clock->wall()});
    if (!claim) return Error{claim.error().reason, fmt::format("{}: {}", request.target, claim.error().message)};
    run.claim = std::move(*claim);
  }
  put_back_replaced_write_cache(state, state.open, request.name, id.serial);
  try {
    run.plan = build_plan(request.test, TargetFacts{id.capacity_bytes, id.rated_dwpd.value_or(0.0)});
  } catch (const ParamError& e) {
    return Error{ErrorReason::params, fmt::format("{} on {}: {}", request.test.test, request.target, e.what())};
  }
  std::lock_guard lock(run.mu);
  if (run.ending) return Error{ErrorReason::stopped, fmt::format("{}: the daemon is stopping", request.target)};
  return std::nullopt;
}

// The run's thread: executes the plan, again after each pause, until it ends.
void SoakRunner::execute(const std::shared_ptr<State>& state, const std::shared_ptr<Run>& run) {
  if (auto failure = open_run(*state, *run)) {
    report_opened(*state, *run, *failure);
    run->claim.release();
    std::lock_guard lock(run->mu);
    run->done = true;
    return;
  }
  bool first = true;
  for (;;) {
    RunOptions options{run->request.name, run->request.target, first ? run->request.resumable : true, first,
                       run->request.definition};
    // Patient once the run is open: until then a failure fails the start,
    // which the scheduler retries, and start() is not kept waiting.
    PatientRunStore recorder(
        *state->store, *state->clock, [&run](const std::optional<Error>& why) { held_for_store(*run, why); }, !first);
    RunExecutor ex(run->plan, *run->target, recorder, options, [&run, &state](const RunProgress& p) {
      std::lock_guard lock(run->mu);
      if (run->abandoned) return;
      // One sample per committed round; each element (block size, mix) is a
      // workload of its own, so a change of element is no throughput drop.
      if (state->throughput != nullptr) {
        state->throughput->report({.serial = run->view.serial,
                                   .workload = "soak:" + run->request.name + ":" + p.label,
                                   .interval_end = run->target->now(),
                                   .interval = from_seconds(p.seconds),
                                   .bytes_per_second = p.bytes_per_second,
                                   .fixed = true});
      }
      RunView& v = run->view;
      v.round = static_cast<std::int64_t>(p.index);
      v.phase = p.phase;
      v.iops = p.iops;
      v.bytes_per_second = p.bytes_per_second;
      v.eta = p.eta_seconds ? std::optional(from_seconds(*p.eta_seconds)) : std::nullopt;
      if (p.steady) {
        v.steady = p.steady->reached;
        if (p.steady->window) {
          v.window_average = p.steady->window->average;
          v.window_range = p.steady->window->range;
          v.window_excursion = p.steady->window->slope_excursion;
        }
      }
      v.round_latency = p.latency;
    });
    if (first) {
      // Until now nothing has shown the run: its view starts from its row.
      ex.on_open([&](const RunRow& row, bool resumed) {
        RunView view = view_of(row);
        view.rounds_total = planned_rounds(run->plan);
        {
          std::lock_guard lock(state->mu);
          std::lock_guard run_lock(run->mu);
          run->view = std::move(view);
          run->registered = true;
          state->runs[row.id] = run;
        }
        claim_run_dir(state->state_dir_fd.get(), state->state_dir, run_leaf(run->request.name, row.id), resumed);
        run->claim.rename(DriveUse{DriveUse::Kind::run, run_leaf(run->request.name, row.id), state->clock->wall()});
        log::info("soak {}: {} on {} {} as run {}", run->request.name, run->request.test.test, run->request.target,
                  resumed ? fmt::format("resumed at round {}", row.rounds) : std::string("started"), row.id);
        report_opened(*state, *run, row.id);
        recorder.be_patient();
      });
    }
    {
      std::lock_guard lock(run->mu);
      run->executor = &ex;
      run->recorder = &recorder;
      if (run->ending) ex.stop(*run->ending);
      else if (run->pause) ex.stop(StopAs::paused);
    }
    RunOutcome out = ex.run();
    bool registered;
    {
      std::lock_guard lock(run->mu);
      run->executor = nullptr;
      run->recorder = nullptr;
      registered = run->registered;
      run->view.paused_reason.clear();  // whatever held it, this pass is over
      run->view.paused_detail.clear();
    }
    if (!registered) {
      report_opened(*state, *run,
                    out.failure ? *out.failure : Error{ErrorReason::ended, "the run ended before it opened"});
      run->claim.release();
      std::lock_guard lock(run->mu);
      run->done = true;
      return;
    }
    first = false;
    if (out.status == RunStatus::paused) {  // wait, then redo the abandoned round
      std::unique_lock lock(run->mu);
      run->view.status = RunStatus::paused;
      run->cv.wait(lock, [&] { return !run->pause || run->ending; });
      run->view.status = RunStatus::running;
      run->target->restart();
      continue;
    }
    run->claim.release();  // its I/O has ended
    finish(*state, *run, out);
    return;
  }
}

namespace {

// run.json and, beside it, the report of the same typed run.
std::optional<Error> write_run_files(int dir_fd, const std::string& shown, const nvmond::Run& run) {
  const std::string text = run_json(run).dump(2) + "\n";
  if (auto e = write_file_atomically_at(dir_fd, "run.json", text, shown)) return e;
  const report::RunRecord record = report::record_of(run, shown + "/run.json");
  return write_file_atomically_at(dir_fd, "report.html", report::render_run_report(record, test_bases()), shown);
}

}  // namespace

// Writes run.json and report.html where an operator finds them, and moves
// the run to the finished list.
void SoakRunner::finish(State& state, Run& run, const RunOutcome& out) {
  const std::string& name = run.request.name;
  if (!out.recorded) {
    // Never "failed" for a run the store still holds as running.
    log::warn(
        "soak {}: run {} ended ({}) while the run store could not record it: {}; the store still holds it as "
        "running, so the next daemon resumes it (or closes it as interrupted)",
        name, out.run_id, to_text(out.status), out.failure ? out.failure->message : "");
  } else if (out.failure) {
    log::error("soak {}: {}: {}", name, to_text(out.status), out.failure->message);
  }
  const std::string leaf = run_leaf(name, out.run_id);
  const std::string shown = state.state_dir + "/runs/" + leaf;
  auto dir = open_run_dir(state.state_dir_fd.get(), state.state_dir, leaf);
  if (!dir) {
    log::error("soak {}: {}", name, dir.error().message);
  } else if (auto e = write_run_files(dir->get(), shown, out.run)) {
    log::error("soak {}: {}", name, e->message);
  }
  const auto rounds =
      std::count_if(out.run.rounds.begin(), out.run.rounds.end(), [](const RoundRecord& r) { return r.group == 0; });
  log::info("soak {}: {} ({} rounds), {}/run.json", name, to_text(out.status), rounds, shown);
  std::shared_ptr<Run> self;
  {
    std::lock_guard lock(state.mu);
    if (auto it = state.runs.find(out.run_id); it != state.runs.end()) {
      self = it->second;
      state.runs.erase(it);
      state.finished.push_back(self);
    }
    std::lock_guard run_lock(run.mu);
    run.view.status = out.status;
    run.done = true;
  }
  state.ended.notify_all();
}

void SoakRunner::reap() {
  std::vector<std::shared_ptr<Run>> done;
  {
    std::lock_guard lock(state_->mu);
    std::erase_if(state_->finished, [&](const std::shared_ptr<Run>& r) {
      std::lock_guard run_lock(r->mu);
      if (!r->done) return false;
      done.push_back(r);
      return true;
    });
  }
  for (auto& r : done) {
    if (r->thread.joinable()) r->thread.join();
  }
}

std::shared_ptr<SoakRunner::Run> SoakRunner::find(State& state, std::int64_t id) {
  std::lock_guard lock(state.mu);
  auto it = state.runs.find(id);
  return it == state.runs.end() ? nullptr : it->second;
}

namespace {
Error not_running(std::int64_t id) { return Error{ErrorReason::absent, fmt::format("run {} is not in progress", id)}; }
}  // namespace

Result<std::monostate> SoakRunner::stop(std::int64_t id) {
  auto run = find(id);
  if (!run) return not_running(id);
  std::lock_guard lock(run->mu);
  run->ending = StopAs::interrupted;
  stop_executor(*run, StopAs::interrupted);
  run->cv.notify_all();
  return std::monostate{};
}

Result<std::monostate> SoakRunner::pause(std::int64_t id) {
  auto run = find(id);
  if (!run) return not_running(id);
  std::lock_guard lock(run->mu);
  if (run->ending) return Error{ErrorReason::ending, fmt::format("run {} is ending", id)};
  run->pause = true;
  run->view.status = RunStatus::paused;
  stop_executor(*run, StopAs::paused);
  return std::monostate{};
}

Result<std::monostate> SoakRunner::resume(std::int64_t id) {
  auto run = find(id);
  if (!run) return not_running(id);
  std::lock_guard lock(run->mu);
  if (!run->pause) return Error{ErrorReason::not_paused, fmt::format("run {} is not paused", id)};
  run->pause = false;
  run->cv.notify_all();
  return std::monostate{};
}

std::vector<RunView> SoakRunner::active() const {
  std::vector<RunView> out;
  std::lock_guard lock(state_->mu);
  for (const auto& [_, run] : state_->runs) {
    std::lock_guard run_lock(run->mu);
    out.push_back(run->view);
  }
  return out;
}

Result<std::vector<RunView>> SoakRunner::history(const std::optional<std::string>& serial) const {
  auto rows = state_->store->runs(serial, 200);
  if (!rows) return rows.error();
  std::vector<RunView> out;
  for (const auto& row : *rows) {
    auto live = find(row.id);
    if (live) {
      std::lock_guard lock(live->mu);
      out.push_back(live->view);
    } else {
      out.push_back(view_of(row));
    }
  }
  return out;
}

Result<RunDetail> SoakRunner::show(std::int64_t id, const RoundPage& page) const {
  auto row = state_->store->run(id);
  if (!row) return row.error();
  if (!*row) return Error{ErrorReason::absent, fmt::format("no run {}", id)};
  // One more than asked: whether another page follows.
  auto rounds = state_->store->rounds_page(id, page.from, page.limit + 1);
  if (!rounds) return rounds.error();
  RunDetail d;
  d.run = view_of(**row);
  if (auto live = find(id)) {
    std::lock_guard lock(live->mu);
    d.run = live->view;
  }
  d.rounds = std::move(*rounds);
  if (d.rounds.size() > page.limit) {
    d.next_round = d.rounds[page.limit].index;
    d.rounds.resize(page.limit);
  }
  return d;
}

Result<std::optional<LastRun>> SoakRunner::last_run(const std::string& name) const {
  auto row = state_->store->latest_run(name);
  if (!row) return row.error();
  if (!*row) return std::optional<LastRun>{};
  const RunRow& r = **row;
  auto header = header_from_blob(r.header);
  return std::optional<LastRun>{
      LastRun{r.id, r.test, r.target, r.status, header && header->resumable, r.definition, r.started_ns, r.ended_ns}};
}

void SoakRunner::close_orphans(const std::set<std::string>& soak_names) {
  auto rows = state_->store->runs(std::nullopt, 1000);
  if (!rows) {
    log::error("soaks: {}", rows.error().message);
    return;
  }
  for (const auto& row : *rows) {
    if (row.status != RunStatus::running || soak_names.contains(row.name) || find(row.id)) continue;
    log::info("run {} ({} on {}) was left running by a crash and no [[soak]] resumes it: closed as interrupted", row.id,
              row.test, row.target);
    if (left_write_cache_changed(row)) put_back_write_cache(*state_, open_, row);
    close_in_store(*state_->store, row.id, false, clock_.wall());
  }
}

void SoakRunner::put_back_write_cache(State& state, const TargetOpener& open, RunRow row) {
  auto opened = open(row.target);
  if (!opened) {
    log::warn("run {}: its drive's write cache was left changed and cannot be put back: {}", row.id,
              opened.error().message);
    return;
  }
  // The path may name another drive by now: only the run's own is touched.
  if (opened->target->identity().serial != row.serial) {
    log::warn("run {}: {} is no longer drive {}: its write cache is left as it is", row.id, row.target, row.serial);
    return;
  }
  if (auto failure = restore_left_write_cache(row, *opened->target)) {
    log::warn("run {}: drive {}: {}", row.id, row.serial, *failure);
  } else {
    log::info("run {}: put the write cache of {} back as the run found it", row.id, row.serial);
  }
  if (auto r = state.store->update_run(row.id, row.status, row.ended_ns, row.header); !r) {
    log::error("run {}: {}", row.id, r.error().message);
  }
}

void SoakRunner::put_back_replaced_write_cache(State& state, const TargetOpener& open, const std::string& name,
                                               const std::string& serial) {
  auto existing = state.store->unfinished_run(name);
  if (!existing || !*existing) return;
  const RunRow& row = **existing;
  if (row.serial == serial || find(state, row.id) || !left_write_cache_changed(row)) return;
  put_back_write_cache(state, open, row);
}

bool SoakRunner::wait_idle(Duration timeout) {
  bool idle;
  {
    std::unique_lock lock(state_->mu);
    idle = state_->ended.wait_for(lock, timeout, [&] { return state_->runs.empty(); });
  }
  reap();
  return idle;
}

void SoakRunner::shutdown(Duration grace) {
  {
    // The owner's loop stops with it: a run still opening reports nothing.
    std::lock_guard lock(state_->post_mu);
    state_->post_closed = true;
    state_->post = nullptr;
  }
  std::vector<std::shared_ptr<Run>> runs;
  {
    std::lock_guard lock(state_->mu);
    for (const auto& [_, run] : state_->runs) runs.push_back(run);
    for (const auto& run : state_->finished) {
      std::lock_guard run_lock(run->mu);
      // Still opening: it ends there (or at once, if its row is written meanwhile).
      if (!run->registered && !run->ending) {
        run->ending = run->request.resumable ? StopAs::suspended : StopAs::interrupted;
      }
    }
  }
  for (const auto& run : runs) {
    std::lock_guard lock(run->mu);
    const StopAs as = run->request.resumable ? StopAs::suspended : StopAs::interrupted;
    if (!run->ending) run->ending = as;
    stop_executor(*run, *run->ending);
    run->cv.notify_all();
  }
  {
    std::unique_lock lock(state_->mu);
    state_->ended.wait_for(lock, grace, [&] { return state_->runs.empty(); });
    runs.clear();
    for (const auto& [_, run] : state_->runs) runs.push_back(run);
    state_->runs.clear();
  }
  // Stuck in I/O on a hung device: closed from here, the thread abandoned
  // with what it holds (the State and its Run keep each other alive).
  for (const auto& run : runs) {
    std::int64_t id;
    bool resumable;
    {
      std::lock_guard lock(run->mu);
      id = run->view.id;
      resumable = *run->ending == StopAs::suspended;
      run->abandoned = true;
    }
    log::warn(
        "soak {}: run {} did not stop within {:.1f} s (device hung?); closed as interrupted, its finished "
        "rounds kept",
        run->request.name, id, seconds(grace));
    close_in_store(*state_->store, id, resumable, clock_.wall());
    if (run->thread.joinable()) run->thread.detach();
  }
  reap();
  std::lock_guard lock(state_->mu);
  for (auto& r : state_->finished) {
    if (r->thread.joinable()) r->thread.detach();  // still opening (its target or the store does not answer)
  }
  state_->finished.clear();
}

}  // namespace nvmond
