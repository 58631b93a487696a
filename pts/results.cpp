#include "pts/results.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "collectors/health.hpp"
#include "core/clock.hpp"
#include "pts/latency_distribution.hpp"
#include "pts/run_executor.hpp"
#include "pts/slc_detector.hpp"

namespace nvmond {

namespace {

// Every stage's steady-state verdict over its rounds, judged once here and
// read by every result that depends on it.
using Verdicts = std::vector<std::optional<SteadyStateResult>>;

SteadyStateReport steady_state_report(const Stage& stage, std::size_t stage_index,
                                      const std::vector<const RoundRecord*>& rounds, const SteadyStateResult& verdict) {
  const SteadyStateTracking& tracking = *stage.steady_state;
  SteadyStateReport out;
  out.stage = stage_index;
  out.rule = tracking.rule;
  const auto y = tracked_series(stage, rounds);
  out.rounds_evaluated = y.empty() ? 0 : y.front().size();
  out.verdict = verdict;
  for (const TrackedElement& t : tracking.tracked) out.tracked.push_back({t.variable, stage.elements[t.element].label});
  return out;
}

// One element's rounds in the measurement window, summed: rates averaged
// over its rounds, latency over the window's I/Os.
struct ElementWindow {
  double iops = 0, bytes_per_second = 0;
  int rounds = 0;
  std::optional<OpSummary> ops[kIoOpCount];
};

ElementWindow element_window(const MeasurementWindow& w, const std::vector<const RoundRecord*>& rounds, std::size_t e) {
  ElementWindow out;
  double secs = 0;
  std::vector<const OpSummary*> per_op[kIoOpCount];
  for (const RoundRecord* r : rounds) {
    if (r->element_index != e || r->round < w.first || r->round > w.last) continue;
    out.iops += r->iops;
    out.bytes_per_second += r->bytes_per_second;
    secs += r->seconds;
    ++out.rounds;
    for (int op = 0; op < kIoOpCount; ++op) {
      if (r->ops[op]) per_op[op].push_back(&*r->ops[op]);
    }
  }
  if (out.rounds == 0) return out;
  out.iops /= out.rounds;
  out.bytes_per_second /= out.rounds;
  for (int op = 0; op < kIoOpCount; ++op) {
    if (!per_op[op].empty()) out.ops[op] = window_summary(per_op[op], secs);
  }
  return out;
}

std::vector<ElementResult> element_results(const Stage& stage, const MeasurementWindow& w,
                                           const std::vector<const RoundRecord*>& rounds) {
  std::vector<ElementResult> out;
  for (std::size_t e = 0; e < stage.elements.size(); ++e) {
    const ElementWindow ew = element_window(w, rounds, e);
    if (ew.rounds == 0) continue;
    const Element& el = stage.elements[e];
    ElementResult r;
    r.label = el.label;
    r.bs = el.block_sizes[0].bytes;
    r.read_pct = el.read_pct;
    r.threads = el.threads;
    r.queue_depth = el.queue_depth;
    r.iops = ew.iops;
    r.bytes_per_second = ew.bytes_per_second;
    r.rounds_averaged = ew.rounds;
    for (int op = 0; op < kIoOpCount; ++op) r.ops[op] = ew.ops[op];
    out.push_back(std::move(r));
  }
  return out;
}

// The sweep's points with the highest, middle and lowest IOPS over the
// window, in that order, among those measured in it (`measured`). The
// middle one is the point whose IOPS lies nearest halfway between the other
// two (the first such in the sweep's order); with fewer than three points
// some coincide.
std::vector<std::pair<const char*, std::size_t>> iops_points(const std::vector<double>& iops,
                                                             const std::vector<std::size_t>& measured) {
  std::size_t hi = measured.front(), lo = measured.front();
  for (std::size_t i : measured) {
    if (iops[i] > iops[hi]) hi = i;
    if (iops[i] < iops[lo]) lo = i;
  }
  const double half = (iops[hi] + iops[lo]) / 2;
  std::size_t mid = measured.front();
  for (std::size_t i : measured) {
    if (std::fabs(iops[i] - half) < std::fabs(iops[mid] - half)) mid = i;
  }
  return {{"max", hi}, {"mid", mid}, {"min", lo}};
}

// The run's I/Os (both ops, every round) at or over `threshold_s`, from the
// rounds' histograms: at least those in buckets wholly above it, at most
// those in buckets that reach above it (equal when it is a bucket bound).
std::pair<std::uint64_t, std::uint64_t> ios_at_or_over(const std::vector<RoundRecord>& rounds, double threshold_s) {
  const auto& bounds = histogram_bounds();
  std::uint64_t at_least = 0, at_most = 0;
  for (const auto& r : rounds) {
    for (std::size_t i = 0; i < r.histogram.size(); ++i) {
      // Bucket i holds (bounds[i - 1], bounds[i]]; the last one everything above.
      const double lower = i == 0 ? 0.0 : bounds[i - 1];
      const double upper = i < bounds.size() ? bounds[i] : std::numeric_limits<double>::infinity();
      if (lower >= threshold_s * (1 - 1e-9)) at_least += r.histogram[i];
      if (upper > threshold_s * (1 + 1e-9)) at_most += r.histogram[i];
    }
  }
  return {at_least, at_most};
}

std::vector<double> histogram_bounds_ns() {
  std::vector<double> bounds_ns;
  for (double b : histogram_bounds()) bounds_ns.push_back(b * 1e9);
  return bounds_ns;
}

PointOpHistogram point_op(const OpSummary& s, const LatencyDistribution& sum) {
  return {s.ops, s.iops, s.mean, s.max, counts_within(sum, histogram_bounds_ns())};
}

// Response-time histograms of a demand-intensity sweep (PTS CBW): at its
// max, mid and min IOPS points, each op's latency over the window's rounds
// of that point.
std::vector<PointHistogram> iops_point_histograms(const Stage& stage, const MeasurementWindow& w,
                                                  const std::vector<const RoundRecord*>& rounds) {
  std::vector<double> iops;
  std::vector<std::size_t> measured;
  std::vector<ElementWindow> windows;
  for (std::size_t e = 0; e < stage.elements.size(); ++e) {
    windows.push_back(element_window(w, rounds, e));
    iops.push_back(windows.back().iops);
    if (windows.back().rounds > 0) measured.push_back(e);
  }
  std::vector<PointHistogram> out;
  if (measured.empty()) return out;
  for (const auto& [name, e] : iops_points(iops, measured)) {
    const Element& el = stage.elements[e];
    PointHistogram h{name, el.label,       el.threads,  el.queue_depth, windows[e].iops, histogram_bounds(),
                     {},   "sweep window", std::nullopt};
    for (int op = 0; op < kIoOpCount; ++op) {
      if (!windows[e].ops[op]) continue;
      LatencyDistribution sum;
      for (const RoundRecord* r : rounds) {
        if (r->element_index == e && r->round >= w.first && r->round <= w.last && r->ops[op]) {
          add_to(sum, r->ops[op]->distribution);
        }
      }
      h.ops[op] = point_op(*windows[e].ops[op], sum);
    }
    out.push_back(std::move(h));
  }
  return out;
}

// The same from the dedicated histogram rounds (a stage with `points_of`):
// each round is one point's, in the order max, mid, min.
std::vector<PointHistogram> dedicated_histograms(const Stage& stage, const std::vector<const RoundRecord*>& rounds) {
  static const char* const kPoints[] = {"max", "mid", "min"};
  std::vector<PointHistogram> out;
  for (std::size_t k = 0; k < rounds.size() && k < 3; ++k) {
    const RoundRecord& r = *rounds[k];
    const Element& el = stage.elements[r.element_index];
    PointHistogram h{kPoints[k],         el.label, el.threads,        el.queue_depth, r.iops,
                     histogram_bounds(), {},       "dedicated round", r.seconds};
    for (int op = 0; op < kIoOpCount; ++op) {
      if (!r.ops[op] || r.ops[op]->ops == 0) continue;
      LatencyDistribution d;
      add_to(d, r.ops[op]->distribution);
      h.ops[op] = point_op(*r.ops[op], d);
    }
    out.push_back(std::move(h));
  }
  return out;
}

double quantile_of(const OpSummary& s, double q) {
  // Five nines only where the rounds measured them (older rounds did not).
  const std::pair<double, double> points[] = {
      {0.5, s.p50},    {0.9, s.p90},      {0.99, s.p99},
      {0.999, s.p999}, {0.9999, s.p9999}, {s.p99999 ? 0.99999 : 0.9999, s.p99999.value_or(s.p9999)}};
  double best = s.p50, dist = 1;
  for (const auto& [pq, v] : points) {
    if (std::fabs(pq - q) < dist) {
      dist = std::fabs(pq - q);
      best = v;
    }
  }
  return best;
}

PreconditioningResult preconditioning(const Stage& stage, std::size_t index,
                                      const std::vector<const RoundRecord*>& rounds,
                                      const std::optional<SteadyStateResult>& verdict) {
  PreconditioningResult one;
  one.kind = stage.kind;
  for (const auto* r : rounds) {
    one.bytes += r->bytes_written;
    one.seconds += r->seconds;
  }
  one.rounds = rounds.empty() ? 0 : rounds.back()->round + 1;
  if (stage.steady_state && !stage.steady_state->tracked.empty()) {
    one.steady_state = steady_state_report(stage, index, rounds, *verdict);
  }
  return one;
}

SlcResult slc_result(const SlcDetection& detection, const std::vector<const RoundRecord*>& mine) {
  SlcResult slc;
  slc.drop_fraction = detection.drop_fraction;
  slc.drop_rounds = detection.drop_rounds;
  std::vector<double> bw;
  for (const auto* r : mine) bw.push_back(r->bytes_per_second);
  std::uint64_t written = 0;
  for (const auto* r : mine) {
    written += r->bytes_written;
    slc.curve.push_back({written, r->bytes_per_second});
  }
  if (auto drop = detect_slc_drop(bw, detection)) {
    double before = 0, after = 0;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (i < *drop) {
        slc.cache_bytes += mine[i]->bytes_written;
        before += bw[i];
      } else {
        after += bw[i];
      }
    }
    // The cache ran out inside the last fast round: count what it took at
    // the fast speed (the rest of that round went at the slow one).
    slc.found = true;
    slc.before_bytes_per_second = before / static_cast<double>(*drop);
    slc.after_bytes_per_second = after / static_cast<double>(mine.size() - *drop);
  }
  return slc;
}

// The last stage of a group that measures (its elements are the reported ones).
std::optional<std::size_t> last_test_stage(const TestPlan& plan, int group) {
  std::optional<std::size_t> found;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    if (plan.stages[s].group == group && plan.stages[s].phase == Phase::test) found = s;
  }
  return found;
}

