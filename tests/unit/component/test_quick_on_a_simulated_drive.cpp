// quick run end to end on a simulated drive: it completes in its one round,
// and its report names what it rests on and shows each of its eight loads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "pts/run_executor.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "pts/catalog.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/sim_drives.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(QuickOnASimulatedDrive, CompletesAndItsReportShowsItsLoadsAndWhatItRestsOn) {
  test::TempDir dir{"quick-report"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  const SimDriveSpec spec = test::small_drive("consumer", "SN-QUICK");
  SimTarget target(std::make_shared<DriveModel>(spec, WallTime{} + std::chrono::hours(480000)));
  TestPlan plan = build_plan("quick", {{"round", "1s"}}, TargetFacts{spec.capacity_bytes, 0.6});
  RunExecutor ex(plan, target, *store, RunOptions{"quick", "sim:d0", true});
  RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  std::ofstream(dir.path() + "/run.json") << run_json(out.run).dump();
  auto record = report::load_run(dir.path());
  ASSERT_TRUE(record) << record.error().message;
  const std::string page = report::render_run_report(*record, test_bases());
  EXPECT_THAT(page, HasSubstr("not a PTS test: the drive reviews&#39; first look"));
  EXPECT_THAT(page, Not(HasSubstr("NON-CONFORMANT")));
  for (const char* load : {"SEQ 1MiB read T1Q8", "SEQ 1MiB write T1Q1", "4KiB 100/0 T1Q32", "4KiB 0/100 T1Q1"}) {
    EXPECT_THAT(page, HasSubstr(load));
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
