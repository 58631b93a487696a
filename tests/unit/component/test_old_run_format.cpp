// Runs stored before the run model had one codec (tests/fixtures/runs/
// real-schema4: a runs.db, and each run's run.json and report.html as that
// nvmond wrote them; its README.md says how they were made). What this nvmond
// rebuilds from them is the same, byte for byte, and an old suspended run
// still resumes. Their plans run again write the same run.json, but for what
// the simulated drive's model changed on purpose since (runs/rerun).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "core/atomic_file.hpp"
#include "core/build_info.hpp"
#include "services/run_source.hpp"
#include "pts/run_executor.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "pts/stored_run.hpp"
#include "report/run_record.hpp"
#include "report/run_report.hpp"
#include "sim/drive_model.hpp"
#include "sim/sim_drive_spec.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/fixture_path.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

namespace fs = std::filesystem;

const std::string kOld = test::fixture_path("runs/real-schema4/");

struct OldRun {
  std::int64_t id;
  const char* dir;
};
// wsat: paused after two rounds, resumed by a second executor, completed;
// suspended: stopped by a stopping daemon in its second round.
constexpr OldRun kRuns[] = {{1, "wsat"}, {2, "suspended"}};

std::string file(const std::string& path) {
  auto text = read_whole_file(path);
  EXPECT_TRUE(text) << path;
  return text ? *text : std::string();
}

