#include "report/run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/build_info.hpp"
#include "report/html_page.hpp"
#include "report/markup.hpp"
#include "report/run_charts.hpp"
#include "report/run_summary.hpp"
#include "report/run_tables.hpp"

namespace nvmond::report {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string level_text(const RunSummary& s) {
  if (!std::isfinite(s.level)) return "–";
  return (s.bandwidth ? bytes_per_second(s.level) : si(s.level) + " IOPS") + (s.steady ? " (steady)" : "");
}

std::string temp_text(double c) { return std::isfinite(c) ? num(c) + " °C" : "–"; }
std::string throttle_text(double s) { return std::isfinite(s) ? num(s, 0) + " s" : "–"; }

// The comparison's rows, shared by the terminal and the HTML table.
std::vector<std::vector<std::string>> summary_rows(const std::vector<RunView>& views) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& v : views) {
    const auto& r = *v.run;
    std::string range = "–";
    const auto& t = r.header.target;
    if (t.tested_range_bytes > 0) {
      const auto tested = static_cast<double>(t.tested_range_bytes);
      range = bytes(tested);
      if (t.capacity_bytes > 0)
        range += fmt::format(" ({}%)", num(100 * tested / static_cast<double>(t.capacity_bytes), 0));
    }
    for (const auto& [label, s] : summaries(r)) {
      rows.push_back({v.label, label.empty() ? r.header.test : r.header.test + " " + label, drive_name(r),
                      t.firmware.empty() ? "–" : t.firmware, range, level_text(s),
                      s.latency_of.empty() ? "–" : s.latency_of, seconds(s.p99), seconds(s.p999),
                      temp_text(s.temp_max_c), throttle_text(s.throttled_s)});
    }
  }
  return rows;
}

const std::vector<std::string> kSummaryHeader = {"Run",        "Test", "Drive", "Firmware", "Tested range", "Level",
                                                 "Latency of", "p99",  "p99.9", "Temp max", "Throttled"};
constexpr std::size_t kLatencyOfColumn = 6;

