// PTS-E HIR (host idle recovery) and XSR (cross stimulus recovery): their
// plans, runs of them on a simulated drive end to end (the drive's idle-time
// garbage collection shows in HIR's bursts), a resumed HIR run idling again,
// and the report and comparison charts drawn from their run.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "pts/run_eta.hpp"
#include "pts/run_executor.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/sim_drives.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/report/svg_probe.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;
using nlohmann::json;

const TargetFacts kDrive{3'840'000'000'000ULL, 1.3};

TEST(HirPlan, SteadyStateThenBurstsWithGrowingIdlesEachFollowedByAReturnToBaseline) {
  TestPlan p = build_plan("hir", {}, kDrive);
  EXPECT_TRUE(p.purge);
  ASSERT_EQ(p.stages.size(), 11u);  // steady state, then 5 x (wait state, baseline); no SEQ WIPC
  const Stage& pre = p.stages[0];
  ASSERT_EQ(pre.elements.size(), 1u);
  EXPECT_EQ(pre.elements[0].label, "4KiB 0/100");
  EXPECT_EQ(pre.elements[0].pattern, AccessPattern::random);
  EXPECT_EQ(pre.elements[0].threads * pre.elements[0].queue_depth, 4u * 32u);
  EXPECT_EQ(pre.elements[0].duration, 30min);
  EXPECT_EQ(pre.elements[0].idle_after, Duration::zero());
  ASSERT_TRUE(pre.steady_state);
  EXPECT_TRUE(pre.steady_state->stop_when_reached);
  ASSERT_EQ(pre.steady_state->tracked.size(), 1u);
  EXPECT_EQ(pre.steady_state->tracked[0].variable, TrackedVariable::iops);
  EXPECT_EQ(pre.steady_state->rule.window, 5);
  EXPECT_EQ(pre.max_rounds, 25);
  const int idles[] = {5, 10, 15, 25, 50};
  for (int i = 0; i < 5; ++i) {
    const Stage& wait = p.stages[1 + 2 * i];
    const Stage& back = p.stages[2 + 2 * i];
    ASSERT_EQ(wait.elements.size(), 1u);
    EXPECT_EQ(wait.elements[0].duration, 5s);
    EXPECT_EQ(wait.elements[0].idle_after, std::chrono::seconds(idles[i]));
    EXPECT_EQ(wait.elements[0].read_pct, 0);
    EXPECT_EQ(wait.elements[0].block_sizes[0].bytes, 4096u);
    EXPECT_EQ(wait.max_rounds, 360);
    EXPECT_FALSE(wait.steady_state);
    EXPECT_EQ(wait.elements[0].label, "4KiB 0/100 5s + idle " + std::to_string(idles[i]) + "s");
    // 360 bursts back to back: 30 minutes of continuous writes.
    EXPECT_EQ(back.elements[0].duration, 5s);
    EXPECT_EQ(back.elements[0].idle_after, Duration::zero());
    EXPECT_EQ(back.max_rounds, 360);
  }
  TestPlan small = build_plan(
      "hir", {{"idle_seconds", "2,1"}, {"bursts", "3"}, {"baseline_bursts", "0"}, {"precondition", "false"}}, kDrive);
  ASSERT_EQ(small.stages.size(), 2u);
  EXPECT_EQ(small.stages[0].elements[0].idle_after, 2s);
  EXPECT_EQ(small.stages[1].elements[0].idle_after, 1s);
  EXPECT_THROW(build_plan("hir", {{"wipc_multiple", "2"}}, kDrive), ParamError);
}

TEST(HirPlan, TheEtaCountsEachBurstsIdle) {
  TestPlan p = build_plan(
      "hir", {{"idle_seconds", "10"}, {"bursts", "3"}, {"baseline_bursts", "2"}, {"precondition", "false"}}, kDrive);
  // 3 x (5 s + 10 s idle), then 2 x 5 s back to back.
  EXPECT_DOUBLE_EQ(run_eta_seconds(p, RunPosition{0, 0, 0, false, 0}).value(), 55.0);
  EXPECT_DOUBLE_EQ(run_eta_seconds(p, RunPosition{0, 2, 0, false, 0}).value(), 25.0);
}