// With NVMOND_UPDATE_GOLDEN=1 in the environment the expected file is
// rewritten with what this nvmond makes instead (review the diff: it is the
// change in what users get).
bool updating_golden() {
  const char* v = std::getenv("NVMOND_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

void expect_golden(const std::string& actual, const std::string& path, const std::string& what) {
  if (updating_golden()) {
    ASSERT_FALSE(write_file_atomically(path, actual)) << path;
    return;
  }
  EXPECT_EQ(actual, file(path)) << what;
}

// The fixture's runs.db in a directory of the test's own, so that opening it
// leaves nothing beside the checked-in file.
struct StateDir {
  test::TempDir dir{"nvmond-old-runs"};
  StateDir() { fs::copy_file(kOld + "runs.db", dir.path() + "/runs.db"); }
  std::string db() const { return dir.path() + "/runs.db"; }
};

TEST(OldRunFormat, TheRunJsonRebuiltFromAnOldRowIsTheOneItsRunWrote) {
  StateDir state;
  for (const auto& run : kRuns) {
    auto stored = read_stored_run(state.db(), run.id);
    ASSERT_TRUE(stored) << stored.error().message;
    auto doc = run_json_from_store(*stored);
    ASSERT_TRUE(doc) << doc.error().message;
    expect_golden(doc->dump(2) + "\n", kOld + run.dir + "/run.json", run.dir);
  }
}

TEST(OldRunFormat, TheReportOfAnOldRunIsTheOneItsRunWrote) {
  StateDir state;
  for (const auto& run : kRuns) {
    // The page names the file it was rendered from: the name it was made under.
    const std::string source = std::string("real-schema4/") + run.dir + "/run.json";
    auto from_file = report::load_run(kOld + run.dir);
    ASSERT_TRUE(from_file) << from_file.error().message;
    from_file->source = source;
    expect_golden(report::render_run_report(*from_file, test_bases()), kOld + run.dir + "/report.html",
                  std::string(run.dir) + " from its run.json");
    const std::string expected = file(kOld + run.dir + "/report.html");
    // `nvmonctl report ID`: the same report from the store's row.
    auto from_store = RunSource(state.dir.path(), "").load(std::to_string(run.id));
    ASSERT_TRUE(from_store) << from_store.error().message;
    from_store->source = source;
    EXPECT_EQ(report::render_run_report(*from_store, test_bases()), expected) << run.dir << " from the store";
  }
}

// The drive and the plan the fixture's runs were made with.
std::shared_ptr<DriveModel> fixture_drive() {
  SimDriveSpec spec = sim_profile("datacenter");
  spec.name = "datacenter";
  spec.serial = "SIM-datacenter";
  spec.capacity_bytes = 100'000'000'000ULL;
  return std::make_shared<DriveModel>(spec, from_unix_ns(1'764'547'200'000'000'000LL));  // 2025-12-01T00:00:00Z
}

TestPlan fixture_plan(const TestTarget& target) {
  const TargetRecord id = target.identity();
  return build_plan("wsat", {{"rounds", "6"}, {"round", "60s"}},
                    TargetFacts{id.capacity_bytes, id.rated_dwpd.value_or(0.0)});
}

// Runs the fixture's plan, stopped as `as` once `after` rounds are committed.
RunOutcome run_stopped(RunStore& store, const std::shared_ptr<DriveModel>& drive, const std::string& name,
                       std::size_t after, StopAs as) {
  SimTarget target(drive);
  RunExecutor* self = nullptr;
  RunExecutor ex(fixture_plan(target), target, store, RunOptions{name, "sim:datacenter"}, [&](const RunProgress& p) {
    if (p.index == after) self->stop(as);
  });
  self = &ex;
  return ex.run();
}

// The fixture's run.json as this nvmond would write it: the same text but for
// the version that wrote it and the parameters wsat has declared since, at
// their defaults (every effective parameter is recorded).
std::string as_this_version_writes(const std::string& path) {
  auto j = nlohmann::json::parse(file(path));
  j["nvmond_version"] = build::kVersion;
  j["parameters"]["variant"] = "soak";
  return j.dump(2) + "\n";
}

// A run made again today: its rounds keep what the old rows lack (p99.999,
// their latency distributions), so it is compared with `rerun.json` beside
// the old run's.
void expect_rerun(const RunOutcome& out, const std::string& dir) {
  const std::string path = kOld + dir + "/rerun.json";
  if (updating_golden()) {
    ASSERT_FALSE(write_file_atomically(path, run_json(out.run).dump(2) + "\n")) << path;
    return;
  }
  EXPECT_EQ(run_json(out.run).dump(2) + "\n", as_this_version_writes(path)) << dir;
}

TEST(OldRunFormat, TheSameRunsWriteTheSameRunJsonAsBefore) {
  test::TempDir dir("nvmond-same-runs");
  auto store = SqliteRunStore::open_file(dir.path() + "/runs.db");
  ASSERT_TRUE(store) << store.error().message;
  auto drive = fixture_drive();
  ASSERT_EQ(run_stopped(**store, drive, "wsat", 2, StopAs::paused).status, RunStatus::paused);
  SimTarget target(drive);
  RunExecutor again(fixture_plan(target), target, **store, RunOptions{"wsat", "sim:datacenter", true, false});
  const RunOutcome wsat = again.run();
  expect_rerun(wsat, "wsat");
  const RunOutcome suspended = run_stopped(**store, fixture_drive(), "suspended", 1, StopAs::suspended);
  EXPECT_EQ(suspended.status, RunStatus::interrupted);
  expect_rerun(suspended, "suspended");
}

TEST(OldRunFormat, AnOldSuspendedRunResumesUnderItsIdAndCompletes) {
  StateDir state;
  auto store = SqliteRunStore::open_file(state.db());
  ASSERT_TRUE(store) << store.error().message;
  SimTarget target(fixture_drive());
  RunExecutor ex(fixture_plan(target), target, **store, RunOptions{"suspended", "sim:datacenter"});
  const RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  EXPECT_EQ(out.run_id, 2);
  EXPECT_EQ(run_json(out.run)["resumed"], 1);
  EXPECT_FALSE(run_json(out.run).contains("resumable"));
  // Its old header had no profile; it ran, and resumes, under PTS-E's.
  EXPECT_EQ(run_json(out.run)["profile"], "enterprise");
  EXPECT_EQ(run_json(out.run)["rounds"].size(), 6u);
  EXPECT_EQ((*store)->run(2).value()->status, RunStatus::completed);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
