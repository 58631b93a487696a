#include "report/run_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>

#include "report/markup.hpp"
#include "report/round_window.hpp"

namespace nvmond::report {

namespace {

const std::string kSteadyColor = "#2ca02c";
const std::string kThrottleColor = "#d62728";
const std::string kBandColor = "#0072b2";
const std::string kPreconditioningColor = "#7f7f7f";  // apart from the elements' palette

double round_value(const RoundRecord& r, bool bandwidth) { return bandwidth ? r.bytes_per_second : r.iops; }

// p99.999 is optional (rounds stored before it was measured): a gap then.
struct Quantile {
  const char* name;
  double (*value)(const OpSummary&);
};
constexpr Quantile kQuantiles[] = {{"p50", [](const OpSummary& o) { return o.p50; }},
                                   {"p99", [](const OpSummary& o) { return o.p99; }},
                                   {"p99.9", [](const OpSummary& o) { return o.p999; }},
                                   {"p99.99", [](const OpSummary& o) { return o.p9999; }},
                                   {"p99.999", [](const OpSummary& o) { return o.p99999.value_or(kAbsent); }}};
bool is_p99(const Quantile& q) { return std::string_view(q.name) == "p99"; }

// Where the steady-state window lies on a per-round chart (whose x is the
// execution index): the indices of its rounds.
std::optional<IndexSpan> steady_state_span(const RunRecord& run, const SteadyStateReport& s) {
  const auto w = steady_state_rounds(s);
  if (!w) return std::nullopt;
  if (const auto span = index_span(run, *w)) return span;
  return run.rounds.empty() ? std::optional(IndexSpan{static_cast<double>(w->first), static_cast<double>(w->last)})
                            : std::nullopt;
}

// The steady states a single run's per-round chart shows: each sub-test's
// (throughput: one per block size), else the run's one.
std::vector<const SteadyStateReport*> steady_states(const RunRecord& run) {
  std::vector<const SteadyStateReport*> out;
  if (run.results->subtests.size() > 1) {
    for (const auto& t : run.results->subtests) {
      if (t.steady_state) out.push_back(&*t.steady_state);
    }
  }
  if (out.empty() && run.results->steady_state) out.push_back(&*run.results->steady_state);
  return out;
}

// How much of a steady state a chart draws: the window only (overlaid runs,
// whose per-run averages and fits would bury the data; latency axes), the
// window and its fitted line (one sub-test of several), or also the window
// average and its ±10 %/±20 % bands.
enum class SteadyDetail { window, fit, bands };

void add_steady_state(Chart& c, const RunRecord& run, const SteadyStateReport& s, const std::string& color,
                      const std::string& label, SteadyDetail detail) {
  const auto span = steady_state_span(run, s);
  if (!span) return;
  // A span comes only from a deciding window.
  const WindowCheck& win = *window_of(s);
  const std::string who = label.empty() ? "" : label + ": ";
  c.spans.push_back({"steady-state", who + (s.verdict.reached ? "steady-state window" : "last window (not steady)"),
                     span->from, span->to, color, 0.22});
  if (detail == SteadyDetail::window) return;
  if (detail == SteadyDetail::bands && std::isfinite(win.average)) {
    c.bands.push_back({"±20 % of window average", win.average * 0.8, win.average * 1.2, kBandColor, 0.08});
    c.bands.push_back({"±10 % of window average", win.average * 0.9, win.average * 1.1, kBandColor, 0.14});
    c.lines.push_back({"window average", win.average, false, color, Dash::dashed});
  }
  if (std::isfinite(win.slope) && std::isfinite(win.intercept)) {
    // The line is fitted over the tracked element's rounds: drawn from its
    // first round in the window to its last, at their places on the chart.
    const RoundWindow w = *steady_state_rounds(s);
    const std::string& element = tracked_element(s);
    const auto x0 = index_of(run, w, win.first, element), x1 = index_of(run, w, win.last, element);
    const auto from = static_cast<double>(win.first), to = static_cast<double>(win.last);
    Series fit{"fitted line over window", "#000000", {}, Dash::solid, false, 2.6};
    fit.points = {{x0.value_or(span->from), win.intercept + win.slope * from},
                  {x1.value_or(span->to), win.intercept + win.slope * to}};
    c.series.push_back(std::move(fit));
  }
}

// When a run ends: the latest of ended_at, the timeline and the rounds.
double run_end(const RunRecord& run) {
  double end = std::isfinite(run.duration_s) ? run.duration_s : 0.0;
  if (!run.timeline().empty()) end = std::max(end, run.timeline().back().t);
  for (const RoundRecord* r : run.rounds) {
    const double start = run.offset(*r);
    if (std::isfinite(start) && std::isfinite(r->seconds)) end = std::max(end, start + r->seconds);
  }
  return end;
}

Chart chart(const std::string& id, std::string title, Axis x, Axis y) {
  Chart c;
  c.id = id;
  c.title = std::move(title);
  c.x = std::move(x);
  c.y = std::move(y);
  return c;
}

// The per-round charts plot element runs in execution order at run.json's
// `index` (from 0): not a PTS round number, which the title must not suggest.
Axis round_axis() { return Axis{"Element run, in order (run.json index)", ScaleKind::linear, TickFormat::plain}; }

Axis latency_axis() { return Axis{"Latency (log scale)", ScaleKind::log10, TickFormat::seconds}; }

Axis rate_axis(bool bandwidth) {
  return bandwidth ? Axis{"Throughput", ScaleKind::linear, TickFormat::bytes_per_second}
                   : Axis{"IOPS (operations/s)", ScaleKind::linear, TickFormat::si};
}

bool has_values(const Series& s) {
  return std::any_of(s.points.begin(), s.points.end(), [](const Point& p) { return std::isfinite(p.y); });
}

// Both time charts get the same x range and plot edge, so they align.
Chart time_chart(const std::vector<RunView>& runs, const std::string& id, const std::string& title) {
  Chart c = chart(id, title, Axis{"Elapsed time (h:mm)", ScaleKind::linear, TickFormat::elapsed}, Axis{});
  c.height = 330;
  double end = 0;
  for (const auto& v : runs) end = std::max(end, run_end(*v.run));
  c.x.max = resolve_axis(c.x, 0.0, end > 0 ? end : 1.0).hi;
  c.x.min = 0.0;
  c.plot_left = 124;  // room for "2.5 GB/s" and "100 °C" tick labels
  return c;
}

void add_throttle_spans(Chart& c, const RunView& v, bool overlaid) {
  const DriveResults* drive = v.run->drive();
  if (!drive) return;
  const double end = run_end(*v.run);
  for (const auto& e : drive->throttle_events) {
    const double start = v.run->offset(e.start), stop = v.run->offset(e.end);
    if (std::isnan(start)) continue;
    const std::string label = overlaid ? v.label + ": throttling" : "thermal throttling";
    c.spans.push_back(
        {"throttle", label, start, std::isnan(stop) ? end : stop, overlaid ? v.color : kThrottleColor, 0.18});
  }
}

}  // namespace

bool tracks_bandwidth(const RunRecord& run) {
  if (const auto& s = run.results->steady_state; s && !s->tracked.empty()) {
    return s->tracked.front().variable != TrackedVariable::iops;
  }
  const auto kind = test_kind(run);
  return kind == TestKind::throughput || kind == TestKind::slc || kind == TestKind::precondition ||
         kind == TestKind::purge;
}

namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A single run's per-round chart draws each of a few elements as its own
// line (throughput's reads and writes per block size); of a matrix, the
// tracked variables' elements, as PTS convergence plots do (the IOPS test:
// three of 56). Empty: one line through every round, as a one-element run
// needs, and a many-element run that tracks nothing falls back to.
std::vector<std::string> charted_elements(const RunRecord& run) {
  constexpr std::size_t kAllBelow = 5;
  std::vector<std::string> labels;
  for (const RoundRecord* r : run.rounds) {
    if (is_test_round(*r) && has_element(*r) && !contains(labels, r->label)) labels.push_back(r->label);
  }
  if (labels.size() <= 1) return {};
  if (labels.size() < kAllBelow) return labels;
  std::vector<std::string> tracked;
  const auto& s = run.results->steady_state;
  if (!s) return tracked;
  for (const auto& v : s->tracked) {
    if (contains(labels, v.element) && !contains(tracked, v.element)) tracked.push_back(v.element);
  }
  if (tracked.empty() && contains(labels, tracked_element(*s))) tracked.push_back(tracked_element(*s));
  return tracked;
}

// The test rounds of one run between two execution indices, one line per
// charted element (or one line); a log scale when the lines lie more than
// an order of magnitude apart, so that 1 MiB IOPS do not lie flat under
// 4 KiB's.
void add_round_lines(Chart& c, const RunRecord& run, bool bw, double from, double to) {
  const auto elements = charted_elements(run);
  std::vector<Series> lines;
  if (elements.empty()) lines.push_back(Series{bw ? "throughput" : "IOPS", palette(0), {}, Dash::solid, false, 1.6});
  for (std::size_t i = 0; i < elements.size(); ++i) {
    lines.push_back(Series{elements[i], palette(i), {}, Dash::solid, false, 1.6});
  }
  for (const RoundRecord* r : run.rounds) {
    const auto index = static_cast<double>(r->index);
    if (!is_test_round(*r) || index < from || index > to) continue;
    std::size_t line = 0;
    if (!elements.empty()) {
      if (!has_element(*r)) continue;
      const auto at = std::find(elements.begin(), elements.end(), r->label);
      if (at == elements.end()) continue;
      line = static_cast<std::size_t>(at - elements.begin());
    }
    lines[line].points.push_back({index, round_value(*r, bw)});
  }
  double lo = INFINITY, hi = 0;
  for (auto& s : lines) {
    s.markers = s.points.size() <= 60;
    for (const auto& p : s.points) {
      if (std::isfinite(p.y) && p.y > 0) lo = std::min(lo, p.y), hi = std::max(hi, p.y);
    }
    if (!s.points.empty()) c.series.push_back(std::move(s));
  }
  if (elements.size() > 1 && hi > 20 * lo) {
    c.y.scale = ScaleKind::log10;
    c.y.title += " (log scale)";
  }
}

// Preconditioning rounds, their stages apart (a throughput run preconditions
// each sub-test): no line joins one stage's last round to the next's first.
Series preconditioning_line(const RunRecord& run, std::string name, const std::string& color, bool bw) {
  Series pre{std::move(name), color, {}, Dash::dotted};
  int stage = 0;  // the last point's, once there is one
  for (const RoundRecord* r : run.rounds) {
    // Dedicated histogram rounds and CBW's pre-writes between rounds are
    // neither preconditioning nor the sweep.
    const auto phase = phase_from_name(r->phase);
    if (is_test_round(*r) || phase == Phase::histogram || phase == Phase::prewrite) continue;
    if (!pre.points.empty() && r->stage != stage) pre.points.push_back({static_cast<double>(r->index), NAN});
    stage = r->stage;
    pre.points.push_back({static_cast<double>(r->index), round_value(*r, bw)});
  }
  pre.markers = pre.points.size() <= 60;  // a stage of one round is a point, not a line
  return pre;
}

}  // namespace

