// The report of real simulated runs whose measured stage follows
// preconditioning rounds: the shaded steady-state window, the fitted line and
// the summary's rounds are the rounds run.json names by (stage, round), not
// the execution indices that happen to carry the same numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "pts/run_executor.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "report/run_summary.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/sim_drives.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/report/svg_probe.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

struct SimulatedRun {
  json run;
  report::RunRecord record;
  std::string page;
};

SimulatedRun simulated(const std::string& test, const ParamMap& params) {
  test::TempDir dir{"window-report"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  const SimDriveSpec spec = test::small_datacenter_drive("SN-WINDOW");
  SimTarget target(std::make_shared<DriveModel>(spec, WallTime{} + std::chrono::hours(480000)));
  RunExecutor ex(build_plan(test, params, TargetFacts{spec.capacity_bytes, 1.3}), target, *store,
                 RunOptions{test, "sim:d0", true});
  SimulatedRun out;
  const RunOutcome done = ex.run();
  EXPECT_EQ(done.status, RunStatus::completed) << (done.failure ? done.failure->message : "");
  out.run = run_json(done.run);
  std::ofstream(dir.path() + "/run.json") << out.run.dump();
  auto record = report::load_run(dir.path());
  EXPECT_TRUE(record) << record.error().message;
  if (record) out.record = *record;
  out.page = report::render_run_report(out.record, test_bases());
  return out;
}

// The rounds of run.json's `rounds` inside a window of (stage, first..last).
std::vector<const json*> rounds_in(const json& run, std::size_t stage, const json& window) {
  std::vector<const json*> in;
  for (const auto& r : run.at("rounds")) {
    const auto n = r.at("round").get<std::size_t>();
    if (r.at("stage") == stage && n >= window[0].get<std::size_t>() && n <= window[1].get<std::size_t>()) {
      in.push_back(&r);
    }
  }
  return in;
}

// The first and last execution index of a steady state's window rounds, each
// a measured round (no preconditioning round in it).
std::pair<double, double> window_indices(const json& run, const json& ss) {
  const auto in = rounds_in(run, ss.at("stage").get<std::size_t>(), ss.at("window"));
  EXPECT_FALSE(in.empty());
  double from = 1e18, to = -1;
  for (const json* r : in) {
    EXPECT_EQ(r->at("phase"), "test");
    from = std::min(from, r->at("index").get<double>());
    to = std::max(to, r->at("index").get<double>());
  }
  return {from, to};
}

// The shaded window lies over exactly the window's rounds, all measured ones
// (no preconditioning round under it).
void expect_shading_over_the_window(const SimulatedRun& s) {
  const json& ss = s.run.at("steady_state");
  const auto in = rounds_in(s.run, ss.at("stage").get<std::size_t>(), ss.at("window"));
  const auto [from, to] = window_indices(s.run, ss);
  const auto svg = report::test::svg_by_id(s.page, "throughput");
  const auto spans = report::test::tags(svg, "<rect class=\"x-span steady-state\"");
  ASSERT_EQ(spans.size(), 1U);
  EXPECT_EQ(report::test::num_attr(spans[0], "data-from"), from);
  EXPECT_EQ(report::test::num_attr(spans[0], "data-to"), to);
  // The fitted line runs between the tracked element's first and last rounds of the window.
  const auto fit = report::test::series_points(svg, "fitted line over window");
  ASSERT_EQ(fit.size(), 2U);
  const report::test::PlotX plot(svg);
  std::vector<double> tracked;
  for (const json* r : in) {
    if (r->at("element").at("label") == ss.at("element")) tracked.push_back(r->at("index").get<double>());
  }
  ASSERT_FALSE(tracked.empty());
  EXPECT_NEAR(plot.data(fit[0].first), tracked.front(), 0.05);
  EXPECT_NEAR(plot.data(fit[1].first), tracked.back(), 0.05);
}

// The summary (report header and `compare`) averages latency over the
// measurement window's rounds.
// The mean p99 of the primary operation (write, else read) over a window,
// of one element's rounds when `label` names it.
double mean_p99_over(const json& run, const json& w, const std::string& label = "") {
  double p99 = 0, n = 0;
  for (const json* r : rounds_in(run, w.at("stage").get<std::size_t>(), w.at("rounds"))) {
    if (!label.empty() && r->at("element").at("label") != label) continue;
    const json& ops = r->at("ops");
    p99 += (ops.contains("write") ? ops["write"] : ops["read"]).at("latency_s").at("p99").get<double>();
    ++n;
  }
  EXPECT_GT(n, 0);
  return n > 0 ? p99 / n : NAN;
}

// The p99 run.json's `elements` gives `label` over its measurement window
// (its writes, else its reads).
double element_p99(const json& run, const std::string& label) {
  for (const auto& e : run.at("elements")) {
    if (e.at("label") != label) continue;
    const json& ops = e.at("ops");
    return (ops.contains("write") ? ops["write"] : ops["read"]).at("latency_s").at("p99").get<double>();
  }
  ADD_FAILURE() << "no element " << label;
  return NAN;
}

// The summary's latency is the tracked element's, as run.json's `elements`
// has it over the measurement window, and the summary names it.
void expect_summary_over_the_window(const SimulatedRun& s) {
  const auto summary = report::summarize(s.record);
  const std::string element = s.run.at("steady_state").at("element");
  EXPECT_EQ(summary.p99, element_p99(s.run, element));
  EXPECT_EQ(summary.latency_of.rfind(element + " ", 0), 0U) << summary.latency_of;
}

TEST(ReportWindowOfSimulatedRuns, AThroughputRunShadesEachSubTestsMeasuredRoundsAndSummarisesTheLast) {
  const auto s = simulated("throughput", {{"round", "1m"}, {"max_rounds", "8"}});
  ASSERT_FALSE(s.run.at("preconditioning").empty());
  const json& subtests = s.run.at("subtests");
  ASSERT_EQ(subtests.size(), 2U);
  // One shaded window per sub-test (1 MiB, then 128 KiB), each over its own
  // stage's window rounds, all measured ones.
  const auto svg = report::test::svg_by_id(s.page, "throughput");
  const auto spans = report::test::tags(svg, "<rect class=\"x-span steady-state\"");
  ASSERT_EQ(spans.size(), subtests.size());
  for (std::size_t i = 0; i < subtests.size(); ++i) {
    const auto [from, to] = window_indices(s.run, subtests[i].at("steady_state"));
    EXPECT_EQ(report::test::num_attr(spans[i], "data-from"), from) << subtests[i].at("label");
    EXPECT_EQ(report::test::num_attr(spans[i], "data-to"), to) << subtests[i].at("label");
    // Each sub-test has its own close-up of its window.
    EXPECT_NE(s.page.find("Steady-state window: " + subtests[i].at("label").get<std::string>()), std::string::npos);
  }
  expect_summary_over_the_window(s);
}

// `compare` sums a throughput run up per block size: each sub-test's level is
// its own steady-state average and its latency its own window's, not the
// last sub-test's repeated.
TEST(ReportWindowOfSimulatedRuns, AThroughputRunIsSummedUpOncePerSubTest) {
  const auto s = simulated("throughput", {{"round", "1m"}, {"max_rounds", "8"}});
  const json& subtests = s.run.at("subtests");
  const auto each = report::summaries(s.record);
  ASSERT_EQ(each.size(), subtests.size());
  for (std::size_t i = 0; i < each.size(); ++i) {
    const json& t = subtests[i];
    EXPECT_EQ(each[i].label, t.at("label").get<std::string>());
    const json& ss = t.at("steady_state");
    EXPECT_EQ(each[i].summary.steady, ss.at("reached").get<bool>());
    if (ss.at("reached").get<bool>()) {
      EXPECT_NEAR(each[i].summary.level, ss.at("average").get<double>(), 1e-6) << t.at("label");
    }
    EXPECT_EQ(each[i].summary.p99, element_p99(s.run, ss.at("element"))) << t.at("label");
  }
  EXPECT_NE(each[0].summary.level, each[1].summary.level);
  const std::string table = report::compare_table_text({s.record});
  for (const auto& t : subtests) {
    EXPECT_NE(table.find("throughput " + t.at("label").get<std::string>()), std::string::npos) << table;
  }
}

// The mixed test's reduced-range run is the same drive over a share of it:
// run.json says how much, and the report's comparison names the drive and
// that range instead of the file it came from.
TEST(ReportWindowOfSimulatedRuns, AMixedRunsReducedRangeRunCarriesItsTestedRange) {
  const auto s = simulated("mixed", {{"round", "1m"}, {"max_rounds", "6"}, {"reduced_range", "0.5"}});
  const json& nested = s.run.at("compare").at("run");
  const auto capacity = s.run.at("target").at("capacity_bytes").get<double>();
  EXPECT_NEAR(nested.at("tested_range_bytes").get<double>(), capacity * 0.5, 1.0);
  ASSERT_TRUE(s.record.compare);
  EXPECT_EQ(s.record.compare->header.target.serial, "SN-WINDOW");
  EXPECT_NEAR(static_cast<double>(s.record.compare->header.target.tested_range_bytes), capacity * 0.5, 1.0);
  const auto section = s.page.substr(s.page.find("<section id=\"compare\">"));
  EXPECT_NE(section.find("(50%)"), std::string::npos);
}

TEST(ReportWindowOfSimulatedRuns, AnIopsRunShadesAndSummarisesItsMeasuredRounds) {
  const auto s = simulated(
      "iops", {{"round", "1m"}, {"max_rounds", "8"}, {"block_sizes", "1MiB,64KiB,4KiB"}, {"read_pcts", "100,65,0"}});
  ASSERT_FALSE(s.run.at("preconditioning").empty());
  expect_shading_over_the_window(s);
  expect_summary_over_the_window(s);
  // The IOPS summary's latency is 4 KiB 100 % writes', not a mean over the
  // matrix (1 MiB reads have latencies no 4 KiB write has).
  const auto summary = report::summarize(s.record);
  EXPECT_EQ(summary.latency_of, "4KiB 0/100 write");
  EXPECT_GT(std::fabs(summary.p99 - mean_p99_over(s.run, s.run.at("measurement_window"))), 0.01 * summary.p99);
  EXPECT_NE(report::compare_table_text({s.record}).find("4KiB 0/100 write"), std::string::npos);
}

TEST(ReportWindowOfSimulatedRuns, AnIopsMatrixChartsEachTrackedVariableAsItsOwnLine) {
  const auto s = simulated(
      "iops", {{"round", "1m"}, {"max_rounds", "8"}, {"block_sizes", "1MiB,64KiB,4KiB"}, {"read_pcts", "100,65,0"}});
  const auto iops = report::test::svg_by_id(s.page, "throughput");
  const auto latency = report::test::svg_by_id(s.page, "latency");
  for (const std::string e : {"4KiB 0/100", "64KiB 65/35", "1MiB 100/0"}) {
    // Every point of the element's line is one of its rounds: 5 or more measured rounds.
    std::size_t rounds = 0;
    for (const auto& r : s.run.at("rounds")) rounds += r.at("phase") == "test" && r.at("element").at("label") == e;
    EXPECT_EQ(report::test::series_points(iops, e).size(), rounds) << e;
    EXPECT_EQ(report::test::series_points(latency, e + " p99").size(), rounds) << e;
  }
  // Not one line through all nine elements, nor the six untracked ones.
  EXPECT_EQ(iops.find("data-series=\"IOPS\""), std::string::npos);
  EXPECT_EQ(iops.find("data-series=\"4KiB 65/35\""), std::string::npos);
  // 4 KiB and 1 MiB IOPS lie two orders of magnitude apart.
  EXPECT_NE(iops.find("(log scale)"), std::string::npos);
}

TEST(ReportWindowOfSimulatedRuns, ALatencyRunShadesAndSummarisesItsMeasuredRounds) {
  const auto s = simulated("latency", {{"round", "1m"}, {"max_rounds", "8"}});
  ASSERT_FALSE(s.run.at("preconditioning").empty());
  expect_shading_over_the_window(s);
  expect_summary_over_the_window(s);
}

TEST(ReportWindowOfSimulatedRuns, AWsatRunShadesAndSummarisesItsLastRounds) {
  const auto s = simulated("wsat", {{"round", "1m"}, {"rounds", "30"}});
  expect_shading_over_the_window(s);
  expect_summary_over_the_window(s);
}

// What every demand-intensity run (CBW, DIRTH) keeps: the histograms at the
// max, mid and min IOPS points of the sweep's window, each op's counting
// exactly that op's I/Os at that point (of the dedicated round run there
// after the sweep, else of the window's rounds), drawn bucket by bucket; an
// op the test does not issue has neither histogram nor chart.
// Then the demand-intensity and demand-variation charts, a line per thread
// count through its queue depths.
void expect_demand_intensity_report(const SimulatedRun& s, const std::vector<std::string>& ops,
                                    const std::vector<std::string>& thread_lines, std::size_t queue_depths,
                                    double spread) {
  const json& elements = s.run.at("elements");
  double hi = 0, lo = 1e18;
  for (const auto& e : elements) {
    hi = std::max(hi, e.at("iops").get<double>());
    lo = std::min(lo, e.at("iops").get<double>());
  }
  const json& points = s.run.at("response_time_histograms");
  ASSERT_EQ(points.size(), 3U);
  EXPECT_EQ(points[0].at("point"), "max");
  EXPECT_EQ(points[1].at("point"), "mid");
  EXPECT_EQ(points[2].at("point"), "min");
  const bool dedicated = points[0].at("source") == "dedicated round";
  // The points are chosen over the sweep's window either way.
  auto window_iops = [&](const json& p) -> double {
    for (const auto& e : elements) {
      if (e.at("label") == p.at("label")) return e.at("iops").get<double>();
    }
    ADD_FAILURE() << p.at("label");
    return std::nan("");
  };
  EXPECT_EQ(window_iops(points[0]), hi);
  EXPECT_EQ(window_iops(points[2]), lo);
  for (const auto& e : elements) {
    EXPECT_GE(std::fabs(e.at("iops").get<double>() - (hi + lo) / 2), std::fabs(window_iops(points[1]) - (hi + lo) / 2));
  }
  EXPECT_GT(hi, spread * lo);  // the sweep spans a real range of load
  const json& window = s.run.at("measurement_window");
  for (const auto& p : points) {
    const std::string label = p.at("label").get<std::string>();
    EXPECT_EQ(p.at("ops").size(), ops.size()) << label;
    for (const std::string op : {"read", "write"}) {
      const auto svg = report::test::svg_by_id(s.page, "rt-histogram-" + p.at("point").get<std::string>() + "-" + op);
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
        EXPECT_FALSE(p.at("ops").contains(op)) << label << " " << op;
        EXPECT_TRUE(svg.empty()) << label << " " << op;
        continue;
      }
      // This op's I/Os at this point: its dedicated round's, else the window's.
      double issued = 0;
      if (dedicated) {
        for (const auto& r : s.run.at("rounds")) {
          if (r.at("phase") == "histogram" && r.at("element").at("label") == label) {
            issued += r.at("ops").at(op).at("ops").get<double>();
            EXPECT_EQ(p.at("iops").get<double>(), r.at("iops").get<double>()) << label;
          }
        }
      } else {
        for (const json* r : rounds_in(s.run, window.at("stage").get<std::size_t>(), window.at("rounds"))) {
          if (r->at("element").at("label") == label) issued += r->at("ops").at(op).at("ops").get<double>();
        }
      }
      const json& h = p.at("ops").at(op);
      double counted = 0;
      for (const auto& c : h.at("counts")) counted += c.get<double>();
      EXPECT_GT(issued, 0) << label << " " << op;
      EXPECT_EQ(counted, issued) << label << " " << op;
      EXPECT_EQ(h.at("counts").size(), p.at("bounds_s").size() + 1);
      EXPECT_EQ(report::test::tags(svg, "<rect class=\"bar\"").size(), h.at("counts").size()) << label << " " << op;
    }
  }
  const auto curve = report::test::svg_by_id(s.page, "demand-intensity");
  const auto variation = report::test::svg_by_id(s.page, "demand-variation");
  for (const auto& t : thread_lines) {
    EXPECT_EQ(report::test::series_points(curve, t).size(), queue_depths) << t;
    EXPECT_EQ(report::test::series_points(variation, t).size(), queue_depths) << t;
  }
}