TEST(XsrPlan, SequentialThenRandomThenSequentialWritesEachAFixedLengthJudgedOnThroughput) {
  TestPlan p = build_plan("xsr", {}, kDrive);
  EXPECT_TRUE(p.purge);
  ASSERT_EQ(p.stages.size(), 3u);
  const std::tuple<AccessPattern, std::uint32_t, int, const char*> want[] = {
      {AccessPattern::sequential, 1024 * 1024, 8 * 60, "AG1 SEQ 1MiB write"},
      {AccessPattern::random, 8192, 6 * 60, "AG2 8KiB 0/100"},
      {AccessPattern::sequential, 1024 * 1024, 8 * 60, "AG3 SEQ 1MiB write"}};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& [pattern, bs, rounds, label] = want[i];
    const Stage& s = p.stages[i];
    ASSERT_EQ(s.elements.size(), 1u);
    EXPECT_EQ(s.elements[0].pattern, pattern);
    EXPECT_EQ(s.elements[0].block_sizes[0].bytes, bs);
    EXPECT_EQ(s.elements[0].read_pct, 0);
    EXPECT_EQ(s.elements[0].threads, 1u);
    EXPECT_EQ(s.elements[0].queue_depth, 32u);
    EXPECT_EQ(s.elements[0].duration, 1min);
    EXPECT_EQ(s.max_rounds, rounds);
    EXPECT_EQ(s.label, label);
    ASSERT_TRUE(s.steady_state);
    EXPECT_FALSE(s.steady_state->stop_when_reached);  // the group's length is the test
    EXPECT_EQ(s.steady_state->tracked.at(0).variable, TrackedVariable::bytes_per_second);
    EXPECT_EQ(s.steady_state->rule.window, 5);
  }
  TestPlan short_run = build_plan("xsr", {{"round", "30s"}, {"rnd_duration", "10m"}}, kDrive);
  EXPECT_EQ(short_run.stages[1].max_rounds, 20);
}

struct SimRun {
  test::TempDir dir{"hir-xsr"};
  std::unique_ptr<SqliteRunStore> store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  SimDriveSpec spec = test::small_datacenter_drive("SN-HIR");
  std::shared_ptr<DriveModel> model = std::make_shared<DriveModel>(spec, WallTime{} + 480000h);
  SimTarget target{model};

  RunOutcome run(const std::string& test, const ParamMap& params, RunExecutor::ProgressFn progress = {}) {
    return run_on(target, test, params, std::move(progress));
  }
  RunOutcome run_on(SimTarget& t, const std::string& test, const ParamMap& params,
                    RunExecutor::ProgressFn progress = {}) {
    RunExecutor* self = nullptr;
    RunExecutor ex(build_plan(test, params, TargetFacts{spec.capacity_bytes, 1.3}), t, *store,
                   RunOptions{test, "sim:d0", true}, [&](const RunProgress& p) {
                     if (progress) progress(p);
                     if (stop_at && p.index == *stop_at) self->stop();
                   });
    self = &ex;
    return ex.run();
  }
  report::RunRecord record(const json& run, const std::string& name) const {
    const std::string d = dir.path() + "/" + name;
    std::filesystem::create_directories(d);
    std::ofstream(d + "/run.json") << run.dump();
    auto r = report::load_run(d);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : report::RunRecord{};
  }
  std::optional<std::size_t> stop_at;
};

const ParamMap kShortHir = {{"round", "5m"}, {"idle_seconds", "5,50"}, {"bursts", "24"}, {"baseline_bursts", "24"}};

double mean_iops(const json& run, int stage, std::size_t skip_first = 0, std::size_t last = 0) {
  std::vector<double> v;
  for (const auto& r : run.at("rounds")) {
    if (r.at("stage") == stage) v.push_back(r.at("iops").get<double>());
  }
  if (last > 0 && v.size() > last) v.erase(v.begin(), v.end() - static_cast<std::ptrdiff_t>(last));
  if (skip_first < v.size()) v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(skip_first));
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