std::optional<Chart> throughput_per_round(const std::vector<RunView>& runs, const std::string& id) {
  if (runs.empty()) return std::nullopt;
  const bool bw = tracks_bandwidth(*runs.front().run);
  const bool overlaid = runs.size() > 1;
  Chart c = chart(id, bw ? "Throughput per round" : "IOPS per round", round_axis(), rate_axis(bw));
  for (const auto& v : runs) {
    Series pre = overlaid ? preconditioning_line(*v.run, v.label + " (preconditioning)", v.color, bw)
                          : preconditioning_line(*v.run, "preconditioning", kPreconditioningColor, bw);
    if (!pre.points.empty()) c.series.push_back(std::move(pre));
    if (overlaid) {
      Series s{v.label, v.color, {}, Dash::solid, false, 1.6};
      for (const RoundRecord* r : v.run->rounds) {
        if (is_test_round(*r)) s.points.push_back({static_cast<double>(r->index), round_value(*r, bw)});
      }
      s.markers = s.points.size() <= 60;
      if (!s.points.empty()) c.series.push_back(std::move(s));
    } else {
      add_round_lines(c, *v.run, bw, -INFINITY, INFINITY);
    }
    if (overlaid) {
      if (const auto& s = v.run->results->steady_state)
        add_steady_state(c, *v.run, *s, v.color, v.label, SteadyDetail::window);
      continue;
    }
    const auto states = steady_states(*v.run);
    for (const SteadyStateReport* s : states) {
      add_steady_state(c, *v.run, *s, kSteadyColor, "", states.size() > 1 ? SteadyDetail::fit : SteadyDetail::bands);
    }
  }
  const bool any = std::any_of(runs.begin(), runs.end(), [](const RunView& v) {
    return std::any_of(v.run->rounds.begin(), v.run->rounds.end(),
                       [](const RoundRecord* r) { return is_test_round(*r); });
  });
  if (!any) return std::nullopt;
  return c;
}

