#include "runmodel/run_json.hpp"

#include <cmath>
#include <optional>
#include <tuple>
#include <utility>

#include "core/io_op.hpp"
#include "core/json_path.hpp"
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
    out.push_back({{"label", e.label},
                   {"bs", e.bs},
                   {"read_pct", e.read_pct},
                   {"threads", e.threads},
                   {"queue_depth", e.queue_depth},
                   {"iops", e.iops},
                   {"bytes_per_second", e.bytes_per_second},
                   {"rounds_averaged", static_cast<double>(e.rounds_averaged)},
                   {"ops", ops_json(e.ops)}});
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
  json j = {{"point", h.point}, {"label", h.label},       {"threads", h.threads}, {"queue_depth", h.queue_depth},
            {"iops", h.iops},   {"bounds_s", h.bounds_s}, {"ops", ops},           {"source", h.source}};
  if (h.seconds) j["seconds"] = *h.seconds;
  return j;
}

json preconditioning_json(const PreconditioningResult& p) {
  json one = {{"kind", p.kind}, {"bytes", p.bytes}, {"seconds", p.seconds}};
  if (p.rounds) one["rounds"] = *p.rounds;
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
  if (g.histogram) j["histogram"] = {{"bounds_s", g.histogram->bounds_s}, {"counts", g.histogram->counts}};
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
                      {"sources", e.sources},
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
  if (results.drive) {
    json drive = j["drive"];
    add_drive_json(*results.drive, drive);
    j["drive"] = drive;
  }
  j["timeline"] = timeline_json(results.timeline);
  return j;
}

