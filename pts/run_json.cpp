#include "pts/run_json.hpp"

#include "core/clock.hpp"
#include "core/io_op.hpp"
#include "pts/run_conditions.hpp"
#include "runmodel/run_codec.hpp"

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
json steady_state_json(const SteadyStateReport& s) {
  const SteadyStateResult& r = s.verdict;
  const SteadyStateReport::Tracked& first = s.tracked.front();
  json j = {{"variable", tracked_variable_name(first.variable)},
            {"element", first.element},
            {"stage", s.stage},
            {"window_rounds", s.rule.window},
            {"max_rounds", s.rule.max_rounds},
            {"rounds_evaluated", s.rounds_evaluated},
            {"reached", r.reached}};
  j["round"] = r.round ? json(*r.round) : json(nullptr);
  if (r.window) j.update(window_check_json(*r.window));
  json variables = json::array();
  for (std::size_t i = 0; i < s.tracked.size(); ++i) {
    json v = {{"variable", tracked_variable_name(s.tracked[i].variable)}, {"element", s.tracked[i].element}};
    if (i < r.windows.size()) v.update(window_check_json(r.windows[i]));
    variables.push_back(v);
  }
  j["variables"] = variables;
  return j;
}

json optional_steady_state_json(const std::optional<SteadyStateReport>& s) {
  return s ? steady_state_json(*s) : json(nullptr);
}

json measurement_window_json(const std::optional<MeasurementWindow>& w) {
  if (!w) return nullptr;
  return {{"stage", w->stage}, {"rounds", {w->first, w->last}}, {"steady_state", w->steady_state}};
}

json elements_json(const std::optional<std::vector<ElementResult>>& elements) {
  if (!elements) return nullptr;
  json out = json::array();
  for (const ElementResult& e : *elements) {
    json ops = json::object();
    for (int op = 0; op < kIoOpCount; ++op) {
      if (e.ops[op]) ops[op_name(static_cast<IoOp>(op))] = to_json(*e.ops[op]);
    }
    out.push_back({{"label", e.label},
                   {"bs", e.bs},
                   {"read_pct", e.read_pct},
                   {"threads", e.threads},
                   {"queue_depth", e.queue_depth},
                   {"iops", e.iops},
                   {"bytes_per_second", e.bytes_per_second},
                   {"rounds_averaged", static_cast<double>(e.rounds_averaged)},
                   {"ops", ops}});
  }
  return out;
}

json subtest_json(const SubtestResult& s) {
  return {{"label", s.label},
          {"stage", s.stage},
          {"steady_state", optional_steady_state_json(s.steady_state)},
          {"measurement_window", measurement_window_json(s.window)},
          {"elements", elements_json(s.elements)}};
}

json point_histogram_json(const PointHistogram& h) {
  json ops = json::object();
  for (int op = 0; op < kIoOpCount; ++op) {
    if (!h.ops[op]) continue;
    const PointOpHistogram& o = *h.ops[op];
    ops[op_name(static_cast<IoOp>(op))] = {
        {"ops", o.ops}, {"iops", o.iops}, {"mean_s", o.mean_s}, {"max_s", o.max_s}, {"counts", o.counts}};
  }
  json j = {{"point", h.point},     {"label", h.label},
            {"threads", h.threads}, {"queue_depth", h.queue_depth},
            {"iops", h.iops},       {"bounds_s", histogram_bounds()},
            {"ops", ops},           {"source", h.source}};
  if (h.seconds) j["seconds"] = *h.seconds;
  return j;
}

json preconditioning_json(const PreconditioningResult& p) {
  json one = {{"kind", p.kind}, {"bytes", p.bytes}, {"seconds", p.seconds}, {"rounds", p.rounds}};
  if (p.steady_state) one["steady_state"] = steady_state_json(*p.steady_state);
  return one;
}

json slc_json(const SlcResult& s) {
  json slc = {{"drop_fraction", s.drop_fraction}, {"drop_rounds", s.drop_rounds}};
  json curve = json::array();
  for (const auto& p : s.curve)
    curve.push_back({{"written_bytes", p.written_bytes}, {"bytes_per_second", p.bytes_per_second}});
  slc["curve"] = curve;
  slc["found"] = s.found;
  if (s.found) {
    slc["cache_bytes"] = s.cache_bytes;
    slc["before_bytes_per_second"] = s.before_bytes_per_second;
    slc["after_bytes_per_second"] = s.after_bytes_per_second;
  }
  return slc;
}