TEST(HirRun, IdleTimeBetweenBurstsRaisesTheirIopsAboveTheSteadyStateAndTheBaselineReturnsToIt) {
  SimRun s;
  const RunOutcome out = s.run("hir", kShortHir);
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  const json& run = run_json(out.run);
  ASSERT_TRUE(run.at("steady_state").at("reached").get<bool>());
  EXPECT_EQ(run.at("steady_state").at("stage"), 0);
  EXPECT_EQ(run.at("measurement_window").at("stage"), 0);  // the wait states do not replace it
  const double steady = run.at("steady_state").at("average").get<double>();
  const double wait5 = mean_iops(run, 1);
  const double wait50 = mean_iops(run, 3);
  EXPECT_GT(wait5, 1.3 * steady) << steady;
  EXPECT_GT(wait50, 1.5 * wait5);
  // 24 bursts back to back spend what 50 s idles saved: the last ones are back at the steady state.
  EXPECT_NEAR(mean_iops(run, 4, 0, 5), steady, 0.1 * steady);
  // Each burst of a wait state starts its idle after the one before ended.
  std::vector<const json*> w50;
  for (const auto& r : run.at("rounds")) {
    if (r.at("stage") == 3) w50.push_back(&r);
  }
  ASSERT_EQ(w50.size(), 24u);
  for (std::size_t i = 1; i < w50.size(); ++i) {
    const double gap = static_cast<double>(w50[i]->at("started_ns").get<std::int64_t>() -
                                           w50[i - 1]->at("started_ns").get<std::int64_t>()) *
                           1e-9 -
                       w50[i - 1]->at("seconds").get<double>();
    EXPECT_NEAR(gap, 50.0, 1e-3) << i;
  }
}

TEST(HirRun, AResumedRunIdlesAgainBeforeTheBurstAfterTheLastCommittedOne) {
  SimRun s;
  const ParamMap params = {{"round", "5m"}, {"idle_seconds", "50"}, {"bursts", "6"}, {"baseline_bursts", "0"}};
  // Stopped right after a committed burst of the wait state, before its idle.
  std::optional<std::size_t> first_burst;
  s.stop_at.reset();
  RunOutcome first = s.run("hir", params, [&](const RunProgress& p) {
    if (p.stage == 1 && !first_burst) first_burst = p.index;
  });
  ASSERT_EQ(first.status, RunStatus::completed);
  ASSERT_TRUE(first_burst);
  SimRun again;
  again.stop_at = *first_burst + 1;  // the second burst of the wait state
  ASSERT_EQ(again.run("hir", params).status, RunStatus::paused);
  // A fresh drive object restored from the checkpoint stands for the next daemon.
  SimTarget fresh(std::make_shared<DriveModel>(again.spec, WallTime{} + 480000h));
  again.stop_at.reset();
  const RunOutcome out = again.run_on(fresh, "hir", params);
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  const json rounds = run_json(out.run).at("rounds");
  // rounds[k]: the second burst, the last committed before the stop.
  const std::size_t k = *first_burst;
  const double gap = static_cast<double>(rounds[k + 1].at("started_ns").get<std::int64_t>() -
                                         rounds[k].at("started_ns").get<std::int64_t>()) *
                         1e-9 -
                     rounds[k].at("seconds").get<double>();
  EXPECT_NEAR(gap, 50.0, 1e-3);
}

// HIR's steady-state stage is a preconditioning that runs to steady state,
// as CBW's and DIRTH's: run.json lists it under preconditioning with its
// steady state, and wait states started after it gave up at max_rounds are
// flagged; one that got there is not.
TEST(HirRun, APreconditioningThatGaveUpBeforeSteadyStateIsRecordedAndFlagged) {
  SimRun s;
  const RunOutcome out = s.run(
      "hir", {{"round", "1m"}, {"max_rounds", "5"}, {"idle_seconds", "5"}, {"bursts", "2"}, {"baseline_bursts", "0"}});
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  const json pre = run_json(out.run).at("preconditioning").at(0);
  EXPECT_EQ(pre.at("kind"), "workload-dependent");
  EXPECT_EQ(pre.at("rounds"), 5);
  EXPECT_FALSE(pre.at("steady_state").at("reached").get<bool>());
  std::vector<std::string> names;
  for (const auto& c : nlohmann::json(run_json(out.run).at("conditions"))) names.push_back(c.at("name"));
  EXPECT_NE(std::find(names.begin(), names.end(), "precondition-not-steady"), names.end());
  SimRun t;
  const RunOutcome steady = t.run("hir", kShortHir);
  ASSERT_EQ(steady.status, RunStatus::completed);
  EXPECT_TRUE(run_json(steady.run).at("preconditioning").at(0).at("steady_state").at("reached").get<bool>());
  for (const auto& c : run_json(steady.run).value("conditions", json::array()))
    EXPECT_NE(c.at("name"), "precondition-not-steady");
}