// CBW end to end: its own preconditioning, the sweep until its highest load
// is steady, and the response-time histograms at the max, mid and min IOPS
// points, reads and writes apart.
TEST(ReportWindowOfSimulatedRuns, ACbwRunPreconditionsSweepsAndKeepsHistogramsAtItsMaxMidAndMinIopsPoints) {
  const auto s = simulated("cbw", {{"round", "1m"},
                                   {"max_rounds", "8"},
                                   {"threads", "4"},
                                   {"queue_depth", "32"},
                                   {"thread_counts", "4,2,1"},
                                   {"queue_depths", "32,4,1"},
                                   {"histogram_rounds", "false"}});
  ASSERT_EQ(s.run.at("preconditioning").size(), 1U);
  EXPECT_EQ(s.run.at("response_time_histograms")[0].at("source"), "sweep window");
  EXPECT_EQ(s.run.at("preconditioning")[0].at("kind"), "workload-dependent");
  for (const auto& r : s.run.at("rounds")) {
    if (r.at("phase") == "precondition") {
      EXPECT_EQ(r.at("element").at("label"), "CBW 0/100 T4Q32");
    }
  }
  EXPECT_EQ(s.run.at("steady_state").at("element"), "CBW 40/60 T4Q32");
  expect_shading_over_the_window(s);
  ASSERT_EQ(s.run.at("elements").size(), 9U);
  expect_demand_intensity_report(s, {"read", "write"}, {"T4", "T2", "T1"}, 3, 2);
  for (const auto& p : s.run.at("response_time_histograms")) {
    // 40 % reads, 60 % writes.
    EXPECT_NEAR(p.at("ops").at("read").at("ops").get<double>() /
                    (p.at("ops").at("read").at("ops").get<double>() + p.at("ops").at("write").at("ops").get<double>()),
                0.4, 0.02)
        << p.at("label");
  }
}