Table summary_table(const std::vector<RunView>& views) {
  Table t{"compare-summary",
          "Level: steady-state average (else mean of test rounds); latency: of the element named (the tracked one: "
          "IOPS 4KiB 0/100), writes else reads, over the measurement window",
          kSummaryHeader,
          {}};
  for (const auto& row : summary_rows(views)) {
    std::vector<Cell> cells;
    for (std::size_t i = 0; i < row.size(); ++i)
      cells.emplace_back(row[i], i >= 5 && i != kLatencyOfColumn ? "num" : "");
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::vector<RunView> compare_views(const std::vector<RunRecord>& runs) {
  std::vector<RunView> views;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    // Short legend text; the summary table maps it to the drive and firmware.
    const auto& r = runs[i];
    views.push_back({&r,
                     fmt::format("#{} {} {}", i + 1, r.header.test,
                                 r.header.target.serial.empty() ? r.header.target.path : r.header.target.serial),
                     palette(i)});
  }
  return views;
}

// The max, mid and min IOPS points of demand-intensity runs (CBW, DIRTH)
// side by side: where each drive peaks, and what its response times are
// there. nullopt when no run has them.
std::optional<Table> iops_points_table(const std::vector<RunView>& views) {
  Table t{"compare-iops-points",
          "Demand-intensity sweep: the points with the highest, middle and lowest IOPS over the measurement window",
          {"Run", "Point", "Element", "IOPS", "Read mean", "Read max", "Write mean", "Write max"},
          {}};
  auto op_cells = [](const std::optional<PointOpHistogram>& op, std::vector<Cell>& row) {
    row.emplace_back(op ? seconds(op->mean_s) : "–", "num");
    row.emplace_back(op ? seconds(op->max_s) : "–", "num");
  };
  for (const auto& v : views) {
    const auto& points = v.run->results->response_time_histograms;
    if (!points) continue;
    for (const auto& p : *points) {
      std::vector<Cell> row{v.label, p.point, p.label, Cell(si(p.iops), "num")};
      op_cells(p.ops[static_cast<int>(IoOp::read)], row);
      op_cells(p.ops[static_cast<int>(IoOp::write)], row);
      t.rows.push_back(std::move(row));
    }
  }
  if (t.rows.empty()) return std::nullopt;
  return t;
}

// The per-round and over-time charts, for one run or overlaid.
void add_overlay_charts(HtmlPage& page, const std::vector<RunView>& views, const std::string& prefix) {
  if (auto c = demand_intensity(views, prefix + "demand-intensity")) page.chart(*c);
  if (auto c = throughput_per_round(views, prefix + "throughput")) page.chart(*c);
  if (auto c = latency_per_round(views, prefix + "latency")) page.chart(*c, "p99 dashed, p99.9 solid.");
  if (auto c = throughput_over_time(views, prefix + "throughput-time")) page.chart(*c);
  if (auto c = temperature_over_time(views, prefix + "temperature")) page.chart(*c);
  if (auto c = slc_fill(views, prefix + "slc")) page.chart(*c);
  // HIR and XSR runs compared: their rates over time, one line per run.
  const bool staged = std::all_of(views.begin(), views.end(), [&](const RunView& v) {
    const auto kind = test_kind(*v.run);
    return kind == test_kind(*views.front().run) && (kind == TestKind::hir || kind == TestKind::xsr);
  });
  if (staged && !views.empty()) {
    if (auto c = rate_over_time_by_stage(views, prefix + "rate-by-stage")) page.chart(*c);
  }
}

void add_result_sections(HtmlPage& page, const RunRecord& run, const std::vector<RunView>& self) {
  if (auto c = throughput_per_round(self, "throughput")) {
    page.section("throughput", c->title);
    page.chart(*c, "Steady-state window shaded green; band: ±10 % and ±20 % of the window average.");
    const GroupResults& g = *run.results;
    // One sub-test is the run's own steady state; run.json writes them only when several.
    if (g.subtests.size() > 1) {
      // Each sub-test's verdict and window; the last keeps the single-test ids.
      for (std::size_t i = 0; i < g.subtests.size(); ++i) {
        const SubtestResult& t = g.subtests[i];
        if (!t.steady_state) continue;
        page.facts(steady_state_facts(*t.steady_state, t.window, t.label));
        const std::string id = i + 1 == g.subtests.size() ? "steady-state" : "steady-state-" + std::to_string(i);
        if (auto w = steady_state_window(run, *t.steady_state, id, "Steady-state window: " + t.label)) page.chart(*w);
      }
    } else if (g.steady_state) {
      page.facts(steady_state_facts(*g.steady_state, g.measurement_window));
      if (auto w = steady_state_window(run, *g.steady_state, "steady-state", "Steady-state window")) page.chart(*w);
    }
    if (test_kind(run) == TestKind::wsat) {
      if (auto d = iops_over_data_written(self, "iops-written")) {
        page.chart(*d, "The same rounds against the data written since the run began (TB written).");
      }
    }
  }
  if (const auto kind = test_kind(run); kind == TestKind::hir || kind == TestKind::xsr) {
    if (auto c = rate_over_time_by_stage(self, "rate-by-stage")) {
      const bool hir = kind == TestKind::hir;
      page.section("stages", hir ? "Host idle recovery" : "Cross stimulus recovery");
      page.chart(*c, hir ? "One point per burst at its time; grey: the wait states, each burst followed by host "
                           "idle; between them the return to baseline."
                         : "One point per round at its time; shaded: each access group.");
      if (auto t = stage_table(run)) page.table(*t);
    }
  }
  if (auto c = latency_per_round(self, "latency")) {
    page.section("latency", "Latency per round");
    page.chart(*c, latency_per_round_note(run));
  }
  // Throughput over time only beside the temperature: alone it repeats the per-round chart.
  auto temp = temperature_over_time(self, "temperature");
  auto throttles = throttle_table(run);
  if (temp || throttles) {
    auto tp = throughput_over_time(self, "throughput-time");
    page.section("thermal", "Temperature and throttling");
    if (tp) page.chart(*tp);
    if (temp) page.chart(*temp, "Both charts share one time axis; throttle events shaded red.");
    if (throttles) page.table(*throttles);
  }
  auto matrix = iops_matrix(run);
  auto elements = element_table(run);
  auto vqd = test_kind(run) == TestKind::vqd ? latency_vs_queue_depth(run, "latency-qd") : std::nullopt;
  if (matrix || elements || vqd) {
    page.section("elements", matrix ? "IOPS matrix and latency" : "Throughput and latency");
    if (matrix) page.table(*matrix);
    if (vqd) page.chart(*vqd, "Mean solid, p99.9 dashed.");
    if (elements) page.table(*elements);
  }
  if (auto c = demand_intensity(self, "demand-intensity")) {
    page.section("demand-intensity", "Demand intensity and response-time histograms");
    page.chart(*c,
               "The sweep's points over its measurement window; one line per thread count, queue depth rising "
               "to the right.");
    if (auto v = demand_variation(run, "demand-variation")) page.chart(*v, "The same points: IOPS by queue depth.");
    if (const auto& points = run.results->response_time_histograms) {
      for (const auto& p : *points) {
        for (const bool reads : {true, false}) {
          if (auto h = point_histogram(p, reads, "rt-histogram-" + p.point + (reads ? "-read" : "-write"))) {
            // point_histogram draws an op only when the point has it.
            const PointOpHistogram& op = *p.ops[static_cast<int>(reads ? IoOp::read : IoOp::write)];
            const std::string from = p.source == "dedicated round" && p.seconds && std::isfinite(*p.seconds)
                                         ? " From a dedicated " + num(*p.seconds, 0) + " s round after the sweep."
                                     : p.source == "sweep window" ? " From the sweep's measurement-window rounds."
                                                                  : "";
            page.chart(*h, "Mean " + seconds(op.mean_s) + ", max " + seconds(op.max_s) + "." + from);
          }
        }
      }
    }
  }
  if (auto c = latency_histogram(run, "histogram")) {
    page.section("histogram", "Latency distribution");
    page.chart(*c);
  }
  if (auto c = slc_fill(self, "slc")) {
    page.section("slc", "SLC cache");
    page.chart(*c);
  }
}

}  // namespace

