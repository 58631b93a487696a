// The report of a real simulated run, not a fixture: a 10-hour WSAT executed
// on the simulated datacenter drive, its run.json rendered, and the chart
// checked against it (one point per round, the steady-state window where
// run.json puts it).
#include <gtest/gtest.h>

#include <fstream>

#include "store/sqlite_run_store.hpp"
#include "pts/run_executor.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "tests/support/sim_drives.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/report/svg_probe.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(ReportOfASimulatedWsat, HasOnePointPerRoundAndTheWindowWhereRunJsonPutsIt) {
  test::TempDir dir{"wsat-report"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  const SimDriveSpec spec = test::small_datacenter_drive("SN-REPORT");
  SimTarget target(std::make_shared<DriveModel>(spec, WallTime{} + std::chrono::hours(480000)));
  TestPlan plan = build_plan("wsat", {{"rounds", "600"}, {"round", "1m"}}, TargetFacts{spec.capacity_bytes, 1.3});
  RunExecutor ex(plan, target, *store, RunOptions{"wsat", "sim:d0", true});
  RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  const nlohmann::json& json = run_json(out.run);
  ASSERT_EQ(json["rounds"].size(), 600U);  // 10 hours of one-minute rounds
  std::ofstream(dir.path() + "/run.json") << json.dump();
  auto record = report::load_run(dir.path());
  ASSERT_TRUE(record) << record.error().message;
  const std::string page = report::render_run_report(*record, test_bases());

  const auto svg = report::test::svg_by_id(page, "throughput");
  const auto points = report::test::series_points(svg, "IOPS");
  ASSERT_EQ(points.size(), 600U);
  const report::test::PlotX plot(svg);
  for (std::size_t i = 0; i < points.size(); i += 50) {
    EXPECT_NEAR(plot.data(points[i].first), json["rounds"][i]["index"].get<double>(), 0.02) << i;
  }
  ASSERT_TRUE(json["steady_state"].contains("window"));
  const auto spans = report::test::tags(svg, "<rect class=\"x-span steady-state\"");
  ASSERT_EQ(spans.size(), 1U);
  EXPECT_EQ(report::test::num_attr(spans[0], "data-from"), json["steady_state"]["window"][0].get<double>());
  EXPECT_EQ(report::test::num_attr(spans[0], "data-to"), json["steady_state"]["window"][1].get<double>());
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