// Reading run.json back: the writer's inverse, and how older documents read
// (docs/pts.md, "Older runs"). Absent sections stay absent; absent numbers
// inside a section are 0, except rates and latencies, which are NaN.
namespace {

using json_keys::DecodeError;
using Node = json_keys::Path;
using json_keys::count_or;
using json_keys::counts;
using json_keys::number_or;
using json_keys::numbers;

// [first, last] under `key`; nullopt when absent.
std::optional<std::pair<std::size_t, std::size_t>> round_range(const Node& n, const char* key) {
  const auto w = n.array(key);
  if (w.empty()) return std::nullopt;
  if (w.size() != 2 || !w[0].j.is_number() || !w[1].j.is_number()) n.at(key).fail("expected [first, last]");
  return std::pair{static_cast<std::size_t>(w[0].j.get<double>()), static_cast<std::size_t>(w[1].j.get<double>())};
}

std::optional<WindowCheck> window_check_from(const Node& n) {
  const auto range = round_range(n, "window");
  if (!range) return std::nullopt;
  WindowCheck w;
  std::tie(w.first, w.last) = *range;
  w.average = n.number("average");
  w.range = n.number("range");
  w.range_limit = n.number("range_limit");
  w.range_ok = n.flag("range_ok");
  w.slope = n.number("slope");
  w.intercept = n.number("intercept");
  w.slope_excursion = n.number("slope_excursion");
  w.slope_excursion_limit = n.number("slope_excursion_limit");
  w.slope_ok = n.flag("slope_ok");
  return w;
}

TrackedVariable variable_from(const Node& n) {
  const std::string name = n.text("variable");
  const auto v = tracked_variable_from_name(name);
  if (!v) n.at("variable").fail("\"" + name + "\" is no tracked variable");
  return *v;
}

SteadyStateReport steady_state_from(const Node& n) {
  SteadyStateReport s;
  s.stage = count_or(n, "stage");
  s.rule.window = static_cast<int>(count_or(n, "window_rounds", static_cast<std::uint64_t>(s.rule.window)));
  s.rule.max_rounds = static_cast<int>(count_or(n, "max_rounds", static_cast<std::uint64_t>(s.rule.max_rounds)));
  s.rounds_evaluated = count_or(n, "rounds_evaluated");
  s.verdict.reached = n.flag("reached");
  if (n.has("round")) s.verdict.round = count_or(n, "round");
  s.verdict.window = window_check_from(n);
  const auto variables = n.array("variables");
  if (variables.empty()) {
    // Runs that tracked one variable wrote only the top-level one.
    s.tracked.push_back({variable_from(n), n.text("element")});
    if (s.verdict.window) s.verdict.windows.push_back(*s.verdict.window);
  }
  for (const Node& v : variables) {
    s.tracked.push_back({variable_from(v), v.text("element")});
    if (auto w = window_check_from(v)) s.verdict.windows.push_back(*w);
  }
  return s;
}

std::optional<SteadyStateReport> optional_steady_state_from(const std::optional<Node>& n) {
  return n ? std::optional(steady_state_from(*n)) : std::nullopt;
}

std::optional<MeasurementWindow> measurement_window_from(const std::optional<Node>& n) {
  if (!n) return std::nullopt;
  MeasurementWindow w;
  w.stage = count_or(*n, "stage");
  const auto range = round_range(*n, "rounds");
  if (!range) return std::nullopt;
  std::tie(w.first, w.last) = *range;
  w.steady_state = n->flag("steady_state");
  return w;
}

std::optional<std::vector<ElementResult>> elements_from(const Node& root) {
  if (!root.has("elements")) return std::nullopt;
  std::vector<ElementResult> out;
  for (const Node& e : root.array("elements")) {
    ElementResult r;
    r.label = e.text("label");
    r.bs = static_cast<std::uint32_t>(count_or(e, "bs"));
    r.read_pct = number_or(e, "read_pct", 0);
    r.threads = static_cast<unsigned>(count_or(e, "threads"));
    r.queue_depth = static_cast<unsigned>(count_or(e, "queue_depth"));
    r.iops = e.number("iops");
    r.bytes_per_second = e.number("bytes_per_second");
    r.rounds_averaged = static_cast<int>(count_or(e, "rounds_averaged"));
    if (const auto ops = e.object("ops")) r.ops = ops_from_json(*ops);
    out.push_back(std::move(r));
  }
  return out;
}

PointHistogram point_histogram_from(const Node& n) {
  PointHistogram h;
  h.point = n.text("point");
  h.label = n.text("label");
  h.threads = static_cast<unsigned>(count_or(n, "threads"));
  h.queue_depth = static_cast<unsigned>(count_or(n, "queue_depth"));
  h.iops = n.number("iops");
  h.source = n.text("source");
  h.bounds_s = numbers(n, "bounds_s");
  if (n.has("seconds")) h.seconds = n.number("seconds");
  const std::size_t buckets = h.bounds_s.size() + 1;
  if (const auto ops = n.object("ops")) {
    for (int op = 0; op < kIoOpCount; ++op) {
      const auto o = ops->object(op_name(static_cast<IoOp>(op)));
      if (!o) continue;
      PointOpHistogram p{count_or(*o, "ops"), o->number("iops"), o->number("mean_s"), o->number("max_s"),
                         counts(*o, "counts")};
      if (p.counts.size() != buckets) o->fail("counts must have one entry per bound and one above");
      h.ops[op] = std::move(p);
    }
  }
  return h;
}

SlcResult slc_from(const Node& n) {
  SlcResult s;
  s.drop_fraction = n.number("drop_fraction");
  s.drop_rounds = static_cast<int>(count_or(n, "drop_rounds"));
  for (const Node& p : n.array("curve"))
    s.curve.push_back({count_or(p, "written_bytes"), p.number("bytes_per_second")});
  // Older documents had no verdict: a cache size was the finding.
  s.found = n.has("found") ? n.flag("found") : n.has("cache_bytes");
  if (s.found) {
    s.cache_bytes = count_or(n, "cache_bytes");
    s.before_bytes_per_second = n.number("before_bytes_per_second");
    s.after_bytes_per_second = n.number("after_bytes_per_second");
  }
  return s;
}

GroupResults group_from(const Node& root, int group, std::vector<RoundRecord>& rounds) {
  GroupResults g;
  if (root.has("response_time_histograms")) {
    std::vector<PointHistogram> hists;
    for (const Node& h : root.array("response_time_histograms")) hists.push_back(point_histogram_from(h));
    g.response_time_histograms = std::move(hists);
  }
  g.steady_state = optional_steady_state_from(root.object("steady_state"));
  g.measurement_window = measurement_window_from(root.object("measurement_window"));
  if (const auto s = root.object("slc")) g.slc = slc_from(*s);
  for (const Node& r : root.array("rounds")) {
    RoundRecord round = round_from_json(r);
    round.group = group;
    rounds.push_back(std::move(round));
  }
  g.elements = elements_from(root);
  for (const Node& s : root.array("subtests")) {
    SubtestResult t;
    t.label = s.text("label");
    t.stage = count_or(s, "stage");
    t.steady_state = optional_steady_state_from(s.object("steady_state"));
    t.window = measurement_window_from(s.object("measurement_window"));
    t.elements = elements_from(s);
    g.subtests.push_back(std::move(t));
  }
  for (const Node& p : root.array("preconditioning")) {
    PreconditioningResult pre;
    pre.kind = p.text("kind");
    pre.bytes = count_or(p, "bytes");
    pre.seconds = p.number("seconds");
    if (p.has("rounds")) pre.rounds = count_or(p, "rounds");
    pre.steady_state = optional_steady_state_from(p.object("steady_state"));
    g.preconditioning.push_back(std::move(pre));
  }
  if (const auto h = root.object("histogram")) {
    LatencyBuckets b{numbers(*h, "bounds_s"), counts(*h, "counts")};
    // One count per bound, plus optionally the overflow bucket above the last bound.
    if (b.counts.size() != b.bounds_s.size() && b.counts.size() != b.bounds_s.size() + 1) {
      h->fail("counts must have one entry per bound (plus one for the overflow)");
    }
    g.histogram = std::move(b);
  }
  return g;
}

QosResults qos_from(const Node& n) {
  QosResults q;
  q.pass = n.flag("pass");
  for (const Node& c : n.array("checks")) {
    QosCheckResult check;
    const std::string op = c.text("op");
    if (op != "read" && op != "write") c.at("op").fail("expected read or write");
    check.op = op == "read" ? IoOp::read : IoOp::write;
    check.bs = static_cast<std::uint32_t>(count_or(c, "bs"));
    check.quantile = c.number("quantile");
    check.limit_s = c.number("limit_s");
    if (c.has("measured_s")) check.measured_s = c.number("measured_s");
    check.pass = c.flag("pass");
    q.checks.push_back(check);
  }
  return q;
}

std::optional<DriveResults> drive_from(const std::optional<Node>& n) {
  if (!n) return std::nullopt;
  DriveResults d;
  if (const auto t = n->object("temperature_c")) d.temperature_c = std::pair{t->number("min"), t->number("max")};
  for (const Node& e : n->array("throttle_events")) {
    d.throttle_events.push_back(
        {e.text("start"), e.text("end"), e.number("peak_c"), number_or(e, "throttled_seconds", 0), {}});
    for (const Node& s : e.array("sources")) d.throttle_events.back().sources.push_back(s.as<std::string>());
  }
  d.host_bytes_written = n->number("host_bytes_written");
  if (const auto lm = n->object("latency_monitor")) {
    d.latency_monitor = LatencyMonitorDelta{lm->number("threshold_s"), count_or(*lm, "drive_ios"),
                                            count_or(*lm, "host_ios_min"), count_or(*lm, "host_ios_max")};
  }
  if (n->has("drive_writes")) d.drive_writes = n->number("drive_writes");
  if (n->has("dwpd_spent")) d.dwpd_spent = n->number("dwpd_spent");
  return d;
}

std::vector<TimelinePoint> timeline_from(const Node& root) {
  std::vector<TimelinePoint> out;
  for (const Node& p : root.array("timeline")) {
    TimelinePoint t{p.number("t"), p.number("bytes_per_second"), std::nullopt};
    if (p.has("temperature_c")) t.temperature_c = p.number("temperature_c");
    out.push_back(t);
  }
  return out;
}

}  // namespace

