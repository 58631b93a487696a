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
std::string latency_element(const RunRecord& run, const std::optional<SteadyState>& ss) {
  if (ss && !ss->element.empty()) return ss->element;
  if (!run.elements.empty()) return run.elements.back().element.label;
  for (auto r = run.rounds.rbegin(); r != run.rounds.rend(); ++r) {
    if (is_test_round(*r) && r->element) return r->element->label;
  }
  return "";
}

}  // namespace

// The summary of the measured rounds a steady state and a measurement
// window name: the run's, or one sub-test's.
RunSummary summarize_over(const RunRecord& run, const std::optional<SteadyState>& ss,
                          const std::optional<RoundWindow>& window) {
  RunSummary s;
  s.bandwidth = tracks_bandwidth(run);
  s.steady = ss && ss->reached;
  // Latency over the measurement window when there is one, so that FOB
  // rounds do not flatter a drive; else over every test round.
  // A demand-intensity sweep's level is its tracked (highest-load) point:
  // its latency is that point's too, not a mean over loads from T1Q1 up.
  const bool sweep = !run.response_time_histograms.empty() && ss && !ss->element.empty();
  const std::string element = latency_element(run, ss);
  Mean level, p99, p999;
  bool wrote = false;
  for (const auto& r : run.rounds) {
    if (!is_test_round(r)) continue;
    if (window && !in_window(run, r, *window)) continue;
    if (sweep && !(r.element && r.element->label == ss->element)) continue;
    level.add(s.bandwidth ? r.bytes_per_second : r.iops);
    // Runs without `elements` (written before it): that element's rounds.
    if (!(r.element && r.element->label == element)) continue;
    const auto& op = r.ops.write ? r.ops.write : r.ops.read;
    wrote = wrote || r.ops.write.has_value();
    if (op) p99.add(op->latency.p99), p999.add(op->latency.p999);
  }
  s.level = ss && std::isfinite(ss->average) ? ss->average : level.value();
  s.p99 = p99.value();
  s.p999 = p999.value();
  // The element's own result over the window: its quantiles from the
  // window's summed distributions, the number run.json gives it.
  for (const auto& e : run.elements) {
    if (e.element.label != element) continue;
    const auto& op = e.ops.write ? e.ops.write : e.ops.read;
    if (!op) break;
    wrote = e.ops.write.has_value();
    s.p99 = op->latency.p99;
    s.p999 = op->latency.p999;
    break;
  }
  if (!element.empty() && (std::isfinite(s.p99) || std::isfinite(s.p999))) {
    s.latency_of = element + (wrote ? " write" : " read");
  }

  if (run.drive && run.drive->temperature_c) keep_max(s.temp_max_c, run.drive->temperature_c->max);
  for (const auto& p : run.timeline) keep_max(s.temp_max_c, p.temperature_c);
  for (const auto& r : run.rounds) {
    if (r.temperature_c) keep_max(s.temp_max_c, r.temperature_c->max);
  }

  Mean throttled;
  for (const auto& r : run.rounds) throttled.add(r.throttled_seconds);
  if (throttled.n > 0) {
    s.throttled_s = throttled.sum;
  } else if (run.drive) {
    double total = 0;
    for (const auto& e : run.drive->throttle_events) {
      const double end = std::isfinite(e.end) ? e.end : run.duration_s;
      if (std::isfinite(e.start) && std::isfinite(end)) total += std::max(0.0, end - e.start);
    }
    s.throttled_s = total;
  }
  return s;
}

RunSummary summarize(const RunRecord& run) { return summarize_over(run, run.steady_state, measured_rounds(run)); }

std::vector<LabelledSummary> summaries(const RunRecord& run) {
  if (run.subtests.size() <= 1) return {{"", summarize(run)}};
  std::vector<LabelledSummary> out;
  for (const auto& t : run.subtests) {
    out.push_back(
        {t.label, summarize_over(run, t.steady_state, measured_rounds(t.measurement_window, t.steady_state))});
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