std::string render_run_report(const RunRecord& run, const TestBases& bases) {
  const RunHeader& h = run.header;
  const std::string title = upper(h.test.empty() ? "run" : h.test) + " report — " + drive_name(run);
  HtmlPage page(title);
  const std::string status = run.status ? std::string(to_text(*run.status)) : "status unknown";
  // Which specification's conditions the run was under, where it recorded
  // them (runs from before profiles were all PTS-E's and say nothing), or
  // what a test that is not a PTS test rests on.
  const std::string basis = test_basis_text(run, bases);
  page.heading(title, "Run " + run_id_text(run) + " · " + status + (basis.empty() ? "" : " · " + basis) + " · " +
                          h.started_at + (h.ended_at ? " → " + *h.ended_at : ""));
  if (!h.conditions.empty()) {
    page.paragraph(is_pts_test(run, bases)
                       ? "NON-CONFORMANT — this run departed from the PTS as follows"
                       : "Conditions — not a PTS test, so no conformance is claimed; it ran with these",
                   "verdict fail conditions");
    Facts conditions;
    for (const auto& c : h.conditions) conditions.emplace_back(c.name, c.detail);
    page.facts(conditions);
  }
  page.section("run", "Drive and test");
  page.facts(drive_facts(run));
  page.subheading("Test");
  page.facts(test_facts(run, bases));
  if (!h.parameters.empty()) {
    page.subheading("Parameters");
    page.facts(Facts(h.parameters.begin(), h.parameters.end()));
  }
  const std::vector<RunView> self{{&run, "", palette(0)}};
  add_result_sections(page, run, self);
  if (const QosResults* qos = run.qos()) {
    page.section("qos", "Declared QoS");
    page.verdict(qos->pass, qos->pass ? "every declared latency limit held" : "a declared latency limit was exceeded");
    if (auto t = qos_table(run)) page.table(*t);
  }
  if (run.compare) {
    const std::string label = run.compare_label.empty() ? "compared run" : run.compare_label;
    page.section("compare", "Full range vs " + label);
    const std::vector<RunView> both{{&run, "full range", palette(0)}, {run.compare.get(), label, palette(1)}};
    page.table(summary_table(both));
    add_overlay_charts(page, both, "compare-");
  }
  const auto wear = wear_facts(run);
  auto smart = smart_table(run);
  if (!wear.empty() || smart) {
    page.section("wear", "Wear and drive health");
    page.facts(wear);
    if (smart) page.table(*smart);
  }
  page.paragraph("Generated by nvmonctl " + std::string(nvmond::build::kVersion) + " from " + run.source + ".", "note");
  return page.finish();
}

std::string render_compare_report(const std::vector<RunRecord>& runs) {
  HtmlPage page("Run comparison");
  page.heading("Run comparison", std::to_string(runs.size()) + " runs, one colour per run");
  const auto views = compare_views(runs);
  page.section("summary", "Summary");
  page.table(summary_table(views));
  if (auto t = iops_points_table(views)) page.table(*t);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    page.paragraph(views[i].label + ": " + runs[i].source, "note");
  }
  page.section("charts", "Charts");
  add_overlay_charts(page, views, "");
  page.paragraph("Generated by nvmonctl " + std::string(nvmond::build::kVersion) + ".", "note");
  return page.finish();
}

std::string compare_table_text(const std::vector<RunRecord>& runs) {
  const auto rows = summary_rows(compare_views(runs));
  std::vector<std::size_t> width(kSummaryHeader.size(), 0);
  auto glyphs = [](const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  for (std::size_t i = 0; i < width.size(); ++i) {
    width[i] = glyphs(kSummaryHeader[i]);
    for (const auto& r : rows) width[i] = std::max(width[i], glyphs(r[i]));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      out += cells[i];
      if (i + 1 < cells.size()) out += std::string(width[i] - glyphs(cells[i]) + 2, ' ');
    }
    out += '\n';
  };
  line(kSummaryHeader);
  for (const auto& r : rows) line(r);
  return out;
}

}  // namespace nvmond::report
