#include "report/run_summary.hpp"

#include <algorithm>
#include <cmath>

#include "report/round_window.hpp"
#include "report/run_charts.hpp"

namespace nvmond::report {

namespace {

struct Mean {
  double sum = 0;
  int n = 0;
  void add(double v) {
    if (std::isfinite(v)) sum += v, ++n;
  }
  double value() const { return n ? sum / n : kAbsent; }
};

void keep_max(double& m, double v) {
  if (std::isfinite(v) && !(m >= v)) m = v;
}

// The element the summary's latency is of: the steady state's (first)
// tracked one, else the only or the last measured element.
std::string latency_element(const RunRecord& run, const std::optional<SteadyStateReport>& ss) {
  if (ss && !tracked_element(*ss).empty()) return tracked_element(*ss);
  if (run.results->elements && !run.results->elements->empty()) return run.results->elements->back().label;
  for (auto r = run.rounds.rbegin(); r != run.rounds.rend(); ++r) {
    if (is_test_round(**r) && has_element(**r)) return (*r)->label;
  }
  return "";
}

}  // namespace

// The summary of the measured rounds a steady state and a measurement
// window name: the run's, or one sub-test's.
RunSummary summarize_over(const RunRecord& run, const std::optional<SteadyStateReport>& ss,
                          const std::optional<RoundWindow>& window) {
  RunSummary s;
  s.bandwidth = tracks_bandwidth(run);
  s.steady = ss && ss->verdict.reached;
  // Latency over the measurement window when there is one, so that FOB
  // rounds do not flatter a drive; else over every test round.
  // A demand-intensity sweep's level is its tracked (highest-load) point:
  // its latency is that point's too, not a mean over loads from T1Q1 up.
  const auto& sweeps = run.results->response_time_histograms;
  const bool sweep = sweeps && !sweeps->empty() && ss && !tracked_element(*ss).empty();
  const std::string element = latency_element(run, ss);
  Mean level, p99, p999;
  bool wrote = false;
  for (const RoundRecord* r : run.rounds) {
    if (!is_test_round(*r)) continue;
    if (window && !in_window(*r, *window)) continue;
    if (sweep && !(has_element(*r) && r->label == tracked_element(*ss))) continue;
    level.add(s.bandwidth ? r->bytes_per_second : r->iops);
    // Runs without `elements` (written before it): that element's rounds.
    if (!(has_element(*r) && r->label == element)) continue;
    const OpSummary* op = primary_op(r->ops);
    wrote = wrote || op_of(r->ops, IoOp::write);
    if (op) p99.add(op->p99), p999.add(op->p999);
  }
  const WindowCheck* w = ss ? window_of(*ss) : nullptr;
  s.level = w && std::isfinite(w->average) ? w->average : level.value();
  s.p99 = p99.value();
  s.p999 = p999.value();
  // The element's own result over the window: its quantiles from the
  // window's summed distributions, the number run.json gives it.
  if (run.results->elements) {
    for (const auto& e : *run.results->elements) {
      if (e.label != element) continue;
      const OpSummary* op = primary_op(e.ops);
      if (!op) break;
      wrote = op_of(e.ops, IoOp::write) != nullptr;
      s.p99 = op->p99;
      s.p999 = op->p999;
      break;
    }
  }
  if (!element.empty() && (std::isfinite(s.p99) || std::isfinite(s.p999))) {
    s.latency_of = element + (wrote ? " write" : " read");
  }

  const DriveResults* drive = run.drive();
  if (drive && drive->temperature_c) keep_max(s.temp_max_c, drive->temperature_c->second);
  for (const auto& p : run.timeline()) keep_max(s.temp_max_c, p.temperature_c.value_or(kAbsent));
  for (const RoundRecord* r : run.rounds) {
    if (r->temp_min_c && r->temp_max_c) keep_max(s.temp_max_c, *r->temp_max_c);
  }

  Mean throttled;
  for (const RoundRecord* r : run.rounds) throttled.add(r->throttled_seconds);
  if (throttled.n > 0) {
    s.throttled_s = throttled.sum;
  } else if (drive) {
    double total = 0;
    for (const auto& e : drive->throttle_events) {
      const double start = run.offset(e.start), end_at = run.offset(e.end);
      const double end = std::isfinite(end_at) ? end_at : run.duration_s;
      if (std::isfinite(start) && std::isfinite(end)) total += std::max(0.0, end - start);
    }
    s.throttled_s = total;
  }
  return s;
}

RunSummary summarize(const RunRecord& run) {
  return summarize_over(run, run.results->steady_state, measured_rounds(run));
}

std::vector<LabelledSummary> summaries(const RunRecord& run) {
  if (run.results->subtests.size() <= 1) return {{"", summarize(run)}};
  std::vector<LabelledSummary> out;
  for (const auto& t : run.results->subtests) {
    out.push_back({t.label, summarize_over(run, t.steady_state, measured_rounds(t.window, t.steady_state))});
  }
  return out;
}

std::string drive_name(const RunRecord& run) {
  const auto& t = run.header.target;
  std::string name = t.model.empty() ? t.path : t.model;
  if (!t.serial.empty()) name += " (" + t.serial + ")";
  return name.empty() ? run.source : name;
}

std::string run_id_text(const RunRecord& run) {
  return run.header.run_id > 0 ? std::to_string(run.header.run_id) : std::string("–");
}

}  // namespace nvmond::report
