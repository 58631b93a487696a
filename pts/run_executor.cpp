#include "pts/run_executor.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "runmodel/run_codec.hpp"
#include "pts/run_conditions.hpp"
#include "pts/measured_round.hpp"
#include "pts/run_eta.hpp"
#include "pts/plan_facts.hpp"
#include "pts/results.hpp"
#include "pts/run_header.hpp"
#include "runmodel/run_json.hpp"
#include "pts/slc_detector.hpp"
#include "pts/stored_run.hpp"
#include "pts/write_cache.hpp"

namespace nvmond {

using nlohmann::json;

std::vector<const RoundRecord*> stage_rounds(const std::vector<RoundRecord>& rounds, std::size_t stage) {
  std::vector<const RoundRecord*> out;
  for (const auto& r : rounds) {
    if (r.stage == static_cast<int>(stage)) out.push_back(&r);
  }
  return out;
}

std::vector<std::vector<double>> tracked_series(const Stage& stage, const std::vector<const RoundRecord*>& rounds) {
  std::vector<std::vector<double>> series;
  if (!stage.steady_state) return series;
  for (const TrackedElement& t : stage.steady_state->tracked) {
    std::vector<double>& y = series.emplace_back();
    for (const RoundRecord* r : rounds) {
      if (r->element_index != t.element) continue;
      switch (t.variable) {
        case TrackedVariable::iops: y.push_back(r->iops); break;
        case TrackedVariable::bytes_per_second: y.push_back(r->bytes_per_second); break;
        case TrackedVariable::mean_latency: y.push_back(r->mean_latency()); break;
      }
    }
  }
  return series;
}

std::optional<SteadyStateResult> stage_verdict(const Stage& stage, const std::vector<const RoundRecord*>& rounds) {
  if (!stage.steady_state) return std::nullopt;
  return evaluate_steady_state(tracked_series(stage, rounds), stage.steady_state->rule);
}

SequentialCursor sequential_cursor(const std::vector<RoundRecord>& rounds, std::size_t stage, std::size_t element) {
  for (auto r = rounds.rbegin(); r != rounds.rend(); ++r) {
    if (r->stage == static_cast<int>(stage) && r->element_index == element) return r->sequential_cursor;
  }
  return {};
}

std::vector<std::uint64_t> thread_budgets_left(const Stage& stage, const std::vector<const RoundRecord*>& rounds) {
  if (!stage.byte_budget || stage.elements.size() != 1) return {};
  const Element& e = stage.elements[0];
  if (e.pattern != AccessPattern::sequential || !e.writes() || e.threads < 2) return {};
  const std::uint64_t budget = *stage.byte_budget;
  std::vector<std::uint64_t> left(e.threads, budget / e.threads);
  left[0] += budget % e.threads;
  for (const RoundRecord* r : rounds) {
    if (r->sequential_written.size() != e.threads) return {};
    for (std::size_t i = 0; i < left.size(); ++i) left[i] -= std::min(left[i], r->sequential_written[i]);
  }
  return left;
}

namespace {
// What a run keeps of a committed round in memory: everything that steers
// the rest of the run (rates, counts, cursors, quantiles for progress), not
// its latency distributions. Those are most of a round's size (about 5 KiB
// on a loop device), the store holds them, and finish() reads them back to
// build the run's record: kept, they grew a 10-hour soak's daemon by every
// round it ran.
RoundRecord keep_steering_facts(RoundRecord r) {
  for (auto& o : r.ops) {
    if (o) o->distribution = LatencyDistribution{};
  }
  return r;
}

std::vector<std::pair<double, double>> dominant_latency(const RoundRecord& r) {
  const OpSummary* best = nullptr;
  for (const auto& o : r.ops) {
    if (o && (best == nullptr || o->ops > best->ops)) best = &*o;
  }
  if (best == nullptr || best->ops == 0) return {};
  std::vector<std::pair<double, double>> out{
      {0.5, best->p50}, {0.99, best->p99}, {0.999, best->p999}, {0.9999, best->p9999}};
  // Five nines: the PTS latency test's reported quantile; absent in rounds
  // stored before rounds measured it.
  if (best->p99999) out.emplace_back(0.99999, *best->p99999);
  return out;
}
}  // namespace

RunExecutor::RunExecutor(TestPlan plan, TestTarget& target, RunStore& store, RunOptions options, ProgressFn progress)
    : plan_(std::move(plan)),
      target_(target),
      store_(store),
      options_(std::move(options)),
      progress_(std::move(progress)),
      verdicts_(plan_.stages.size()) {}

void RunExecutor::stop(StopAs as) {
  stop_as_.store(as);
  stop_.store(true);
  target_.stop();
}

std::vector<std::size_t> RunExecutor::points_to_run(std::size_t s, const std::vector<RoundRecord>& rounds) const {
  std::vector<std::size_t> out;
  const Stage& stage = plan_.stages[s];
  if (!stage.points_of) return out;
  const std::size_t sweep = *stage.points_of;
  for (const auto& [name, e] :
       sweep_iops_points(plan_.stages[sweep], sweep, stage_rounds(rounds, sweep), verdicts_[sweep])) {
    out.push_back(e);
  }
  return out;
}

bool RunExecutor::stage_done(std::size_t s, const std::vector<RoundRecord>& rounds) const {
  const Stage& stage = plan_.stages[s];
  const auto mine = stage_rounds(rounds, s);
  // Dedicated histogram rounds: one per point, whatever the elements.
  if (stage.points_of) return mine.size() >= points_to_run(s, rounds).size();
  std::uint64_t written = 0;
  for (const auto* r : mine) written += r->bytes_written;
  const auto per_thread = thread_budgets_left(stage, mine);
  if (!per_thread.empty()) {
    if (std::all_of(per_thread.begin(), per_thread.end(), [](std::uint64_t b) { return b == 0; })) return true;
  } else if (stage.byte_budget && written >= *stage.byte_budget) {
    return true;
  }
  const std::size_t per_round = stage.elements.size();
  if (mine.size() % per_round != 0) return false;
  const std::size_t complete = mine.size() / per_round;
  if (stage.max_rounds > 0 && complete >= static_cast<std::size_t>(stage.max_rounds)) return true;
  if (stage.steady_state && stage.steady_state->stop_when_reached && verdicts_[s] && verdicts_[s]->reached) {
    return true;
  }
  if (stage.slc) {
    std::vector<double> bw;
    for (const auto* r : mine) bw.push_back(r->bytes_per_second);
    if (detect_slc_drop(bw, *stage.slc)) return true;
  }
  return false;
}

std::optional<Error> RunExecutor::open_run(RunHeader& header, std::vector<RoundRecord>& rounds, bool& resumed) {
  auto existing = store_.unfinished_run(options_.name);
  if (!existing) return existing.error();
  const TargetRecord id = target_.identity();
  if (*existing) {
    RunRow& row = **existing;
    // A run of the same test under another profile is another run: closed,
    // not resumed. Runs from before profiles were recorded are PTS-E's.
    const auto left = header_from_blob(row.header);
    const bool same = row.test == plan_.test && row.serial == id.serial &&
                      (!left || left->profile.value_or(PtsProfile::enterprise) == plan_.profile);
    if (options_.resume && same) {
      auto decoded = header_from_blob(row.header);
      if (!decoded) {
        return Error{ErrorReason::store,
                     fmt::format("run {} ({}): unreadable record: {}", row.id, row.name, decoded.error().message)};
      }
      header = std::move(*decoded);
      // A run from before profiles were recorded ran PTS-E's conditions, as
      // its resumed rounds do: from now on its header says so.
      if (!header.profile) header.profile = plan_.profile;
      // A run stored before its plan's facts were kept goes on under this
      // plan, built from its parameters as a report of it would be.
      if (!header.plan) header.plan = plan_record(plan_);
      try {
        auto stored = store_.rounds(row.id);
        if (!stored) return stored.error();
        for (auto& r : rounds_from_rows(*stored)) rounds.push_back(keep_steering_facts(std::move(r)));
      } catch (const json::exception& e) {
        return Error{ErrorReason::store, fmt::format("run {} ({}): unreadable record: {}", row.id, row.name, e.what())};
      }
      for (std::size_t s = 0; s < plan_.stages.size(); ++s) judge(s, rounds);
      if (options_.restore_checkpoint && !row.checkpoint.empty()) {
        if (auto err = target_.restore(row.checkpoint)) return err;
      }
      header.write_cache = apply_write_cache(target_, plan_.write_cache_enabled, header.write_cache);
      add_condition(header, write_cache_condition(tested_write_cache(*header.write_cache), plan_.write_cache_enabled));
      run_id_ = row.id;
      resumed = true;
      ++header.resumed;
      header.resumable = false;
      header.ended_at.reset();
      row.status = RunStatus::running;
      row.ended_ns.reset();
      row.header = header_blob(header);
      if (auto r = store_.update_run(run_id_, row.status, row.ended_ns, row.header); !r) return r.error();
      if (on_open_) on_open_(row, true);
      return std::nullopt;
    }
    if (row.serial == id.serial) restore_left_write_cache(row, target_);
    if (auto err = close_as_interrupted(store_, row, target_.now(), false)) return err;
  }
  const WallTime started = target_.now();
  header = run_header(plan_, id, options_.target, target_.simulated(), started);
  if (auto h = target_.health()) header.smart_before = std::move(*h);
  for (auto& c : parameter_conditions(plan_)) add_condition(header, std::move(c));
  header.write_cache = apply_write_cache(target_, plan_.write_cache_enabled, std::nullopt);
  add_condition(header, write_cache_condition(tested_write_cache(*header.write_cache), plan_.write_cache_enabled));
  RunRow row;
  row.name = options_.name;
  row.test = plan_.test;
  row.target = options_.target;
  row.serial = id.serial;
  row.model = id.model;
  row.started_ns = to_unix_ns(started);
  row.header = header_blob(header);
  row.definition = options_.definition;
  auto created = store_.create_run(row);
  if (!created) return created.error();
  run_id_ = *created;
  row.id = run_id_;
  header.run_id = run_id_;
  if (on_open_) on_open_(row, false);
  if (plan_.purge) {
    auto p = target_.purge();
    if (!p) return p.error();
    header.purge = *p;
    add_condition(header, purge_condition(*p));
  }
  if (auto r = store_.update_run(run_id_, RunStatus::running, std::nullopt, header_blob(header)); !r) return r.error();
  return std::nullopt;
}

RunOutcome RunExecutor::run() {
  if (plan_.destructive) {
    if (auto refusal = target_.check_destructive()) {
      RunOutcome out;
      out.status = RunStatus::failed;
      out.failure = refusal;
      return out;
    }
  }
  if (auto refusal = check_block_sizes(plan_, target_.identity())) {
    RunOutcome out;
    out.status = RunStatus::failed;
    out.failure = refusal;
    return out;
  }
  RunHeader header;
  std::vector<RoundRecord> rounds;
  bool resumed = false;
  if (auto err = open_run(header, rounds, resumed)) {
    // Far enough to have its row (a purge or an update after it failed):
    // closed like any other end, so the store never keeps "running" for a
    // run reported as failed.
    if (run_id_ != 0) {
      if (stop_.load()) return finish(std::nullopt, std::nullopt, header, rounds);
      return finish(RunStatus::failed, err, header, rounds);
    }
    RunOutcome out;
    out.status = RunStatus::failed;
    out.failure = err;
    return out;
  }
  // A run stopped after a round whose element idles afterwards lost that
  // idle (or part of it): the drive idles again before the next round.
  if (resumed && !rounds.empty()) {
    if (auto err = idle_after(rounds.back())) return finish(RunStatus::failed, err, header, rounds);
    if (stop_.load()) return finish(std::nullopt, std::nullopt, header, rounds);
  }
  for (std::size_t s = 0; s < plan_.stages.size(); ++s) {
    const Stage& stage = plan_.stages[s];
    // A pre-write runs only before the rounds of the stage that names it.
    if (stage.phase == Phase::prewrite || stage_done(s, rounds)) continue;
    auto mine = stage_rounds(rounds, s);
    if (mine.empty() && stage.purge_before) {
      auto p = target_.purge();
      if (!p) return finish(RunStatus::failed, p.error(), header, rounds);
      header.purges.push_back({s, *p});
      add_condition(header, purge_condition(*p));
    }
    std::uint64_t written = 0;
    for (const auto* r : mine) written += r->bytes_written;
    std::size_t next = mine.size();
    const std::size_t per_round = stage.elements.size();
    // The max, mid and min points of the sweep before it, once it is over
    // (the same after a resume: they come from its stored rounds).
    const std::vector<std::size_t> points = points_to_run(s, rounds);
    while (!stage_done(s, rounds)) {
      if (stop_.load()) return finish(std::nullopt, std::nullopt, header, rounds);
      const std::size_t e = stage.points_of ? points[next] : next % per_round;
      const std::size_t round = stage.points_of ? 0 : next / per_round;
      // Before each of its rounds, the stage's pre-write: after a resume,
      // what of it that round has not had yet.
      if (stage.prewrite && !stage.points_of && e == 0) {
        if (auto end = run_prewrite(s, round, RunPosition{s, next, written, false, 0}, resumed, header, rounds)) {
          return std::move(*end);
        }
      }
      const Element& element = stage.elements[e];
      std::optional<std::uint64_t> left;
      if (stage.byte_budget) left = *stage.byte_budget - std::min(*stage.byte_budget, written);
      Element budgeted = element;
      budgeted.thread_budgets = thread_budgets_left(stage, stage_rounds(rounds, s));
      if (!budgeted.thread_budgets.empty()) {
        left = std::accumulate(budgeted.thread_budgets.begin(), budgeted.thread_budgets.end(), std::uint64_t{0});
      }
      if (auto end = run_element(s, e, round, budgeted, left, header, rounds)) return std::move(*end);
      written += rounds.back().bytes_written;
      ++next;
      report(RunPosition{s, next, written, stage_done(s, rounds), rounds.back().bytes_per_second}, resumed, rounds);
      if (auto err = idle_after(rounds.back())) return finish(RunStatus::failed, err, header, rounds);
    }
  }
  if (auto h = target_.health()) header.smart_after = std::move(*h);
  return finish(RunStatus::completed, std::nullopt, header, rounds);
}

std::optional<RunOutcome> RunExecutor::run_element(std::size_t s, std::size_t e, std::size_t round,
                                                   const Element& element, std::optional<std::uint64_t> left,
                                                   RunHeader& header, std::vector<RoundRecord>& rounds) {
  const Stage& stage = plan_.stages[s];
  const auto span =
      static_cast<std::uint64_t>(element.range_fraction * static_cast<double>(target_.identity().capacity_bytes));
  const WallTime started = target_.now();
  auto m = target_.run(element, span, left, sequential_cursor(rounds, s, e));
  if (!m) return finish(RunStatus::failed, m.error(), header, rounds);
  if (m->stopped) return finish(std::nullopt, std::nullopt, header, rounds);
  RoundRecord r = make_round(stage.elements[e], *m, started);
  r.index = rounds.size();
  r.stage = static_cast<int>(s);
  r.group = stage.group;
  r.round = round;
  r.element_index = e;
  r.phase = phase_name(stage.phase);
  for (const auto& o : r.ops) {
    if (o && o->ops == 0 && o->errors > 0) {
      return finish(RunStatus::failed,
                    Error{ErrorReason::io, fmt::format("{}: every I/O of {} failed", options_.target, r.label)}, header,
                    rounds);
    }
  }
  auto committed = store_.commit_round(
      run_id_, RoundRow{static_cast<std::int64_t>(r.index), r.phase, r.iops, to_json(r).dump()}, target_.checkpoint());
  if (!committed) {
    // Stopped while the store could not take the round (a store that
    // waits for itself to recover gives up when told to stop): the round
    // is lost as any unfinished one is, and the run ends as stopped.
    if (stop_.load()) return finish(std::nullopt, std::nullopt, header, rounds);
    return finish(RunStatus::failed, committed.error(), header, rounds);
  }
  const bool stalled = left && element.writes() && r.bytes_written == 0;
  rounds.push_back(keep_steering_facts(std::move(r)));
  judge(s, rounds);
  if (stalled) {
    return finish(RunStatus::failed,
                  Error{ErrorReason::io, fmt::format("{}: {} wrote nothing in a whole round; its byte budget "
                                                     "cannot be reached",
                                                     options_.target, rounds.back().label)},
                  header, rounds);
  }
  return std::nullopt;
}

std::optional<RunOutcome> RunExecutor::run_prewrite(std::size_t s, std::size_t round, const RunPosition& at,
                                                    bool resumed, RunHeader& header, std::vector<RoundRecord>& rounds) {
  const std::size_t w = *plan_.stages[s].prewrite;
  const Stage& prewrite = plan_.stages[w];
  std::size_t done = 0;
  for (const RoundRecord* r : stage_rounds(rounds, w)) done += r->round == round ? 1 : 0;
  for (; done < static_cast<std::size_t>(std::max(0, prewrite.max_rounds)); ++done) {
    if (stop_.load()) return finish(std::nullopt, std::nullopt, header, rounds);
    if (auto end = run_element(w, 0, round, prewrite.elements.front(), std::nullopt, header, rounds)) return end;
    RunPosition now = at;
    now.bytes_per_second = rounds.back().bytes_per_second;
    report(now, resumed, rounds);
  }
  return std::nullopt;
}

void RunExecutor::report(const RunPosition& at, bool resumed, const std::vector<RoundRecord>& rounds) const {
  if (!progress_) return;
  const RoundRecord& last = rounds.back();
  RunProgress p{rounds.size(),         last.phase,   last.label, last.round,   last.stage, last.iops,
                last.bytes_per_second, std::nullopt, resumed,    std::nullopt, {},         last.seconds,
                last.temp_max_c};
  p.eta_seconds = run_eta_seconds(plan_, at);
  p.steady = verdicts_[static_cast<std::size_t>(last.stage)];
  p.latency = dominant_latency(last);
  progress_(p);
}

std::optional<Error> RunExecutor::idle_after(const RoundRecord& r) {
  const auto s = static_cast<std::size_t>(r.stage);
  if (s >= plan_.stages.size() || r.element_index >= plan_.stages[s].elements.size()) return std::nullopt;
  const Duration d = plan_.stages[s].elements[r.element_index].idle_after;
  if (d <= Duration::zero() || stop_.load()) return std::nullopt;
  if (auto err = target_.idle(d)) {
    return Error{err->reason, fmt::format("{}: idle after {}: {}", options_.target, r.label, err->message)};
  }
  return std::nullopt;
}

RunOutcome RunExecutor::finish(std::optional<RunStatus> status, std::optional<Error> failure, RunHeader& header,
                               const std::vector<RoundRecord>& rounds) {
  RunOutcome out;
  out.failure = failure;
  out.run_id = run_id_;
  // A paused run stays running in the store and resumes; a suspended one
  // (daemon stopping) is closed as interrupted but resumable, so the next
  // daemon resumes it; an interrupted one is over.
  RunStatus stored = status.value_or(RunStatus::failed);
  out.status = stored;
  if (!status) {
    const StopAs as = stop_as_.load();
    stored = stored_status(as);
    out.status = outcome_status(as);
    if (as == StopAs::suspended) header.resumable = true;
  }
  const WallTime end = target_.now();
  if (failure) header.failure = failure->message;
  const bool over = stored != RunStatus::running;
  if (over) header.ended_at = rfc3339(end);
  // Over or suspended, the drive goes back as the run found it; a paused run
  // keeps the state it is tested in.
  if (over && header.write_cache) restore_write_cache(target_, *header.write_cache, rfc3339(end));
  if (run_id_ != 0) {
    auto r =
        store_.update_run(run_id_, stored, over ? std::optional(to_unix_ns(end)) : std::nullopt, header_blob(header));
    if (!r) {
      // The row keeps what it said (running, or the last update that
      // landed): the outcome must not claim an end the store never saw.
      out.recorded = false;
      if (!out.failure) out.failure = r.error();
    }
  }
  // Without the store's rounds (it cannot be read now) the record is built
  // from those in memory: its windows' quantiles then read as not known,
  // and the store still holds every round for a report built from it.
  const auto full = stored_rounds(rounds.size());
  out.run = make_run(plan_, header, stored, full ? *full : rounds);
  return out;
}

void RunExecutor::judge(std::size_t s, const std::vector<RoundRecord>& rounds) {
  verdicts_[s] = stage_verdict(plan_.stages[s], stage_rounds(rounds, s));
}

std::optional<std::vector<RoundRecord>> RunExecutor::stored_rounds(std::size_t expected) const {
  if (run_id_ == 0 || expected == 0) return std::nullopt;
  auto stored = store_.rounds(run_id_);
  if (!stored || stored->size() != expected) return std::nullopt;
  try {
    return rounds_from_rows(*stored);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

bool left_write_cache_changed(const RunRow& row) {
  auto header = header_from_blob(row.header);
  return header && header->write_cache && write_cache_needs_restore(*header->write_cache);
}

std::optional<std::string> restore_left_write_cache(RunRow& row, TestTarget& target) {
  auto header = header_from_blob(row.header);
  if (!header || !header->write_cache || !write_cache_needs_restore(*header->write_cache)) return std::nullopt;
  restore_write_cache(target, *header->write_cache, rfc3339(target.now()));
  row.header = header_blob(*header);
  return header->write_cache->restore_failure;
}

std::optional<Error> close_as_interrupted(RunStore& store, const RunRow& row, WallTime now, bool resumable) {
  // A header the codec cannot read stays as it is: such a run cannot be
  // resumed or rebuilt anyway, and its row still ends.
  std::string blob = row.header;
  if (auto header = header_from_blob(row.header)) {
    header->ended_at = rfc3339(now);
    if (resumable) header->resumable = true;
    blob = header_blob(*header);
  }
  if (auto r = store.update_run(row.id, RunStatus::interrupted, to_unix_ns(now), blob); !r) return r.error();
  return std::nullopt;
}

}  // namespace nvmond