Result<Run> run_from_json(const json& j) {
  try {
    const Node root{j, ""};
    if (!j.is_object()) root.fail("expected a run object");
    auto header = header_from_json(j);
    if (!header) return header.error();
    auto status = status_from_json(j);
    if (!status) return status.error();
    Run run;
    run.header = std::move(*header);
    run.status = *status;
    run.results.main = group_from(root, 0, run.rounds);
    if (const auto c = root.object("compare")) {
      CompareResults compare;
      compare.label = c->text("label");
      if (const auto nested = c->object("run")) {
        compare.test = nested->text("test");
        // Unknown in runs written before nested runs carried it.
        if (nested->has("tested_range_bytes")) compare.tested_range_bytes = count_or(*nested, "tested_range_bytes");
        compare.run = group_from(*nested, 1, run.rounds);
      }
      run.results.compare = std::move(compare);
    }
    if (const auto q = root.object("qos")) run.results.qos = qos_from(*q);
    run.results.drive = drive_from(root.object("drive"));
    run.results.timeline = timeline_from(root);
    return run;
  } catch (const DecodeError& e) {
    return Error{ErrorReason::decode, e.what()};
  } catch (const json::exception& e) {
    return Error{ErrorReason::decode, e.what()};
  }
}

}  // namespace nvmond