GroupResults group_results(const TestPlan& plan, const std::vector<RoundRecord>& rounds, const Verdicts& verdicts,
                           int group) {
  GroupResults g;
  std::vector<std::uint64_t> hist(histogram_bounds().size() + 1, 0);
  bool any_hist = false;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& stage = plan.stages[s];
    if (stage.group != group) continue;
    const auto mine = stage_rounds(rounds, s);
    const auto& verdict = verdicts[s];
    // Dedicated histogram rounds replace the sweep window's histograms once
    // all three points have run; they measure nothing else.
    if (stage.points_of) {
      const std::size_t sweep = *stage.points_of;
      const auto points = sweep_iops_points(plan.stages[sweep], sweep, stage_rounds(rounds, sweep), verdicts[sweep]);
      if (!points.empty() && mine.size() >= points.size())
        g.response_time_histograms = dedicated_histograms(stage, mine);
      continue;
    }
    // A pre-write between rounds (CBW) is none of the test's results: its
    // rounds are in the run's rounds with their phase, and nowhere else.
    if (stage.phase == Phase::prewrite) continue;
    if (stage.phase == Phase::precondition || stage.preconditions) {
      g.preconditioning.push_back(preconditioning(stage, s, mine, verdict));
    }
    // HIR's steady-state stage is also what its wait states are measured
    // against: its rounds are test rounds, its window the run's.
    if (stage.phase == Phase::precondition) continue;
    std::optional<SteadyStateReport> steady;
    std::optional<MeasurementWindow> window;
    std::optional<std::vector<ElementResult>> stage_elements;
    if (stage.steady_state && !stage.steady_state->tracked.empty()) {
      steady = steady_state_report(stage, s, mine, *verdict);
    }
    if (const auto w = measurement_window(stage, s, mine, verdict)) {
      window = *w;
      stage_elements = element_results(stage, *w, mine);
      if (stage.iops_point_histograms) g.response_time_histograms = iops_point_histograms(stage, *w, mine);
    } else if (stage.elements.size() > 1) {
      stage_elements.emplace();
    }
    // The window of the steady state reported; a later stage that tracks
    // none (HIR's wait states) does not replace it.
    if (window && (steady || !g.steady_state)) g.measurement_window = window;
    if (steady) g.steady_state = steady;
    if (stage_elements) {
      if (!g.elements) g.elements.emplace();
      g.elements->insert(g.elements->end(), stage_elements->begin(), stage_elements->end());
    }
    if (stage.steady_state) {
      const std::string label =
          stage.label.empty() ? block_size_label(stage.elements.front().block_sizes.front().bytes) : stage.label;
      g.subtests.push_back({label, s, steady, window, stage_elements});
    }
    for (const auto* r : mine) {
      for (std::size_t i = 0; i < hist.size() && i < r->histogram.size(); ++i) hist[i] += r->histogram[i];
      any_hist = true;
    }
    if (stage.slc) g.slc = slc_result(*stage.slc, mine);
  }
  if (any_hist) g.histogram = LatencyBuckets{histogram_bounds(), std::move(hist)};
  return g;
}

