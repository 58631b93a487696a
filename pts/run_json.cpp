#include "pts/run_json.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "collectors/health.hpp"
#include "core/build_info.hpp"
#include "core/clock.hpp"
#include "core/io_op.hpp"
#include "pts/measurement_window.hpp"
#include "runmodel/run_codec.hpp"
#include "pts/run_conditions.hpp"
#include "pts/run_executor.hpp"
#include "pts/slc_detector.hpp"

namespace nvmond {

using nlohmann::json;

namespace {

json window_check_json(const WindowCheck& w) {
  return {{"window", {w.first, w.last}},
          {"average", w.average},
          {"range", w.range},
          {"range_limit", w.range_limit},
          {"range_ok", w.range_ok},
          {"slope", w.slope},
          {"intercept", w.intercept},
          {"slope_excursion", w.slope_excursion},
          {"slope_excursion_limit", w.slope_excursion_limit},
          {"slope_ok", w.slope_ok}};
}

// The first tracked variable's check at the top (as runs with one always
// had it), and every variable's under "variables".
json steady_state_json(const Stage& stage, std::size_t stage_index, const std::vector<const RoundRecord*>& rounds) {
  const SteadyStateTracking& tracking = *stage.steady_state;
  const auto y = tracked_series(stage, rounds);
  const auto r = evaluate_steady_state(y, tracking.rule);
  const TrackedElement& first = tracking.tracked.front();
  json j = {{"variable", tracked_variable_name(first.variable)},
            {"element", stage.elements[first.element].label},
            {"stage", stage_index},
            {"window_rounds", tracking.rule.window},
            {"max_rounds", tracking.rule.max_rounds},
            {"rounds_evaluated", y.empty() ? 0 : y.front().size()},
            {"reached", r.reached}};
  j["round"] = r.round ? json(*r.round) : json(nullptr);
  if (r.window) j.update(window_check_json(*r.window));
  json variables = json::array();
  for (std::size_t i = 0; i < tracking.tracked.size(); ++i) {
    const TrackedElement& t = tracking.tracked[i];
    json v = {{"variable", tracked_variable_name(t.variable)}, {"element", stage.elements[t.element].label}};
    if (i < r.windows.size()) v.update(window_check_json(r.windows[i]));
    variables.push_back(v);
  }
  j["variables"] = variables;
  return j;
}

json measurement_window_json(const MeasurementWindow& w) {
  return {{"stage", w.stage}, {"rounds", {w.first, w.last}}, {"steady_state", w.steady_state}};
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

json elements_json(const Stage& stage, const MeasurementWindow& w, const std::vector<const RoundRecord*>& rounds) {
  json out = json::array();
  for (std::size_t e = 0; e < stage.elements.size(); ++e) {
    const ElementWindow ew = element_window(w, rounds, e);
    if (ew.rounds == 0) continue;
    json ops = json::object();
    for (int op = 0; op < kIoOpCount; ++op) {
      if (ew.ops[op]) ops[op_name(static_cast<IoOp>(op))] = to_json(*ew.ops[op]);
    }
    const Element& el = stage.elements[e];
    out.push_back({{"label", el.label},
                   {"bs", el.block_sizes[0].bytes},
                   {"read_pct", el.read_pct},
                   {"threads", el.threads},
                   {"queue_depth", el.queue_depth},
                   {"iops", ew.iops},
                   {"bytes_per_second", ew.bytes_per_second},
                   {"rounds_averaged", static_cast<double>(ew.rounds)},
                   {"ops", ops}});
  }
  return out;
}

// One measured stage of several (a throughput sub-test): its block size,
// steady state and element results.
json subtest_json(const Stage& stage, std::size_t index, const json& steady, const json& window, const json& elements) {
  return {
      {"label", stage.label.empty() ? block_size_label(stage.elements.front().block_sizes.front().bytes) : stage.label},
      {"stage", index},
      {"steady_state", steady},
      {"measurement_window", window},
      {"elements", elements}};
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

// Response-time histograms of a demand-intensity sweep (PTS CBW): at its
// max, mid and min IOPS points, each op's latency over the window's rounds
// of that point, on histogram_bounds()' scale.
json iops_point_histograms_json(const Stage& stage, const MeasurementWindow& w,
                                const std::vector<const RoundRecord*>& rounds) {
  std::vector<double> iops;
  std::vector<std::size_t> measured;
  std::vector<ElementWindow> windows;
  for (std::size_t e = 0; e < stage.elements.size(); ++e) {
    windows.push_back(element_window(w, rounds, e));
    iops.push_back(windows.back().iops);
    if (windows.back().rounds > 0) measured.push_back(e);
  }
  json out = json::array();
  if (measured.empty()) return out;
  std::vector<double> bounds_ns;
  for (double b : histogram_bounds()) bounds_ns.push_back(b * 1e9);
  for (const auto& [name, e] : iops_points(iops, measured)) {
    const Element& el = stage.elements[e];
    json ops = json::object();
    for (int op = 0; op < kIoOpCount; ++op) {
      if (!windows[e].ops[op]) continue;
      LatencyDistribution sum;
      for (const RoundRecord* r : rounds) {
        if (r->element_index == e && r->round >= w.first && r->round <= w.last && r->ops[op]) {
          sum.add(r->ops[op]->distribution);
        }
      }
      const OpSummary& s = *windows[e].ops[op];
      ops[op_name(static_cast<IoOp>(op))] = {{"ops", s.ops},
                                             {"iops", s.iops},
                                             {"mean_s", s.mean},
                                             {"max_s", s.max},
                                             {"counts", sum.counts_within(bounds_ns)}};
    }
    out.push_back({{"point", name},
                   {"label", el.label},
                   {"threads", el.threads},
                   {"queue_depth", el.queue_depth},
                   {"iops", windows[e].iops},
                   {"bounds_s", histogram_bounds()},
                   {"ops", ops},
                   {"source", "sweep window"}});
  }
  return out;
}

// The same from the dedicated histogram rounds (a stage with `points_of`):
// each round is one point's, in the order max, mid, min.
json dedicated_histograms_json(const Stage& stage, const std::vector<const RoundRecord*>& rounds) {
  static const char* const kPoints[] = {"max", "mid", "min"};
  std::vector<double> bounds_ns;
  for (double b : histogram_bounds()) bounds_ns.push_back(b * 1e9);
  json out = json::array();
  for (std::size_t k = 0; k < rounds.size() && k < 3; ++k) {
    const RoundRecord& r = *rounds[k];
    const Element& el = stage.elements[r.element_index];
    json ops = json::object();
    for (int op = 0; op < kIoOpCount; ++op) {
      if (!r.ops[op] || r.ops[op]->ops == 0) continue;
      const OpSummary& s = *r.ops[op];
      LatencyDistribution d;
      d.add(s.distribution);
      ops[op_name(static_cast<IoOp>(op))] = {{"ops", s.ops},
                                             {"iops", s.iops},
                                             {"mean_s", s.mean},
                                             {"max_s", s.max},
                                             {"counts", d.counts_within(bounds_ns)}};
    }
    out.push_back({{"point", kPoints[k]},
                   {"label", el.label},
                   {"threads", el.threads},
                   {"queue_depth", el.queue_depth},
                   {"iops", r.iops},
                   {"bounds_s", histogram_bounds()},
                   {"ops", ops},
                   {"source", "dedicated round"},
                   {"seconds", r.seconds}});
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

// A preconditioning stage: what it wrote, for how long, in how many rounds;
// one that runs to steady state (CBW, DIRTH, HIR) also whether it got
// there, and over which window.
json preconditioning_json(const Stage& stage, std::size_t index, const std::vector<const RoundRecord*>& rounds) {
  std::uint64_t bytes = 0;
  double secs = 0;
  for (const auto* r : rounds) {
    bytes += r->bytes_written;
    secs += r->seconds;
  }
  json one = {{"kind", stage.kind},
              {"bytes", bytes},
              {"seconds", secs},
              {"rounds", rounds.empty() ? 0 : rounds.back()->round + 1}};
  if (stage.steady_state && !stage.steady_state->tracked.empty()) {
    one["steady_state"] = steady_state_json(stage, index, rounds);
  }
  return one;
}

// The last stage of a group that measures (its elements are the reported ones).
std::optional<std::size_t> last_test_stage(const TestPlan& plan, int group) {
  std::optional<std::size_t> found;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    if (plan.stages[s].group == group && plan.stages[s].phase == Phase::test) found = s;
  }
  return found;
}

// The run, the comparison run: rounds, preconditioning and results of one group.
json group_json(const TestPlan& plan, const std::vector<RoundRecord>& rounds, int group) {
  json j;
  json list = json::array();
  json pre = json::array();
  json elements;  // null until a stage has elements to report
  json subtests = json::array();
  std::vector<std::uint64_t> hist(histogram_bounds().size() + 1, 0);
  bool any_hist = false;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& stage = plan.stages[s];
    if (stage.group != group) continue;
    const auto mine = stage_rounds(rounds, s);
    // Dedicated histogram rounds replace the sweep window's histograms once
    // all three points have run; they measure nothing else.
    if (stage.points_of) {
      const auto points =
          sweep_iops_points(plan.stages[*stage.points_of], *stage.points_of, stage_rounds(rounds, *stage.points_of));
      if (!points.empty() && mine.size() >= points.size()) {
        j["response_time_histograms"] = dedicated_histograms_json(stage, mine);
      }
      continue;
    }
    // A pre-write between rounds (CBW) is none of the test's results: its
    // rounds are in `rounds` with their phase, and nowhere else.
    if (stage.phase == Phase::prewrite) continue;
    if (stage.phase == Phase::precondition || stage.preconditions) pre.push_back(preconditioning_json(stage, s, mine));
    // HIR's steady-state stage is also what its wait states are measured
    // against: its rounds are test rounds, its window the run's.
    if (stage.phase == Phase::precondition) continue;
    json steady, window, stage_elements;
    if (stage.steady_state && !stage.steady_state->tracked.empty()) steady = steady_state_json(stage, s, mine);
    if (const auto w = measurement_window(stage, s, mine)) {
      window = measurement_window_json(*w);
      stage_elements = elements_json(stage, *w, mine);
      if (stage.iops_point_histograms) j["response_time_histograms"] = iops_point_histograms_json(stage, *w, mine);
    } else if (stage.elements.size() > 1) {
      stage_elements = json::array();
    }
    if (!steady.is_null()) j["steady_state"] = steady;
    // The window of the steady state reported; a later stage that tracks
    // none (HIR's wait states) does not replace it.
    if (!window.is_null() && (!steady.is_null() || !j.contains("steady_state"))) j["measurement_window"] = window;
    if (!stage_elements.is_null()) {
      if (elements.is_null()) elements = json::array();
      for (const auto& e : stage_elements) elements.push_back(e);
    }
    if (stage.steady_state) subtests.push_back(subtest_json(stage, s, steady, window, stage_elements));
    for (const auto* r : mine) {
      for (std::size_t i = 0; i < hist.size() && i < r->histogram.size(); ++i) hist[i] += r->histogram[i];
      any_hist = true;
    }
    if (stage.slc) {
      std::vector<double> bw;
      for (const auto* r : mine) bw.push_back(r->bytes_per_second);
      json slc = {{"drop_fraction", stage.slc->drop_fraction}, {"drop_rounds", stage.slc->drop_rounds}};
      json curve = json::array();
      std::uint64_t written = 0;
      for (const auto* r : mine) {
        written += r->bytes_written;
        curve.push_back({{"written_bytes", written}, {"bytes_per_second", r->bytes_per_second}});
      }
      slc["curve"] = curve;
      if (auto drop = detect_slc_drop(bw, *stage.slc)) {
        std::uint64_t cache = 0;
        double before = 0, after = 0;
        for (std::size_t i = 0; i < mine.size(); ++i) {
          if (i < *drop) {
            cache += mine[i]->bytes_written;
            before += bw[i];
          } else {
            after += bw[i];
          }
        }
        // The cache ran out inside the last fast round: count what it took at
        // the fast speed (the rest of that round went at the slow one).
        slc["cache_bytes"] = cache;
        slc["found"] = true;
        slc["before_bytes_per_second"] = before / static_cast<double>(*drop);
        slc["after_bytes_per_second"] = after / static_cast<double>(mine.size() - *drop);
      } else {
        slc["found"] = false;
      }
      j["slc"] = slc;
    }
  }
  for (const auto& r : rounds) {
    if (r.group == group) list.push_back(to_json(r));
  }
  j["rounds"] = list;
  if (!elements.is_null()) j["elements"] = elements;
  // Sub-tests (throughput: one per block size) each with their own steady
  // state; the top-level steady_state is the last one's.
  if (subtests.size() > 1) j["subtests"] = subtests;
  if (!pre.empty()) j["preconditioning"] = pre;
  if (any_hist) j["histogram"] = {{"bounds_s", histogram_bounds()}, {"counts", hist}};
  return j;
}

// "precondition-not-steady" for each preconditioning stage that runs to
// steady state (CBW's, DIRTH's, HIR's), gave up at its round limit without
// it, and was followed by the test's rounds all the same.
std::vector<RunCondition> precondition_conditions(const TestPlan& plan, const std::vector<RoundRecord>& rounds) {
  std::vector<RunCondition> out;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& stage = plan.stages[s];
    if (!stage.preconditions || !stage.steady_state || stage.steady_state->tracked.empty()) continue;
    const bool later =
        std::any_of(rounds.begin(), rounds.end(), [s](const RoundRecord& r) { return r.stage > static_cast<int>(s); });
    if (!later) continue;
    const auto mine = stage_rounds(rounds, s);
    const auto& rule = stage.steady_state->rule;
    if (evaluate_steady_state(tracked_series(stage, mine), rule).reached) continue;
    const std::size_t done = mine.empty() ? 0 : mine.back()->round + 1;
    out.push_back({"precondition-not-steady",
                   fmt::format("preconditioning ({}) did not reach steady state in {} rounds (max_rounds={}, window "
                               "{}); the test rounds started without it (PTS: preconditioning to steady state)",
                               stage.elements.front().label, done, rule.max_rounds, rule.window)});
  }
  return out;
}

}  // namespace

std::vector<std::pair<const char*, std::size_t>> sweep_iops_points(const Stage& sweep, std::size_t stage,
                                                                   const std::vector<const RoundRecord*>& rounds) {
  const auto w = measurement_window(sweep, stage, rounds);
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

namespace {

// "The drive saw N I/Os over X ms; the host saw M": the monitor's count
// over the run beside the run's own, from the SMART records either side.
std::optional<json> latency_monitor_json(const RunHeader& header, const std::vector<RoundRecord>& rounds) {
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
  return json{{"threshold_s", *a.latency_monitor_threshold_s},
              {"drive_ios", after - before},
              {"host_ios_min", host.first},
              {"host_ios_max", host.second}};
}

}  // namespace

SmartRecord smart_record(const HealthSample& h) {
  SmartRecord s;
  s.time = rfc3339(h.time);
  s.temperature_c = h.temperature_c;
  s.data_units_written = h.data_units_written;
  s.percentage_used = h.percentage_used;
  s.thermal_mgmt_t1_transitions = h.throttle_events;
  if (h.latency_monitor && h.latency_monitor->enabled()) {
    s.latency_monitor_threshold_s = h.latency_monitor->threshold_ms(0) / 1000.0;
    s.latency_monitor_reads = h.latency_monitor->static_over_threshold(OcpLatencyOp::read);
    s.latency_monitor_writes = h.latency_monitor->static_over_threshold(OcpLatencyOp::write);
  }
  return s;
}

RunHeader run_header(const TestPlan& plan, const TargetIdentity& id, const std::string& target, bool simulated,
                     WallTime started) {
  RunHeader h;
  h.test = plan.test;
  h.profile = plan.profile;
  h.started_at = rfc3339(started);
  h.started_ns = to_unix_ns(started);
  h.nvmond_version = build::kVersion;
  h.simulated_clock = simulated;
  h.target.path = target;
  h.target.serial = id.serial;
  h.target.model = id.model;
  h.target.firmware = id.firmware;
  h.target.capacity_bytes = id.capacity_bytes;
  h.target.tested_range_bytes = plan.tested_range_bytes;
  // A rating of 0 is unknown: run.json leaves it out.
  if (id.rated_dwpd > 0) h.target.rated_dwpd = id.rated_dwpd;
  if (id.rated_endurance_bytes > 0) h.target.rated_endurance_bytes = id.rated_endurance_bytes;
  h.target.warning_temp_c = id.warning_temp_c;
  h.target.critical_temp_c = id.critical_temp_c;
  h.parameters = plan.parameters;
  return h;
}

json build_run_json(const TestPlan& plan, const RunHeader& header, RunStatus status,
                    const std::vector<RoundRecord>& rounds) {
  RunHeader head = header;
  for (auto& c : precondition_conditions(plan, rounds)) add_condition(head, std::move(c));
  json j = run_head_json(head, status);
  json main = group_json(plan, rounds, 0);
  for (auto& [k, v] : main.items()) j[k] = v;
  if (!plan.compare_label.empty()) {
    json nested = group_json(plan, rounds, 1);
    nested["test"] = plan.test;
    // The same drive and run; only the share of it written differs (the
    // elements' range is a fraction of the target from its start).
    for (const auto& s : plan.stages) {
      if (s.group != 1 || s.elements.empty()) continue;
      nested["tested_range_bytes"] = static_cast<std::uint64_t>(
          std::llround(s.elements.front().range_fraction * static_cast<double>(header.target.capacity_bytes)));
      break;
    }
    j["compare"] = {{"label", plan.compare_label}, {"run", nested}};
  }
  // QoS: the datasheet's quantiles against the measurement window of the
  // measured stage, as every other reported value.
  if (!plan.qos.empty()) {
    json checks = json::array();
    bool pass = true, measured = false;
    const auto measured_stage = last_test_stage(plan, 0);
    std::vector<const RoundRecord*> mine;
    std::optional<MeasurementWindow> window;
    if (measured_stage) {
      mine = stage_rounds(rounds, *measured_stage);
      window = measurement_window(plan.stages[*measured_stage], *measured_stage, mine);
    }
    for (const auto& c : plan.qos) {
      std::optional<OpSummary> op;
      if (window) op = element_window(*window, mine, c.element).ops[static_cast<int>(c.op)];
      json cj = {{"op", op_name(c.op)}, {"bs", c.bs}, {"quantile", c.quantile}, {"limit_s", c.limit_seconds}};
      if (op) {
        const double v = quantile_of(*op, c.quantile);
        cj["measured_s"] = v;
        cj["pass"] = v <= c.limit_seconds;
        pass = pass && v <= c.limit_seconds;
        measured = true;
      } else {
        cj["pass"] = false;
        pass = false;
      }
      checks.push_back(cj);
    }
    j["qos"] = {{"pass", pass && measured}, {"checks", checks}};
  }
  // What happened to the drive: temperatures, throttling (at round
  // granularity), bytes written and the DWPD they amount to.
  json drive = j["drive"];
  std::optional<double> tmin, tmax;
  json events = json::array();
  json timeline = json::array();
  std::uint64_t written = 0;
  const std::int64_t t0 = header.started_ns;
  json open;
  for (const auto& r : rounds) {
    written += r.bytes_written;
    if (r.temp_min_c) tmin = std::min(tmin.value_or(*r.temp_min_c), *r.temp_min_c);
    if (r.temp_max_c) tmax = std::max(tmax.value_or(*r.temp_max_c), *r.temp_max_c);
    const WallTime end = r.started_at + std::chrono::duration_cast<WallTime::duration>(from_seconds(r.seconds));
    if (r.throttled_seconds > 0) {
      if (open.is_null())
        open = {{"start", rfc3339(r.started_at)},
                {"peak_c", r.temp_max_c.value_or(0)},
                {"sources", {"throttle"}},
                {"throttled_seconds", 0.0}};
      open["end"] = rfc3339(end);
      open["peak_c"] = std::max(open["peak_c"].get<double>(), r.temp_max_c.value_or(0));
      open["throttled_seconds"] = open["throttled_seconds"].get<double>() + r.throttled_seconds;
    } else if (!open.is_null()) {
      events.push_back(open);
      open = nullptr;
    }
    json point = {{"t", static_cast<double>(to_unix_ns(r.started_at) - t0) * 1e-9},
                  {"bytes_per_second", r.bytes_per_second}};
    if (r.temp_max_c) point["temperature_c"] = *r.temp_max_c;
    timeline.push_back(point);
  }
  if (!open.is_null()) events.push_back(open);
  if (tmin && tmax) drive["temperature_c"] = {{"min", *tmin}, {"max", *tmax}};
  drive["throttle_events"] = events;
  double host = static_cast<double>(written);
  if (header.smart_before && header.smart_after && header.smart_before->data_units_written &&
      header.smart_after->data_units_written) {
    host = (*header.smart_after->data_units_written - *header.smart_before->data_units_written) *
           static_cast<double>(kDataUnitBytes);
  }
  drive["host_bytes_written"] = host;
  if (auto lm = latency_monitor_json(header, rounds)) drive["latency_monitor"] = *lm;
  const auto capacity = static_cast<double>(header.target.capacity_bytes);
  double elapsed = 0;
  if (!rounds.empty()) {
    const auto& last = rounds.back();
    elapsed = static_cast<double>(to_unix_ns(last.started_at) - t0) * 1e-9 + last.seconds;
  }
  if (capacity > 0) {
    drive["drive_writes"] = host / capacity;
    drive["dwpd_spent"] = elapsed > 0 ? host / capacity / (elapsed / kSecondsPerDay) : 0.0;
  }
  j["drive"] = drive;
  j["timeline"] = timeline;
  return j;
}

}  // namespace nvmond