// The run, the comparison run: rounds, preconditioning and results of one group.
json group_json(const GroupResults& g, const std::vector<RoundRecord>& rounds, int group) {
  json j;
  if (g.response_time_histograms) {
    json hists = json::array();
    for (const auto& h : *g.response_time_histograms) hists.push_back(point_histogram_json(h));
    j["response_time_histograms"] = hists;
  }
  if (g.steady_state) j["steady_state"] = steady_state_json(*g.steady_state);
  if (g.measurement_window) j["measurement_window"] = measurement_window_json(g.measurement_window);
  if (g.slc) j["slc"] = slc_json(*g.slc);
  json list = json::array();
  for (const auto& r : rounds) {
    if (r.group == group) list.push_back(to_json(r));
  }
  j["rounds"] = list;
  if (g.elements) j["elements"] = elements_json(g.elements);
  // Sub-tests (throughput: one per block size) each with their own steady
  // state; the top-level steady_state is the last one's.
  if (g.subtests.size() > 1) {
    json subtests = json::array();
    for (const auto& s : g.subtests) subtests.push_back(subtest_json(s));
    j["subtests"] = subtests;
  }
  if (!g.preconditioning.empty()) {
    json pre = json::array();
    for (const auto& p : g.preconditioning) pre.push_back(preconditioning_json(p));
    j["preconditioning"] = pre;
  }
  if (g.histogram) j["histogram"] = {{"bounds_s", histogram_bounds()}, {"counts", *g.histogram}};
  return j;
}

json qos_json(const QosResults& q) {
  json checks = json::array();
  for (const auto& c : q.checks) {
    json cj = {{"op", op_name(c.op)}, {"bs", c.bs}, {"quantile", c.quantile}, {"limit_s", c.limit_s}};
    if (c.measured_s) cj["measured_s"] = *c.measured_s;
    cj["pass"] = c.pass;
    checks.push_back(cj);
  }
  return {{"pass", q.pass}, {"checks", checks}};
}

// The header's drive facts (the SMART records) and what the rounds did to it.
void add_drive_json(const DriveResults& d, json& drive) {
  json events = json::array();
  for (const auto& e : d.throttle_events) {
    events.push_back({{"start", e.start},
                      {"end", e.end},
                      {"peak_c", e.peak_c},
                      {"sources", {"throttle"}},
                      {"throttled_seconds", e.throttled_seconds}});
  }
  if (d.temperature_c) drive["temperature_c"] = {{"min", d.temperature_c->first}, {"max", d.temperature_c->second}};
  drive["throttle_events"] = events;
  drive["host_bytes_written"] = d.host_bytes_written;
  if (d.latency_monitor) {
    const LatencyMonitorDelta& lm = *d.latency_monitor;
    drive["latency_monitor"] = {{"threshold_s", lm.threshold_s},
                                {"drive_ios", lm.drive_ios},
                                {"host_ios_min", lm.host_ios_min},
                                {"host_ios_max", lm.host_ios_max}};
  }
  if (d.drive_writes) drive["drive_writes"] = *d.drive_writes;
  if (d.dwpd_spent) drive["dwpd_spent"] = *d.dwpd_spent;
}

json timeline_json(const std::vector<TimelinePoint>& timeline) {
  json out = json::array();
  for (const auto& p : timeline) {
    json point = {{"t", p.t}, {"bytes_per_second", p.bytes_per_second}};
    if (p.temperature_c) point["temperature_c"] = *p.temperature_c;
    out.push_back(point);
  }
  return out;
}

}  // namespace

json run_json(const Run& run) {
  const RunResults& results = run.results;
  const std::vector<RoundRecord>& rounds = run.rounds;
  RunHeader head = run.header;
  for (const auto& c : results.conditions) add_condition(head, c);
  json j = run_head_json(head, run.status);
  json main = group_json(results.main, rounds, 0);
  for (auto& [k, v] : main.items()) j[k] = v;
  if (results.compare) {
    json nested = group_json(results.compare->run, rounds, 1);
    nested["test"] = results.compare->test;
    if (results.compare->tested_range_bytes) nested["tested_range_bytes"] = *results.compare->tested_range_bytes;
    j["compare"] = {{"label", results.compare->label}, {"run", nested}};
  }
  if (results.qos) j["qos"] = qos_json(*results.qos);
  json drive = j["drive"];
  add_drive_json(results.drive, drive);
  j["drive"] = drive;
  j["timeline"] = timeline_json(results.timeline);
  return j;
}

}  // namespace nvmond