// "precondition-not-steady" for each preconditioning stage that runs to
// steady state (CBW's, DIRTH's, HIR's), gave up at its round limit without
// it, and was followed by the test's rounds all the same.
std::vector<RunCondition> precondition_conditions(const TestPlan& plan, const std::vector<RoundRecord>& rounds,
                                                  const Verdicts& verdicts) {
  std::vector<RunCondition> out;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& stage = plan.stages[s];
    if (!stage.preconditions || !stage.steady_state || stage.steady_state->tracked.empty()) continue;
    const bool later =
        std::any_of(rounds.begin(), rounds.end(), [s](const RoundRecord& r) { return r.stage > static_cast<int>(s); });
    if (!later) continue;
    if (verdicts[s]->reached) continue;
    const auto mine = stage_rounds(rounds, s);
    const auto& rule = stage.steady_state->rule;
    const std::size_t done = mine.empty() ? 0 : mine.back()->round + 1;
    out.push_back({"precondition-not-steady",
                   fmt::format("preconditioning ({}) did not reach steady state in {} rounds (max_rounds={}, window "
                               "{}); the test rounds started without it (PTS: preconditioning to steady state)",
                               stage.elements.front().label, done, rule.max_rounds, rule.window)});
  }
  return out;
}

// QoS: the datasheet's quantiles against the measurement window of the
// measured stage, as every other reported value.
QosResults qos_results(const TestPlan& plan, const std::vector<RoundRecord>& rounds, const Verdicts& verdicts) {
  QosResults out;
  bool pass = true, measured = false;
  const auto measured_stage = last_test_stage(plan, 0);
  std::vector<const RoundRecord*> mine;
  std::optional<MeasurementWindow> window;
  if (measured_stage) {
    mine = stage_rounds(rounds, *measured_stage);
    window = measurement_window(plan.stages[*measured_stage], *measured_stage, mine, verdicts[*measured_stage]);
  }
  for (const auto& c : plan.qos) {
    std::optional<OpSummary> op;
    if (window) op = element_window(*window, mine, c.element).ops[static_cast<int>(c.op)];
    QosCheckResult check{c.op, c.bs, c.quantile, c.limit_seconds, std::nullopt, false};
    if (op) {
      const double v = quantile_of(*op, c.quantile);
      check.measured_s = v;
      check.pass = v <= c.limit_seconds;
      pass = pass && v <= c.limit_seconds;
      measured = true;
    } else {
      pass = false;
    }
    out.checks.push_back(check);
  }
  out.pass = pass && measured;
  return out;
}