std::optional<Chart> steady_state_window(const RunRecord& run, const SteadyStateReport& s, const std::string& id,
                                         const std::string& title) {
  const auto span = steady_state_span(run, s);
  if (!span) return std::nullopt;
  const double len = span->to - span->from + 1;
  double first = span->from;
  for (const RoundRecord* r : run.rounds) first = std::min(first, static_cast<double>(r->index));
  const double from = std::max(first, span->from - len), to = span->to + 1;
  const bool bw = tracks_bandwidth(run);
  Chart c = chart(id, title, round_axis(), rate_axis(bw));
  c.height = 340;
  c.x.min = from;
  c.x.max = to;
  add_round_lines(c, run, bw, from, to);
  if (c.series.empty()) return std::nullopt;
  add_steady_state(c, run, s, kSteadyColor, "", SteadyDetail::bands);
  return c;
}

std::optional<Chart> iops_over_data_written(const std::vector<RunView>& runs, const std::string& id) {
  const bool overlaid = runs.size() > 1;
  Chart c = chart(id, "IOPS over data written", Axis{"Total data written", ScaleKind::linear, TickFormat::bytes},
                  rate_axis(false));
  for (const auto& v : runs) {
    Series s{overlaid ? v.label : "IOPS", v.color, {}, Dash::solid, false, 1.6};
    double written = 0;
    for (const RoundRecord* r : v.run->rounds) {
      written += static_cast<double>(r->bytes_written);
      if (is_test_round(*r)) s.points.push_back({written, r->iops});
    }
    s.markers = s.points.size() <= 60;
    // Rounds that wrote nothing (a read test; a run.json from before rounds
    // counted their writes) have nothing to plot against.
    if (written > 0 && has_values(s)) c.series.push_back(std::move(s));
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

namespace {

// Every quantile of writes (solid) and reads (dashed), round after round.
void add_quantile_lines(Chart& c, const RunRecord& run) {
  for (const char* op_name : {"write", "read"}) {
    std::size_t qi = 0;
    for (const auto& q : kQuantiles) {
      Series s{std::string(op_name) + " " + q.name, palette(qi++), {}, op_name[0] == 'w' ? Dash::solid : Dash::dashed};
      for (const RoundRecord* r : run.rounds) {
        if (const OpSummary* op = op_of(r->ops, op_name[0] == 'w' ? IoOp::write : IoOp::read))
          s.points.push_back({double(r->index), q.value(*op)});
      }
      const bool plottable = std::any_of(s.points.begin(), s.points.end(), [](const Point& p) { return p.y > 0; });
      if (plottable) c.series.push_back(std::move(s));
    }
  }
}

}  // namespace

std::optional<Chart> latency_per_round(const std::vector<RunView>& runs, const std::string& id) {
  const bool overlaid = runs.size() > 1;
  Chart c = chart(id, "Latency per round", round_axis(), latency_axis());
  for (const auto& v : runs) {
    if (overlaid) {
      for (const auto& q : {kQuantiles[1], kQuantiles[2]}) {
        Series s{v.label + " " + q.name, v.color, {}, is_p99(q) ? Dash::dashed : Dash::solid};
        for (const RoundRecord* r : v.run->rounds) {
          if (const OpSummary* op = primary_op(r->ops)) s.points.push_back({double(r->index), q.value(*op)});
        }
        if (!s.points.empty()) c.series.push_back(std::move(s));
      }
      continue;
    }
    // A matrix's rounds alternate between elements: one line per charted
    // element (its write latency, else its read), p99 dashed and p99.9 solid.
    if (const auto elements = charted_elements(*v.run); !elements.empty()) {
      for (std::size_t i = 0; i < elements.size(); ++i) {
        for (const auto& q : {kQuantiles[1], kQuantiles[2]}) {
          Series s{elements[i] + " " + q.name, palette(i), {}, is_p99(q) ? Dash::dashed : Dash::solid};
          for (const RoundRecord* r : v.run->rounds) {
            if (!is_test_round(*r) || !has_element(*r) || r->label != elements[i]) continue;
            if (const OpSummary* op = primary_op(r->ops)) s.points.push_back({double(r->index), q.value(*op)});
          }
          s.markers = s.points.size() <= 60;
          if (has_values(s)) c.series.push_back(std::move(s));
        }
      }
    } else {
      add_quantile_lines(c, *v.run);
    }
    for (const SteadyStateReport* s : steady_states(*v.run)) {
      add_steady_state(c, *v.run, *s, kSteadyColor, "", SteadyDetail::window);
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::string latency_per_round_note(const RunRecord& run) {
  return charted_elements(run).empty() ? "Quantiles per round; writes solid, reads dashed."
                                       : "Per element: its writes, else its reads; p99 dashed, p99.9 solid.";
}

std::optional<Chart> throughput_over_time(const std::vector<RunView>& runs, const std::string& id) {
  const bool overlaid = runs.size() > 1;
  Chart c = time_chart(runs, id, "Throughput over time");
  c.y = rate_axis(true);
  for (const auto& v : runs) {
    Series s{overlaid ? v.label : "throughput", v.color, {}};
    if (!v.run->timeline().empty()) {
      for (const auto& p : v.run->timeline()) s.points.push_back({p.t, p.bytes_per_second});
    } else {
      for (const RoundRecord* r : v.run->rounds) {
        s.points.push_back({v.run->offset(*r) + r->seconds / 2, r->bytes_per_second});
      }
    }
    if (has_values(s)) c.series.push_back(std::move(s));
    add_throttle_spans(c, v, overlaid);
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::optional<Chart> temperature_over_time(const std::vector<RunView>& runs, const std::string& id) {
  const bool overlaid = runs.size() > 1;
  Chart c = time_chart(runs, id, "Composite temperature and throttling");
  c.y = Axis{"Composite temperature (°C)", ScaleKind::linear, TickFormat::plain};
  c.y.include_zero = false;
  std::vector<double> seen;
  for (const auto& v : runs) {
    Series s{overlaid ? v.label : "composite temperature", v.color, {}};
    if (!v.run->timeline().empty()) {
      for (const auto& p : v.run->timeline()) s.points.push_back({p.t, p.temperature_c.value_or(kAbsent)});
    } else {
      for (const RoundRecord* r : v.run->rounds) {
        if (r->temp_min_c && r->temp_max_c) s.points.push_back({v.run->offset(*r) + r->seconds / 2, *r->temp_max_c});
      }
    }
    if (has_values(s)) c.series.push_back(std::move(s));
    add_throttle_spans(c, v, overlaid);
    const auto& t = v.run->header.target;
    for (const auto& [name, known, color] :
         {std::tuple{"WCTEMP", t.warning_temp_c, "#e69f00"}, std::tuple{"CCTEMP", t.critical_temp_c, "#b00020"}}) {
      if (!known || !std::isfinite(*known) || std::find(seen.begin(), seen.end(), *known) != seen.end()) continue;
      const double value = *known;
      seen.push_back(value);
      c.lines.push_back({std::string(name) + " " + num(value) + " °C", value, false, color, Dash::dashed});
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::optional<Chart> latency_vs_queue_depth(const RunRecord& run, const std::string& id) {
  // One line per block size and mix (and op), over total outstanding I/Os.
  std::map<std::string, std::vector<const ElementResult*>> groups;
  if (run.results->elements) {
    for (const auto& e : *run.results->elements) {
      groups[block_size(e.bs) + " " + num(e.read_pct) + "/" + num(100 - e.read_pct)].push_back(&e);
    }
  }
  Chart c = chart(id, "Latency vs queue depth",
                  Axis{"Outstanding I/Os (threads × queue depth, log scale)", ScaleKind::log10, TickFormat::plain},
                  latency_axis());
  std::size_t color = 0;
  for (const auto& [name, elems] : groups) {
    for (const char* op_name : {"read", "write"}) {
      Series mean{name + " " + op_name + " mean", palette(color), {}, Dash::solid, true};
      Series tail{name + " " + op_name + " p99.9", palette(color), {}, Dash::dashed, true};
      for (const auto* e : elems) {
        const OpSummary* op = op_of(e->ops, op_name[0] == 'r' ? IoOp::read : IoOp::write);
        if (!op) continue;
        const double qd = static_cast<double>(e->threads) * static_cast<double>(e->queue_depth);
        mean.points.push_back({qd, op->mean});
        tail.points.push_back({qd, op->p999});
      }
      if (mean.points.empty()) continue;
      ++color;
      for (auto* s : {&mean, &tail}) {
        std::sort(s->points.begin(), s->points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
        c.series.push_back(std::move(*s));
      }
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::optional<Chart> latency_histogram(const RunRecord& run, const std::string& id) {
  const auto& histogram = run.results->histogram;
  if (!histogram || histogram->counts.empty() || histogram->bounds_s.empty()) return std::nullopt;
  Chart c = chart(id, "Latency distribution", Axis{"Latency bucket (upper bound)"},
                  Axis{"I/Os (log scale)", ScaleKind::log10, TickFormat::si});
  const auto& h = *histogram;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const bool overflow = i >= h.bounds_s.size();
    c.bars.push_back({overflow ? "> " + seconds(h.bounds_s.back()) : "≤ " + seconds(h.bounds_s[i]),
                      static_cast<double>(h.counts[i])});
  }
  return c;
}

namespace {

// A sweep point of the demand-intensity curve: its load and where it lies.
struct LoadPoint {
  double threads, queue_depth;
  Point at;  // IOPS, mean response time of every I/O of the point
};

std::vector<LoadPoint> sweep_points(const RunRecord& run) {
  std::vector<LoadPoint> out;
  if (!run.results->elements) return out;
  for (const auto& e : *run.results->elements) {
    // Reads and writes together: the mean over every I/O of the point.
    double ops = 0, weighted = 0;
    for (const IoOp o : {IoOp::read, IoOp::write}) {
      const OpSummary* op = op_of(e.ops, o);
      if (!op || !std::isfinite(op->mean) || op->ops == 0) continue;
      ops += static_cast<double>(op->ops);
      weighted += static_cast<double>(op->ops) * op->mean;
    }
    if (ops > 0 && std::isfinite(e.iops)) {
      out.push_back({static_cast<double>(e.threads), static_cast<double>(e.queue_depth), {e.iops, weighted / ops}});
    }
  }
  return out;
}

}  // namespace

std::optional<Chart> demand_intensity(const std::vector<RunView>& runs, const std::string& id) {
  Chart c = chart(id, "Demand intensity", rate_axis(false), latency_axis());
  c.x.title = "IOPS";
  c.y.title = "Mean response time (log scale)";
  const bool overlaid = runs.size() > 1;
  std::size_t color = 0;
  for (const auto& v : runs) {
    const auto& histograms = v.run->results->response_time_histograms;
    if (!histograms || histograms->empty()) continue;
    auto points = sweep_points(*v.run);
    if (overlaid) {
      // One line per run, through its points as the outstanding I/Os
      // (threads x queue depth) rise: seven lines a run would hide the runs.
      auto load = [](const LoadPoint& p) { return std::make_tuple(p.threads * p.queue_depth, p.threads); };
      std::stable_sort(points.begin(), points.end(),
                       [&load](const LoadPoint& a, const LoadPoint& b) { return load(a) < load(b); });
      Series s{v.label, v.color, {}, Dash::solid, true};
      for (const auto& p : points) s.points.push_back(p.at);
      if (!s.points.empty()) c.series.push_back(std::move(s));
      continue;
    }
    std::map<double, std::vector<Point>> by_threads;
    for (const auto& p : points) by_threads[p.threads].push_back(p.at);
    for (auto it = by_threads.rbegin(); it != by_threads.rend(); ++it) {
      Series s{"T" + num(it->first, 0), palette(color++), std::move(it->second), Dash::solid, true};
      std::sort(s.points.begin(), s.points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
      c.series.push_back(std::move(s));
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::optional<Chart> demand_variation(const RunRecord& run, const std::string& id) {
  const auto& histograms = run.results->response_time_histograms;
  if (!histograms || histograms->empty()) return std::nullopt;
  Chart c = chart(id, "Demand variation",
                  Axis{"Queue depth per thread (log scale)", ScaleKind::log10, TickFormat::plain}, rate_axis(false));
  std::map<double, std::vector<Point>> by_threads;
  for (const auto& p : sweep_points(run)) by_threads[p.threads].push_back({p.queue_depth, p.at.x});
  std::size_t color = 0;
  for (auto it = by_threads.rbegin(); it != by_threads.rend(); ++it) {
    Series s{"T" + num(it->first, 0), palette(color++), std::move(it->second), Dash::solid, true};
    std::sort(s.points.begin(), s.points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    c.series.push_back(std::move(s));
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::optional<Chart> point_histogram(const nvmond::PointHistogram& p, bool reads, const std::string& id) {
  const auto& op = p.ops[static_cast<int>(reads ? IoOp::read : IoOp::write)];
  if (!op || op->counts.empty() || p.bounds_s.empty()) return std::nullopt;
  Chart c = chart(
      id, fmt::format("{} IOPS point, {}: {} ({} IOPS)", p.point, reads ? "reads" : "writes", p.label, si(p.iops)),
      Axis{"Response time bucket (upper bound)"}, Axis{"I/Os (log scale)", ScaleKind::log10, TickFormat::si});
  for (std::size_t i = 0; i < op->counts.size(); ++i) {
    const bool overflow = i >= p.bounds_s.size();
    c.bars.push_back({overflow ? "> " + seconds(p.bounds_s.back()) : "≤ " + seconds(p.bounds_s[i]),
                      static_cast<double>(op->counts[i])});
  }
  return c;
}

std::optional<Chart> slc_fill(const std::vector<RunView>& runs, const std::string& id) {
  const bool overlaid = runs.size() > 1;
  Chart c = chart(id, "SLC cache fill",
                  Axis{"Written since the start of the fill", ScaleKind::linear, TickFormat::bytes}, rate_axis(true));
  c.y.title = "Sequential write throughput";
  for (const auto& v : runs) {
    const auto& result = v.run->results->slc;
    if (!result || result->curve.empty()) continue;
    const SlcResult& slc = *result;
    Series s{overlaid ? v.label : "write throughput", v.color, {}};
    for (const auto& p : slc.curve) s.points.push_back({static_cast<double>(p.written_bytes), p.bytes_per_second});
    c.series.push_back(std::move(s));
    const std::string who = overlaid ? v.label + ": " : "";
    // The cache and the rates around it are known only where a drop was found.
    if (slc.found) {
      const auto cache = static_cast<double>(slc.cache_bytes);
      c.lines.push_back(
          {who + "detected SLC cache " + bytes(cache), cache, true, overlaid ? v.color : "#d55e00", Dash::dashed});
    }
    if (!overlaid && slc.found) {
      if (std::isfinite(slc.before_bytes_per_second)) {
        c.lines.push_back({"in cache " + bytes_per_second(slc.before_bytes_per_second), slc.before_bytes_per_second,
                           false, "#009e73", Dash::dotted});
      }
      if (std::isfinite(slc.after_bytes_per_second)) {
        c.lines.push_back({"after the cache " + bytes_per_second(slc.after_bytes_per_second),
                           slc.after_bytes_per_second, false, "#cc79a7", Dash::dotted});
      }
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

}  // namespace nvmond::report

namespace nvmond::report {

std::vector<StageRounds> rounds_by_stage(const RunRecord& run) {
  std::vector<StageRounds> out;
  for (const RoundRecord* r : run.rounds) {
    if (!is_test_round(*r)) continue;
    if (out.empty() || out.back().stage != r->stage) {
      std::string label = has_element(*r) ? r->label : "stage " + num(r->stage, 0);
      if (test_kind(run) == TestKind::xsr) label = "AG" + std::to_string(out.size() + 1) + " " + label;
      out.push_back({r->stage, std::move(label), {}});
    }
    out.back().rounds.push_back(r);
  }
  return out;
}

std::optional<Chart> rate_over_time_by_stage(const std::vector<RunView>& runs, const std::string& id) {
  if (runs.empty()) return std::nullopt;
  const bool overlaid = runs.size() > 1;
  const bool hir = test_kind(*runs.front().run) == TestKind::hir;
  Chart c = time_chart(runs, id, hir ? "IOPS vs time, all wait states" : "Throughput vs time, all access groups");
  c.y = rate_axis(!hir);
  for (const auto& v : runs) {
    const auto stages = rounds_by_stage(*v.run);
    std::vector<Series> lines;
    auto line_for = [&](const std::string& name) -> Series& {
      for (auto& l : lines) {
        if (l.name == name) return l;
      }
      return lines.emplace_back(Series{name, overlaid ? v.color : palette(lines.size()), {}});
    };
    const auto& ss = v.run->results->steady_state;
    for (const auto& st : stages) {
      const bool baseline = st.label.ends_with(" baseline");
      const bool preconditioning = hir && ss && st.stage >= 0 && static_cast<std::size_t>(st.stage) == ss->stage;
      Series& l = line_for(overlaid          ? v.label
                           : baseline        ? "baseline (continuous writes)"
                           : preconditioning ? "to steady state (" + st.label + ")"
                                             : st.label);
      if (!l.points.empty())
        l.points.push_back({v.run->offset(*st.rounds.front()), std::nan("")});  // a break between stages
      for (const RoundRecord* r : st.rounds)
        l.points.push_back({v.run->offset(*r) + r->seconds / 2, hir ? r->iops : r->bytes_per_second});
      if (v.run != runs.front().run || st.rounds.empty()) continue;
      const RoundRecord& last = *st.rounds.back();
      const double from = v.run->offset(*st.rounds.front());
      const double to = v.run->offset(last) + last.seconds;
      if (hir && st.label.find(" + idle ") != std::string::npos) {
        c.spans.push_back({"idle", "host idle between bursts", from, to, "#7f7f7f", 0.12});
      } else if (!hir) {
        c.spans.push_back({"group", st.label, from, to, palette(c.spans.size() + 3), 0.08});
      }
    }
    for (auto& l : lines) {
      if (has_values(l)) c.series.push_back(std::move(l));
    }
    // HIR: what the bursts recover from, the steady state's average.
    const WindowCheck* window = ss ? window_of(*ss) : nullptr;
    if (hir && !overlaid && window && std::isfinite(window->average)) {
      c.lines.push_back(
          {"steady state " + si(window->average) + " IOPS", window->average, false, "#444444", Dash::dashed});
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

}  // namespace nvmond::report