TEST(HirReport, PlotsEachBurstsIopsAgainstTimeWithTheWaitStatesShadedAndATablePerSegment) {
  SimRun s;
  const RunOutcome out = s.run("hir", kShortHir);
  ASSERT_EQ(out.status, RunStatus::completed);
  const auto record = s.record(run_json(out.run), "hir");
  const std::string page = report::render_run_report(record, test_bases());
  const std::string svg = report::test::svg_by_id(page, "rate-by-stage");
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(report::test::tags(svg, "<rect class=\"x-span idle\"").size(), 2u);
  EXPECT_EQ(report::test::series_points(svg, "4KiB 0/100 5s + idle 50s").size(), 24u);
  EXPECT_FALSE(report::test::series_points(svg, "to steady state (4KiB 0/100)").empty());
  EXPECT_EQ(report::test::tags(svg, "<line class=\"ref-line\"").size(), 1u);  // the steady state's average
  // Two baselines of 24 bursts on one line, broken between them.
  EXPECT_EQ(report::test::series_points(svg, "baseline (continuous writes)").size(), 48u);
  EXPECT_NE(page.find("id=\"stage-table\""), std::string::npos);
  EXPECT_NE(page.find("× steady state"), std::string::npos);
}

const ParamMap kShortXsr = {{"seq_duration", "30m"}, {"rnd_duration", "30m"}, {"recovery_duration", "30m"}};

TEST(XsrRun, RandomWritesBetweenSequentialGroupsShowInTheirThroughputAndEachGroupIsASubTest) {
  SimRun s;
  const RunOutcome out = s.run("xsr", kShortXsr);
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  const json& run = run_json(out.run);
  ASSERT_EQ(run.at("rounds").size(), 90u);
  ASSERT_EQ(run.at("subtests").size(), 3u);
  EXPECT_EQ(run.at("subtests")[0].at("label"), "AG1 SEQ 1MiB write");
  EXPECT_EQ(run.at("subtests")[1].at("label"), "AG2 8KiB 0/100");
  EXPECT_EQ(run.at("subtests")[2].at("label"), "AG3 SEQ 1MiB write");
  auto bw = [&](int stage) {
    double sum = 0;
    int n = 0;
    for (const auto& r : run.at("rounds")) {
      if (r.at("stage") == stage) sum += r.at("bytes_per_second").get<double>(), ++n;
    }
    return sum / n;
  };
  EXPECT_LT(bw(1), 0.5 * bw(0));
  EXPECT_GT(bw(2), 0.9 * bw(0));

  const auto record = s.record(run, "xsr");
  const std::string page = report::render_run_report(record, test_bases());
  const std::string svg = report::test::svg_by_id(page, "rate-by-stage");
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(report::test::tags(svg, "<rect class=\"x-span group\"").size(), 3u);
  EXPECT_EQ(report::test::series_points(svg, "AG2 8KiB 0/100").size(), 30u);
  EXPECT_NE(page.find("id=\"stage-table\""), std::string::npos);

  // compare: a row per access group and the throughput over time overlaid.
  const auto again = s.record(run, "xsr-again");
  const std::string text = report::compare_table_text({record, again});
  EXPECT_NE(text.find("xsr AG2 8KiB 0/100"), std::string::npos) << text;
  const std::string cmp = report::render_compare_report({record, again});
  EXPECT_FALSE(report::test::svg_by_id(cmp, "rate-by-stage").empty());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