// "The drive saw N I/Os over X ms; the host saw M": the monitor's count
// over the run beside the run's own, from the SMART records either side.
std::optional<LatencyMonitorDelta> latency_monitor_delta(const RunHeader& header,
                                                         const std::vector<RoundRecord>& rounds) {
  if (!header.smart_before || !header.smart_after) return std::nullopt;
  const SmartRecord& a = *header.smart_before;
  const SmartRecord& b = *header.smart_after;
  if (!a.latency_monitor_threshold_s || a.latency_monitor_threshold_s != b.latency_monitor_threshold_s ||
      !a.latency_monitor_reads || !b.latency_monitor_reads || !a.latency_monitor_writes || !b.latency_monitor_writes) {
    return std::nullopt;  // no monitor, or its threshold changed during the run
  }
  const std::uint64_t before = *a.latency_monitor_reads + *a.latency_monitor_writes;
  const std::uint64_t after = *b.latency_monitor_reads + *b.latency_monitor_writes;
  if (after < before) return std::nullopt;  // the monitor was reset during the run
  const auto host = ios_at_or_over(rounds, *a.latency_monitor_threshold_s);
  return LatencyMonitorDelta{*a.latency_monitor_threshold_s, after - before, host.first, host.second};
}

// What happened to the drive over `rounds` (temperatures and throttling at
// round granularity, bytes written, DWPD), and each round on the run's
// timeline.
void drive_results(const RunHeader& header, const std::vector<RoundRecord>& rounds, RunResults& out) {
  DriveResults& drive = out.drive.emplace();
  std::optional<double> tmin, tmax;
  std::optional<RunThrottleEvent> open;
  std::uint64_t written = 0;
  const std::int64_t t0 = header.started_ns;
  for (const auto& r : rounds) {
    written += r.bytes_written;
    if (r.temp_min_c) tmin = std::min(tmin.value_or(*r.temp_min_c), *r.temp_min_c);
    if (r.temp_max_c) tmax = std::max(tmax.value_or(*r.temp_max_c), *r.temp_max_c);
    const WallTime end = r.started_at + std::chrono::duration_cast<WallTime::duration>(from_seconds(r.seconds));
    if (r.throttled_seconds > 0) {
      if (!open) open = RunThrottleEvent{rfc3339(r.started_at), "", r.temp_max_c.value_or(0), 0.0, {"throttle"}};
      open->end = rfc3339(end);
      open->peak_c = std::max(open->peak_c, r.temp_max_c.value_or(0));
      open->throttled_seconds += r.throttled_seconds;
    } else if (open) {
      drive.throttle_events.push_back(*open);
      open.reset();
    }
    out.timeline.push_back(
        {static_cast<double>(to_unix_ns(r.started_at) - t0) * 1e-9, r.bytes_per_second, r.temp_max_c});
  }
  if (open) drive.throttle_events.push_back(*open);
  if (tmin && tmax) drive.temperature_c = {*tmin, *tmax};
  double host = static_cast<double>(written);
  if (header.smart_before && header.smart_after && header.smart_before->data_units_written &&
      header.smart_after->data_units_written) {
    host = (*header.smart_after->data_units_written - *header.smart_before->data_units_written) *
           static_cast<double>(kDataUnitBytes);
  }
  drive.host_bytes_written = host;
  drive.latency_monitor = latency_monitor_delta(header, rounds);
  const auto capacity = static_cast<double>(header.target.capacity_bytes);
  double elapsed = 0;
  if (!rounds.empty()) {
    const auto& last = rounds.back();
    elapsed = static_cast<double>(to_unix_ns(last.started_at) - t0) * 1e-9 + last.seconds;
  }
  if (capacity > 0) {
    drive.drive_writes = host / capacity;
    drive.dwpd_spent = elapsed > 0 ? host / capacity / (elapsed / kSecondsPerDay) : 0.0;
  }
}

}  // namespace