// DIRTH end to end: RND 4 KiB writes to steady state at the highest load,
// then the sweep until that load is steady again; writes only, so the
// histograms and their charts are of writes alone.
TEST(ReportWindowOfSimulatedRuns, ADirthRunPreconditionsWithItsWritesSweepsAndKeepsWriteHistogramsAtMaxMidAndMin) {
  const auto s = simulated("dirth", {{"round", "1m"},
                                     {"max_rounds", "8"},
                                     {"threads", "8"},
                                     {"queue_depth", "32"},
                                     {"thread_counts", "8,2,1"},
                                     {"queue_depths", "32,4,1"}});
  ASSERT_EQ(s.run.at("preconditioning").size(), 1U);
  EXPECT_EQ(s.run.at("preconditioning")[0].at("kind"), "workload-dependent");
  int pre = 0;
  for (const auto& r : s.run.at("rounds")) {
    if (r.at("phase") != "precondition") continue;
    ++pre;
    EXPECT_EQ(r.at("element").at("label"), "4KiB 0/100 T8Q32");
    EXPECT_FALSE(r.at("ops").contains("read"));
  }
  EXPECT_GE(pre, 5);  // a whole steady-state window at least
  EXPECT_EQ(s.run.at("steady_state").at("element"), "4KiB 0/100 T8Q32");
  expect_shading_over_the_window(s);
  ASSERT_EQ(s.run.at("elements").size(), 9U);
  // By default the histograms come from a dedicated 10-minute round at each
  // point after the sweep, marked so in run.json and in the report.
  std::vector<std::string> dedicated;
  for (const auto& r : s.run.at("rounds")) {
    if (r.at("phase") != "histogram") continue;
    dedicated.push_back(r.at("element").at("label"));
    EXPECT_NEAR(r.at("seconds").get<double>(), 600, 0.01);
  }
  const json& points = s.run.at("response_time_histograms");
  ASSERT_EQ(dedicated.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(points[i].at("label"), dedicated[i]);
    EXPECT_EQ(points[i].at("source"), "dedicated round");
  }
  EXPECT_NE(s.page.find("From a dedicated 600 s round after the sweep."), std::string::npos);
  // Writes at steady state are bounded by the drive's garbage collection,
  // so the curve is flatter than CBW's (the model: ~22k IOPS at T1Q1, ~41k
  // at the top).
  expect_demand_intensity_report(s, {"write"}, {"T8", "T2", "T1"}, 3, 1.5);
  // The summary (report header, `compare`) is the tracked point's: its IOPS
  // and its latency, not latency averaged over every load of the sweep.
  const auto summary = report::summarize(s.record);
  EXPECT_EQ(summary.level, s.run.at("steady_state").at("average").get<double>());
  const json& window = s.run.at("measurement_window");
  EXPECT_EQ(summary.p99, element_p99(s.run, "4KiB 0/100 T8Q32"));
  EXPECT_EQ(summary.latency_of, "4KiB 0/100 T8Q32 write");
  EXPECT_GT(std::fabs(summary.p99 - mean_p99_over(s.run, window)), 0.01 * summary.p99);
  // The least load gives the least IOPS.
  EXPECT_EQ(s.run.at("response_time_histograms")[2].at("label"), "4KiB 0/100 T1Q1");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