std::vector<std::pair<const char*, std::size_t>> sweep_iops_points(const Stage& sweep, std::size_t stage,
                                                                   const std::vector<const RoundRecord*>& rounds,
                                                                   const std::optional<SteadyStateResult>& steady) {
  const auto w = measurement_window(sweep, stage, rounds, steady);
  if (!w) return {};
  std::vector<double> iops;
  std::vector<std::size_t> measured;
  for (std::size_t e = 0; e < sweep.elements.size(); ++e) {
    const ElementWindow ew = element_window(*w, rounds, e);
    iops.push_back(ew.iops);
    if (ew.rounds > 0) measured.push_back(e);
  }
  if (measured.empty()) return {};
  return iops_points(iops, measured);
}

RunResults analyse(const TestPlan& plan, const RunHeader& header, const std::vector<RoundRecord>& rounds) {
  Verdicts verdicts;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    verdicts.push_back(stage_verdict(plan.stages[s], stage_rounds(rounds, s)));
  }
  RunResults out;
  out.conditions = precondition_conditions(plan, rounds, verdicts);
  out.main = group_results(plan, rounds, verdicts, 0);
  if (!plan.compare_label.empty()) {
    CompareResults compare{plan.compare_label, plan.test, std::nullopt, group_results(plan, rounds, verdicts, 1)};
    // The same drive and run; only the share of it written differs (the
    // elements' range is a fraction of the target from its start).
    for (const auto& s : plan.stages) {
      if (s.group != 1 || s.elements.empty()) continue;
      compare.tested_range_bytes = static_cast<std::uint64_t>(
          std::llround(s.elements.front().range_fraction * static_cast<double>(header.target.capacity_bytes)));
      break;
    }
    out.compare = std::move(compare);
  }
  if (!plan.qos.empty()) out.qos = qos_results(plan, rounds, verdicts);
  drive_results(header, rounds, out);
  return out;
}

}  // namespace nvmond
