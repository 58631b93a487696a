#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "store/sqlite_run_store.hpp"
#include "pts/targets/device_target.hpp"
#include "runmodel/run_codec.hpp"
#include "pts/run_conditions.hpp"
#include "pts/run_executor.hpp"
#include "pts/measured_round.hpp"
#include "pts/plan_facts.hpp"
#include "runmodel/run_json.hpp"
#include "pts/targets/sim_target.hpp"
#include "pts/stored_run.hpp"
#include "tests/support/jobs.hpp"
#include "tests/support/sim_drives.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

// A fresh small drive, its clock in 2024 (480,000 h after the epoch).
std::shared_ptr<DriveModel> small_drive() {
  return std::make_shared<DriveModel>(test::small_datacenter_drive("SN0"), WallTime{} + std::chrono::hours(480000));
}

struct Fixture {
  test::TempDir dir{"pts-exec"};
  std::unique_ptr<SqliteRunStore> store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  std::shared_ptr<DriveModel> model = small_drive();
  SimTarget target{model};
  TestPlan plan = build_plan("wsat", {{"rounds", "40"}, {"round", "5m"}}, TargetFacts{100'000'000'000ULL, 1.3});

  // Runs "w" (resumable) and stops it from its progress call once `index`
  // rounds are committed: a run left unfinished in the store.
  RunOutcome run_stopped_at(std::size_t index) {
    RunExecutor* self = nullptr;
    RunExecutor ex(plan, target, *store, RunOptions{"w", "sim:d0", true}, [&](const RunProgress& p) {
      if (p.index == index) self->stop();
    });
    self = &ex;
    return ex.run();
  }
};

TEST(RunExecutor, CommitsEveryRoundAndBuildsRunJson) {
  Fixture f;
  RunExecutor ex(f.plan, f.target, *f.store, RunOptions{"w", "sim:d0", true});
  RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  auto rounds = f.store->rounds(out.run_id);
  ASSERT_TRUE(rounds);
  ASSERT_EQ(rounds->size(), 40u);
  EXPECT_EQ(run_json(out.run)["rounds"].size(), 40u);
  EXPECT_EQ(run_json(out.run)["status"], "completed");
  EXPECT_EQ(run_json(out.run)["purge"]["method"], "format");
  EXPECT_TRUE(run_json(out.run).contains("steady_state"));
  // FOB is well above the end of the run on this drive.
  EXPECT_GT(run_json(out.run)["rounds"][0]["iops"].get<double>(),
            2 * run_json(out.run)["rounds"][39]["iops"].get<double>());
  EXPECT_FALSE(f.store->unfinished_run("w").value());
}

// What the soak's latency gauges publish: the round's percentiles up to five
// nines, in order, each at least the one before.
TEST(RunExecutor, EachRoundsProgressCarriesItsPercentilesToFiveNines) {
  Fixture f;
  std::vector<std::pair<double, double>> last;
  RunExecutor ex(f.plan, f.target, *f.store, RunOptions{"w", "sim:d0", true},
                 [&](const RunProgress& p) { last = p.latency; });
  ASSERT_EQ(ex.run().status, RunStatus::completed);
  ASSERT_EQ(last.size(), 5u);
  const double quantiles[] = {0.5, 0.99, 0.999, 0.9999, 0.99999};
  for (std::size_t i = 0; i < last.size(); ++i) {
    EXPECT_EQ(last[i].first, quantiles[i]);
    EXPECT_GT(last[i].second, 0.0);
    if (i > 0) {
      EXPECT_GE(last[i].second, last[i - 1].second) << quantiles[i];
    }
  }
}

// The ETA a round reports is the run's: the stages after the current one
// count, so the last round of the first stage does not say "done".
TEST(RunExecutor, TheEtaCountsTheStagesLeft) {
  Fixture f;
  TestPlan plan;
  plan.test = "eta";
  plan.destructive = false;
  for (auto [rounds, each] : {std::pair{3, 60}, std::pair{2, 30}}) {
    Stage s;
    Element e;
    e.label = "4KiB read";
    e.read_pct = 100;
    e.duration = std::chrono::seconds(each);
    s.elements.push_back(e);
    s.max_rounds = rounds;
    plan.stages.push_back(s);
  }
  std::vector<double> etas;
  RunExecutor ex(plan, f.target, *f.store, RunOptions{"eta", "sim:d0", true},
                 [&](const RunProgress& p) { etas.push_back(p.eta_seconds.value_or(-1)); });
  ASSERT_EQ(ex.run().status, RunStatus::completed);
  EXPECT_EQ(etas, (std::vector<double>{180, 120, 60, 30, 0}));
}

TEST(RunExecutor, TheStatusLivesInTheRowAloneWhileRunningAndOnceEnded) {
  Fixture f;
  ASSERT_EQ(f.run_stopped_at(2).status, RunStatus::paused);
  const RunRow open = f.store->unfinished_run("w").value().value();
  EXPECT_EQ(open.status, RunStatus::running);
  EXPECT_FALSE(nlohmann::json::parse(open.header).contains("status")) << open.header;
  SimTarget again(f.model);
  RunExecutor ex(f.plan, again, *f.store, RunOptions{"w", "sim:d0", true, false});
  const RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  const RunRow ended = f.store->run(out.run_id).value().value();
  EXPECT_EQ(ended.status, RunStatus::completed);
  EXPECT_FALSE(nlohmann::json::parse(ended.header).contains("status")) << ended.header;
  EXPECT_EQ(run_json(out.run)["status"], "completed");  // run.json takes it from the outcome
}

TEST(RunExecutor, AStoppedRunResumesAtTheNextRoundWithoutLosingOrRepeatingOne) {
  Fixture f;
  EXPECT_EQ(f.run_stopped_at(13).status, RunStatus::paused);
  auto open = f.store->unfinished_run("w");
  ASSERT_TRUE(open && *open);
  EXPECT_EQ(f.store->rounds((*open)->id)->size(), 13u);
  // A fresh drive object stands for the daemon after kill -9: its state comes
  // back from the run's checkpoint.
  SimTarget fresh(small_drive());
  RunExecutor again(f.plan, fresh, *f.store, RunOptions{"w", "sim:d0", true});
  RunOutcome out = again.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  EXPECT_EQ(out.run_id, (*open)->id);
  auto rounds = f.store->rounds(out.run_id);
  ASSERT_EQ(rounds->size(), 40u);
  std::set<std::int64_t> idx;
  for (const auto& r : *rounds) idx.insert(r.index);
  EXPECT_EQ(idx.size(), 40u);
  EXPECT_EQ(*idx.rbegin(), 39);
  EXPECT_EQ(run_json(out.run)["resumed"], 1);
  // Continuous in drive time: round 13 starts where round 12 ended.
  const auto r12 = run_json(out.run)["rounds"][12];
  const auto r13 = run_json(out.run)["rounds"][13];
  EXPECT_NEAR(static_cast<double>(r13["started_ns"].get<std::int64_t>() - r12["started_ns"].get<std::int64_t>()) * 1e-9,
              r12["seconds"].get<double>(), 1e-3);
}

TEST(RunExecutor, WithoutResumeAnUnfinishedRunIsClosedAsInterrupted) {
  Fixture f;
  f.run_stopped_at(3);
  const std::int64_t first = f.store->unfinished_run("w").value()->id;
  SimTarget again(f.model);  // a stopped target stays stopped; a new run gets a new one
  RunExecutor fresh(f.plan, again, *f.store, RunOptions{"w", "sim:d0", false});
  RunOutcome out = fresh.run();
  EXPECT_EQ(out.status, RunStatus::completed);
  EXPECT_NE(out.run_id, first);
  EXPECT_EQ(f.store->rounds(first)->size(), 3u);
  const RunRow closed = f.store->run(first).value().value();
  EXPECT_EQ(closed.status, RunStatus::interrupted);
  ASSERT_TRUE(closed.ended_ns);
  // The run.json rebuilt from the store says so too, with the end the report
  // shows (the status lives in the row's column alone).
  const auto doc = run_json_from_store(StoredRun{closed, f.store->rounds(first).value()});
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ((*doc)["status"], "interrupted");
  const auto header = nlohmann::json::parse(closed.header);
  EXPECT_TRUE(header.contains("ended_at"));
  EXPECT_FALSE(header.contains("resumable"));
}

// A run's header blob keeps the facts of the plan it ran, and a report from
// the store analyses its rounds under them: parameters that no longer make
// a plan do not matter. A run stored before the facts were kept (none in
// its blob) has its plan built from its parameters, as before.
TEST(RunExecutor, AStoredRunIsAnalysedUnderThePlanItRanAndAnOlderOneUnderItsParameters) {
  Fixture f;
  f.plan = build_plan("wsat", {{"rounds", "8"}, {"round", "5m"}}, TargetFacts{100'000'000'000ULL, 1.3});
  RunExecutor ex(f.plan, f.target, *f.store, RunOptions{"w", "sim:d0", true});
  const RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  const nlohmann::json live = run_json(out.run);
  RunRow row = f.store->run(out.run_id).value().value();
  const auto rounds = f.store->rounds(out.run_id).value();
  RunHeader header = header_from_blob(row.header).value();
  ASSERT_TRUE(header.plan);
  EXPECT_EQ(*header.plan, plan_record(f.plan));
  EXPECT_FALSE(live.contains("plan"));  // the store's, not run.json's

  header.parameters["rounds"] = "many";  // no plan builds from this any more
  row.header = header_blob(header);
  const auto kept = run_json_from_store(StoredRun{row, rounds});
  ASSERT_TRUE(kept) << kept.error().message;
  nlohmann::json as_kept = live;
  as_kept["parameters"]["rounds"] = "many";  // the header says what it says; the results are the run's
  EXPECT_EQ(*kept, as_kept);

  header.plan.reset();
  row.header = header_blob(header);
  const auto rebuilt = run_json_from_store(StoredRun{row, rounds});
  ASSERT_FALSE(rebuilt);
  EXPECT_NE(rebuilt.error().message.find("no longer make a plan"), std::string::npos) << rebuilt.error().message;
  header.parameters = f.plan.parameters;
  row.header = header_blob(header);
  const auto older = run_json_from_store(StoredRun{row, rounds});
  ASSERT_TRUE(older) << older.error().message;
  EXPECT_EQ(*older, live);
}

TEST(RunExecutor, ARoundIsNeverStoredTwice) {
  Fixture f;
  auto id =
      f.store->create_run(RunRow{0, "x", "wsat", "sim:d0", "SN0", "m", RunStatus::running, 1, std::nullopt, "{}", ""});
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.store->commit_round(*id, RoundRow{0, "test", 1.0, "{}"}, "state"));
  auto again = f.store->commit_round(*id, RoundRow{0, "test", 2.0, "{}"}, "other");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().reason, ErrorReason::duplicate);
  EXPECT_EQ(f.store->rounds(*id)->size(), 1u);
  EXPECT_EQ(f.store->unfinished_run("x").value()->checkpoint, "state");
}

TEST(RunExecutor, ARefusedTargetIsRefusedBeforeAnyIoOrRecord) {
  test::TempDir dir{"pts-refuse"};
  const std::string victim = dir.path() + "/disk.img";
  {
    std::ofstream f(victim);
    f << std::string(1 << 20, 'x');
  }
  SafetyGuard guard(SafetyConfig{{}, {"/nonexistent"}});
  auto target = DeviceTarget::open(victim, guard, {}, test::uring_engines());
  ASSERT_TRUE(target);
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  TestPlan plan = build_plan("wsat", {{"rounds", "1"}, {"round", "1s"}}, TargetFacts{1 << 20, 0});
  RunExecutor ex(plan, **target, *store, RunOptions{"r", victim, true});
  RunOutcome out = ex.run();
  EXPECT_EQ(out.status, RunStatus::failed);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->reason, ErrorReason::outside_allowed_dirs);
  EXPECT_EQ(out.run_id, 0);
  EXPECT_FALSE(store->unfinished_run("r").value());
  std::ifstream in(victim);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, std::string(1 << 20, 'x'));
}

// A real (not simulated) target of `capacity` bytes whose rounds are what
// a subclass's run() says: no purge, no health, a fixed clock.
class FakeTarget : public TestTarget {
 public:
  FakeTarget(std::string serial, std::uint64_t capacity) : serial_(std::move(serial)), capacity_(capacity) {}
  TargetRecord identity() const override {
    TargetRecord id;
    id.serial = serial_;
    id.capacity_bytes = capacity_;
    return id;
  }
  bool simulated() const override { return false; }
  std::optional<Error> check_destructive() const override { return std::nullopt; }
  Result<PurgeRecord> purge() override { return PurgeRecord{"none", ""}; }
  std::optional<SmartRecord> health() override { return std::nullopt; }
  WallTime now() const override { return WallTime{} + std::chrono::hours(480000); }
  void stop() override {}
  void restart() override {}

 private:
  std::string serial_;
  std::uint64_t capacity_;
};

// A target that records where each run was told its sequential streams
// start, and says they stopped `step` bytes further on per worker.
class CursorTarget final : public FakeTarget {
 public:
  static constexpr std::uint64_t kStep = 1 << 20;
  std::vector<std::pair<std::string, SequentialCursor>> starts;  // element label, `from`

  CursorTarget() : FakeTarget("FAKE0", 1 << 30) {}
  Result<Measurement> run(const Element& e, std::uint64_t, std::optional<std::uint64_t>,
                          const SequentialCursor& from) override {
    starts.emplace_back(e.label, from);
    Measurement m;
    m.elapsed = std::chrono::seconds(1);
    m.op[1].ops = kStep / 4096;
    m.op[1].bytes = kStep;
    m.cursor = from.empty() ? SequentialCursor(e.threads, 0) : from;
    for (auto& c : m.cursor) c += kStep;
    return m;
  }
};

// One stage of two sequential elements (two workers each), 4 rounds.
TestPlan sequential_plan() {
  TestPlan plan;
  plan.test = "seq";
  plan.destructive = false;
  Stage s;
  for (const char* label : {"SEQ write", "SEQ read"}) {
    Element e;
    e.label = label;
    e.pattern = AccessPattern::sequential;
    e.threads = 2;
    e.read_pct = label == std::string("SEQ read") ? 100 : 0;
    s.elements.push_back(e);
  }
  s.max_rounds = 4;
  plan.stages.push_back(s);
  return plan;
}

constexpr std::uint64_t kStep = CursorTarget::kStep;

TEST(RunExecutor, EachSequentialElementGoesOnWhereItsLastRoundStopped) {
  test::TempDir dir{"pts-cursor"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  CursorTarget target;
  RunExecutor ex(sequential_plan(), target, *store, RunOptions{"s", "fake", true});
  ASSERT_EQ(ex.run().status, RunStatus::completed);
  ASSERT_EQ(target.starts.size(), 8u);
  for (std::size_t i = 0; i < target.starts.size(); ++i) {
    const auto& [label, from] = target.starts[i];
    EXPECT_EQ(label, i % 2 == 0 ? "SEQ write" : "SEQ read");
    const std::uint64_t round = i / 2;
    // Each element's own cursor: the other element's runs do not move it.
    EXPECT_EQ(from, round == 0 ? SequentialCursor{} : SequentialCursor(2, round * kStep)) << "run " << i;
  }
}

TEST(RunExecutor, AResumedRunStartsItsSequentialElementsWhereTheLastCommittedRoundsStopped) {
  test::TempDir dir{"pts-cursor"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  {
    CursorTarget target;
    RunExecutor* self = nullptr;
    RunExecutor ex(sequential_plan(), target, *store, RunOptions{"s", "fake", true}, [&](const RunProgress& p) {
      if (p.index == 5) self->stop();  // 2 rounds of both elements and the write of the third
    });
    self = &ex;
    ASSERT_EQ(ex.run().status, RunStatus::paused);
  }
  // A new process: only the store knows where the streams stopped.
  CursorTarget fresh;
  RunExecutor again(sequential_plan(), fresh, *store, RunOptions{"s", "fake", true});
  ASSERT_EQ(again.run().status, RunStatus::completed);
  ASSERT_EQ(fresh.starts.size(), 3u);
  EXPECT_EQ(fresh.starts[0].first, "SEQ read");
  EXPECT_EQ(fresh.starts[0].second, SequentialCursor(2, 2 * kStep));
  EXPECT_EQ(fresh.starts[1].first, "SEQ write");
  EXPECT_EQ(fresh.starts[1].second, SequentialCursor(2, 3 * kStep));
}

// CBW with every kind of stage, small: preconditioning, a two-point sweep with
// two pre-writes before each of its rounds, and the dedicated histogram rounds.
TestPlan cbw_with_prewrites() {
  return build_plan("cbw",
                    {{"round", "1s"},
                     {"threads", "2"},
                     {"queue_depth", "4"},
                     {"thread_counts", "2,1"},
                     {"queue_depths", "1"},
                     {"prewrite_rounds", "2"},
                     {"histogram_round", "1s"}},
                    TargetFacts{1 << 30, 0});
}

// CBW's pre-write: before each sweep round (not after the last, nor
// before the histogram rounds) its element runs prewrite_rounds times, as
// rounds of its own phase that none of the sweep's results count; a run
// stopped among them goes on with those its sweep round has not had.
TEST(RunExecutor, CbwPreWritesBeforeEachSweepRoundAndAResumeRunsOnlyThoseItsRoundHasNotHad) {
  test::TempDir dir{"pts-prewrite"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  const TestPlan plan = cbw_with_prewrites();
  std::vector<std::string> labels;
  {
    CursorTarget target;
    RunExecutor* self = nullptr;
    RunExecutor ex(plan, target, *store, RunOptions{"c", "fake", true}, [&](const RunProgress& p) {
      // 5 preconditioning rounds (steady at once), the first sweep round
      // after its 2 pre-writes, and the first pre-write of the second.
      if (p.index == 10) self->stop();
    });
    self = &ex;
    ASSERT_EQ(ex.run().status, RunStatus::paused);
    for (const auto& [label, from] : target.starts) labels.push_back(label);
  }
  CursorTarget fresh;
  RunExecutor again(plan, fresh, *store, RunOptions{"c", "fake", true});
  const RunOutcome out = again.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  for (const auto& [label, from] : fresh.starts) labels.push_back(label);
  std::vector<std::string> want(5, "CBW 0/100 T2Q4");
  for (int k = 0; k < 5; ++k) {
    want.insert(want.end(),
                {"CBW 0/100 T2Q4 pre-write", "CBW 0/100 T2Q4 pre-write", "CBW 40/60 T2Q1", "CBW 40/60 T1Q1"});
  }
  ASSERT_EQ(labels.size(), want.size() + 3);  // the 3 histogram rounds last
  EXPECT_EQ(std::vector<std::string>(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(want.size())), want);
  EXPECT_EQ(fresh.starts.front().first, "CBW 0/100 T2Q4 pre-write");  // the one the stop left
  // In run.json each pre-write carries the sweep round it came before, and
  // only the sweep's elements are results.
  const nlohmann::json written = run_json(out.run);
  std::map<std::size_t, int> before;
  for (const auto& r : written["rounds"]) {
    if (r["phase"] == "prewrite") ++before[r["round"].get<std::size_t>()];
  }
  EXPECT_EQ(before, (std::map<std::size_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}, {4, 2}}));
  ASSERT_EQ(written["elements"].size(), 2u);
  for (const auto& e : written["elements"]) EXPECT_EQ(e["rounds_averaged"], 5) << e["label"];
  EXPECT_EQ(written["measurement_window"]["stage"], 1);
}

// Steady state is judged once per round of a stage that tracks it, and not
// at all for one that does not: stopping, the ETA, progress and the
// histogram stage's points all read that one verdict. CBW has every kind of
// stage: preconditioning and the sweep track steady state, the pre-writes and
// the dedicated histogram rounds do not.
TEST(RunExecutor, JudgesSteadyStateOncePerRoundOfAStageThatTracksIt) {
  test::TempDir dir{"pts-verdicts"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  const TestPlan plan = cbw_with_prewrites();
  CursorTarget target;
  std::uint64_t seen = steady_state_evaluations();
  std::vector<std::pair<int, std::uint64_t>> per_round;  // stage, verdicts since the round before
  RunExecutor ex(plan, target, *store, RunOptions{"v", "fake", true}, [&](const RunProgress& p) {
    per_round.emplace_back(p.stage, steady_state_evaluations() - seen);
    seen = steady_state_evaluations();
  });
  ASSERT_EQ(ex.run().status, RunStatus::completed);
  std::set<int> stages;
  for (const auto& [stage, verdicts] : per_round) {
    stages.insert(stage);
    EXPECT_EQ(verdicts, plan.stages[static_cast<std::size_t>(stage)].steady_state ? 1u : 0u) << "stage " << stage;
  }
  EXPECT_EQ(stages.size(), plan.stages.size());
  // The run's results judge each such stage once more, over all its rounds.
  const auto tracking =
      std::count_if(plan.stages.begin(), plan.stages.end(), [](const Stage& s) { return s.steady_state.has_value(); });
  EXPECT_EQ(steady_state_evaluations() - seen, static_cast<std::uint64_t>(tracking));
}

// A target whose every round's writes took from 1 µs to about 1 s, spread
// over every octave between: a latency distribution of about 1,300 buckets
// (10 KiB), the kind a loop device's rounds carry.
class WideLatencyTarget final : public FakeTarget {
 public:
  WideLatencyTarget() : FakeTarget("FAKE1", 1 << 30) {}
  Result<Measurement> run(const Element&, std::uint64_t, std::optional<std::uint64_t>,
                          const SequentialCursor&) override {
    Measurement m;
    m.elapsed = std::chrono::seconds(1);
    for (double ns = 1000; ns < 1e9; ns *= 1.01) m.op[1].latency.record(static_cast<std::uint64_t>(ns));
    m.op[1].ops = m.op[1].latency.count();
    m.op[1].bytes = m.op[1].ops * 4096;
    return m;
  }
};

// Heap in use, all arenas and mapped chunks together.
std::size_t heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// One stage of one random 4 KiB write element, `rounds` rounds long.
TestPlan one_write_element_plan(int rounds) {
  TestPlan plan;
  plan.test = "write";
  plan.destructive = false;
  Stage s;
  Element e;
  e.label = "4KiB write";
  s.elements.push_back(e);
  s.max_rounds = rounds;
  plan.stages.push_back(s);
  return plan;
}

TEST(RunExecutor, AThousandRoundRunHoldsNoRoundsDistributionInMemoryYetItsRecordHasThemAll) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizer's allocator keeps its own books: mallinfo2 reads nothing";
#endif
  test::TempDir dir{"pts-exec-heap"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  WideLatencyTarget target;
  const TestPlan plan = one_write_element_plan(1000);
  std::size_t at_100 = 0, at_1000 = 0;
  RunExecutor ex(plan, target, *store, RunOptions{"h", "fake", true}, [&](const RunProgress& p) {
    if (p.index == 100) at_100 = heap_in_use();
    if (p.index == 1000) at_1000 = heap_in_use();
  });
  RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  ASSERT_GT(at_100, 0u);
  // A round's distribution is about 10 KiB; what the run keeps of a round
  // (its scalars, label, histogram row) is well under 2.
  const double per_round = (static_cast<double>(at_1000) - static_cast<double>(at_100)) / 900.0;
  EXPECT_LT(per_round, 2048.0) << "bytes held per round";
  // The record the run ends with still has every round's distribution, the
  // same as the store's.
  ASSERT_EQ(run_json(out.run)["rounds"].size(), 1000u);
  auto stored = store->rounds(out.run_id);
  ASSERT_TRUE(stored);
  for (std::size_t i : {0u, 499u, 999u}) {
    const auto kept = run_json(out.run)["rounds"][i]["ops"]["write"];
    EXPECT_EQ(kept, nlohmann::json::parse((*stored)[i].data)["ops"]["write"]);
    EXPECT_GT(kept["latency_distribution"]["counts"].size(), 1000u) << kept.dump().substr(0, 300);
  }
}

// A store that records as the one it wraps does, but cannot give a run's
// rounds back (a disk that failed between the last round and the run's end).
class UnreadableRoundsStore final : public RunStore {
 public:
  explicit UnreadableRoundsStore(RunStore& inner) : inner_(inner) {}
  Result<std::int64_t> create_run(const RunRow& run) override { return inner_.create_run(run); }
  Result<std::monostate> commit_round(std::int64_t run, const RoundRow& round, const std::string& checkpoint) override {
    return inner_.commit_round(run, round, checkpoint);
  }
  Result<std::monostate> update_run(std::int64_t run, RunStatus status, std::optional<std::int64_t> ended_ns,
                                    const std::string& header) override {
    return inner_.update_run(run, status, ended_ns, header);
  }
  Result<std::optional<RunRow>> unfinished_run(const std::string& name) override { return inner_.unfinished_run(name); }
  Result<std::optional<RunRow>> latest_run(const std::string& name) override { return inner_.latest_run(name); }
  Result<std::vector<RoundRow>> rounds(std::int64_t) override {
    return Error{ErrorReason::io, "runs.db: disk I/O error"};
  }
  Result<std::vector<RoundRow>> rounds_page(std::int64_t, std::int64_t, std::size_t) override {
    return Error{ErrorReason::io, "runs.db: disk I/O error"};
  }
  Result<std::optional<RunRow>> run(std::int64_t id) override { return inner_.run(id); }
  Result<std::vector<RunRow>> runs(const std::optional<std::string>& serial, int limit) override {
    return inner_.runs(serial, limit);
  }

 private:
  RunStore& inner_;
};

// The record falls back to the rounds in memory, which kept no
// distributions: the run still ends completed with every round in its
// record, and the store, readable again, still has every distribution.
TEST(RunExecutor, ARunWhoseStoreCannotGiveItsRoundsBackEndsWithEveryRoundAndNoDistributionInItsRecord) {
  test::TempDir dir{"pts-exec-unreadable"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  UnreadableRoundsStore unreadable(*store);
  WideLatencyTarget target;
  const TestPlan plan = one_write_element_plan(5);
  RunExecutor ex(plan, target, unreadable, RunOptions{"u", "fake", true});
  const RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  EXPECT_TRUE(out.recorded);
  ASSERT_EQ(run_json(out.run)["rounds"].size(), 5u);
  for (const auto& r : nlohmann::json(run_json(out.run)["rounds"])) {
    EXPECT_GT(r["ops"]["write"]["ops"].get<std::uint64_t>(), 0u);
    EXPECT_FALSE(r["ops"]["write"].contains("latency_distribution")) << r["ops"]["write"].dump().substr(0, 300);
  }
  auto stored = store->rounds(out.run_id);
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->size(), 5u);
  for (const auto& row : *stored) {
    EXPECT_GT(nlohmann::json::parse(row.data)["ops"]["write"]["latency_distribution"]["counts"].size(), 1000u);
  }
}

TEST(RoundRecord, KeepsTheSequentialCursorAndReadsRoundsStoredWithoutOne) {
  Element e;
  e.label = "SEQ 128KiB write";
  Measurement m;
  m.cursor = {1 << 20, 5 << 20};
  const nlohmann::json j = to_json(make_round(e, m, WallTime{}));
  EXPECT_EQ(round_from_json(j).sequential_cursor, m.cursor);
  nlohmann::json old = j;
  old.erase("sequential_cursor");
  EXPECT_TRUE(round_from_json(old).sequential_cursor.empty());
  // A random element has none, and its JSON says nothing about one.
  EXPECT_FALSE(to_json(make_round(e, Measurement{}, WallTime{})).contains("sequential_cursor"));
}

// Two sequential streams of which the first writes three times as fast:
// each writes MiB at its own rate, never past the budget it was given.
class UnevenStreamsTarget final : public FakeTarget {
 public:
  static constexpr std::uint64_t kMiB = 1 << 20;
  std::vector<std::vector<std::uint64_t>> budgets;  // per run, as given

  UnevenStreamsTarget() : FakeTarget("FAKE1", 4 * kMiB) {}
  Result<Measurement> run(const Element& e, std::uint64_t, std::optional<std::uint64_t> max_bytes,
                          const SequentialCursor&) override {
    budgets.push_back(e.thread_budgets);
    Measurement m;
    m.elapsed = std::chrono::seconds(1);
    const std::uint64_t rate[] = {3 * kMiB, 1 * kMiB};
    std::uint64_t total_left = max_bytes.value_or(UINT64_MAX);
    for (unsigned i = 0; i < 2; ++i) {
      // Without budgets of its own a stream takes what the shared one leaves.
      const std::uint64_t own = i < e.thread_budgets.size() ? e.thread_budgets[i] : total_left;
      const std::uint64_t w = std::min({rate[i], own, total_left});
      total_left -= w;
      m.written_by_stream.push_back(w);
      m.op[1].bytes += w;
      m.op[1].ops += w / 4096;
    }
    m.cursor = {0, 2 * kMiB};
    return m;
  }
};

// Preconditioning: 2 x the capacity in SEQ writes of two threads, each over
// its own half of the range. The budget is each thread's own (half of it
// each): the fast thread stops at its share and the slow one goes on until
// it has written its own, so both halves are covered twice. A shared budget
// ended after two rounds, the slow thread's half written only half as often.
TEST(RunExecutor, EachThreadOfAPreconditioningStageWritesItsOwnShareOfTheBudgetAlsoAfterAResume) {
  test::TempDir dir{"pts-threads"};
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  constexpr std::uint64_t kMiB = UnevenStreamsTarget::kMiB;
  TestPlan plan = build_plan("precondition", {{"wipc_threads", "2"}, {"wipc_multiple", "2"}, {"round", "1s"}},
                             TargetFacts{4 * kMiB, 0});
  ASSERT_EQ(plan.stages.back().byte_budget, 8 * kMiB);
  {
    UnevenStreamsTarget target;
    RunExecutor* self = nullptr;
    RunExecutor ex(plan, target, *store, RunOptions{"p", "fake", true}, [&](const RunProgress& p) {
      if (p.index == 2) self->stop();  // two rounds committed: (3, 1) MiB, then (1, 1)
    });
    self = &ex;
    ASSERT_EQ(ex.run().status, RunStatus::paused);
    ASSERT_EQ(target.budgets.size(), 2u);
    EXPECT_EQ(target.budgets[0], (std::vector<std::uint64_t>{4 * kMiB, 4 * kMiB}));
    EXPECT_EQ(target.budgets[1], (std::vector<std::uint64_t>{1 * kMiB, 3 * kMiB}));
  }
  // A new process: what each thread wrote comes from the stored rounds.
  UnevenStreamsTarget fresh;
  RunExecutor again(plan, fresh, *store, RunOptions{"p", "fake", true});
  RunOutcome out = again.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  ASSERT_EQ(fresh.budgets.size(), 2u);
  EXPECT_EQ(fresh.budgets[0], (std::vector<std::uint64_t>{0, 2 * kMiB}));
  EXPECT_EQ(fresh.budgets[1], (std::vector<std::uint64_t>{0, 1 * kMiB}));
  std::vector<std::uint64_t> per_thread(2, 0);
  for (const auto& r : nlohmann::json(run_json(out.run)["rounds"])) {
    if (r["phase"] != "precondition") continue;
    for (std::size_t i = 0; i < 2; ++i) per_thread[i] += r["sequential_written"][i].get<std::uint64_t>();
  }
  EXPECT_EQ(per_thread, (std::vector<std::uint64_t>{4 * kMiB, 4 * kMiB}));
}

// A file has no format: its purge falls back, and it cannot tell its write
// cache. Both are in run.json as named conditions, kept in the store's
// header too, so a report rebuilt from the store names them as well.
TEST(RunExecutor, AFileTargetsFallbackPurgeAndUnknownWriteCacheAreNamedConditions) {
  test::TempDir dir{"pts-conditions"};
  const std::string file = dir.path() + "/disk.img";
  std::ofstream(file) << std::string(1 << 20, 'x');
  SafetyGuard guard(SafetyConfig{{}, {dir.path()}});
  auto target = DeviceTarget::open(file, guard, {}, test::uring_engines());
  ASSERT_TRUE(target) << target.error().message;
  auto store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
  TestPlan plan = build_plan("wsat", {{"rounds", "1"}, {"round", "100ms"}, {"threads", "1"}, {"queue_depth", "1"}},
                             TargetFacts{1 << 20, 0});
  RunExecutor ex(plan, **target, *store, RunOptions{"c", file, true});
  RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  const std::string method = run_json(out.run)["purge"]["method"];
  EXPECT_TRUE(method == "deallocate" || method == "zero-fill") << method;
  std::set<std::string> names;
  for (const auto& c : nlohmann::json(run_json(out.run)["conditions"])) names.insert(c["name"].get<std::string>());
  // "parameter": this test's short rounds and its reviews-length WSAT.
  EXPECT_EQ(names, (std::set<std::string>{"parameter", "purge-fallback", "write-cache-unknown"}));
  const auto stored = header_from_blob(store->run(out.run_id).value()->header);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->conditions.size(), run_json(out.run)["conditions"].size());
}

TEST(RunExecutor, ASimulatedDrivesFormatAndCachelessModelAreConformant) {
  Fixture f;
  // The specification's WSAT, short only because the drive is small.
  f.plan =
      build_plan("wsat", {{"variant", "spec"}, {"capacity_multiple", "0.004"}}, TargetFacts{100'000'000'000ULL, 1.3});
  RunExecutor ex(f.plan, f.target, *f.store, RunOptions{"w", "sim:d0", true});
  RunOutcome out = ex.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  ASSERT_TRUE(run_json(out.run).contains("conditions"));
  // Its format purge and cacheless model are conformant; only the shortened length is not.
  ASSERT_EQ(run_json(out.run)["conditions"].size(), 1u) << run_json(out.run)["conditions"].dump();
  EXPECT_EQ(run_json(out.run)["conditions"][0]["name"], "parameter");
  EXPECT_NE(run_json(out.run)["conditions"][0]["detail"].get<std::string>().find("capacity_multiple=0.004"),
            std::string::npos);
}

TEST(RunConditions, ABlockSizeBelowTheLogicalBlockSizeIsRefusedNamingTheDeviceAndTheSizes) {
  TargetRecord id;
  id.path = "/dev/loop7";
  id.logical_block_bytes = 4096;
  const TargetFacts facts{1 << 30, 0};
  const auto refusal = check_block_sizes(build_plan("iops", {{"block_sizes", "4KiB,512"}}, facts), id);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->reason, ErrorReason::block_size);
  for (const char* part : {"/dev/loop7", "512 B", "4096 B", "block_sizes"}) {
    EXPECT_NE(refusal->message.find(part), std::string::npos) << part << " in " << refusal->message;
  }
  EXPECT_FALSE(check_block_sizes(build_plan("iops", {{"block_sizes", "4KiB,1MiB"}}, facts), id));
  EXPECT_NE(check_block_sizes(build_plan("wsat", {{"bs", "512"}}, facts), id)->message.find("set bs"),
            std::string::npos);
  id.logical_block_bytes = 0;  // unknown: nothing to refuse on
  EXPECT_FALSE(check_block_sizes(build_plan("iops", {}, facts), id));
}

TEST(RunConditions, OnlyAFormatOrSanitizeIsAConformantPurge) {
  EXPECT_FALSE(purge_condition(PurgeRecord{"format", ""}));
  EXPECT_FALSE(purge_condition(PurgeRecord{"sanitize", ""}));
  EXPECT_EQ(purge_condition(PurgeRecord{"deallocate", "BLKDISCARD"})->name, "purge-fallback");
  EXPECT_EQ(purge_condition(PurgeRecord{"zero-fill", "BLKZEROOUT"})->name, "purge-fallback");
  // PTS-E expects the cache disabled, PTS-C enabled.
  EXPECT_FALSE(write_cache_condition(WriteCacheState{false, "Identify"}, false));
  EXPECT_EQ(write_cache_condition(WriteCacheState{true, "Get Features"}, false)->name, "write-cache-enabled");
  EXPECT_FALSE(write_cache_condition(WriteCacheState{true, "Get Features"}, true));
  EXPECT_EQ(write_cache_condition(WriteCacheState{false, "Get Features"}, true)->name, "write-cache-disabled");
  EXPECT_EQ(write_cache_condition(WriteCacheState{std::nullopt, "a file"}, true)->name, "write-cache-unknown");
}

TEST(SimTarget, APacedRunStartsAtItsClockNotAtTheModelsLastAdvance) {
  auto model = small_drive();
  ManualClock clock(model->now() + std::chrono::minutes(3));  // the poller last advanced it 3 min ago
  SimTarget t(model, &clock);
  EXPECT_EQ(t.now(), clock.wall());  // what a run header's start is stamped with
  t.stop();                          // a stopped run does no slice: only where it starts is seen
  Element e;
  e.block_sizes = {BlockSizeWeight{4096, 1}};
  e.duration = std::chrono::seconds(10);
  auto m = t.run(e, 1 << 30, std::nullopt, {});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->stopped);
  EXPECT_EQ(model->now(), clock.wall());
}

TEST(SimTarget, ASmallerSpanReachesAHigherSteadyStateThanTheWholeDrive) {
  auto run_at = [](double fraction) {
    auto model = small_drive();
    SimTarget t(model);
    Element e;
    e.block_sizes = {BlockSizeWeight{4096, 1}};
    e.read_pct = 0;
    e.threads = 4;
    e.queue_depth = 32;
    e.duration = std::chrono::hours(6);
    e.range_fraction = fraction;
    const auto span = static_cast<std::uint64_t>(fraction * 100e9);
    t.run(e, span, std::nullopt, {});  // well past the cliff
    e.duration = std::chrono::minutes(5);
    auto m = t.run(e, span, std::nullopt, {});
    return static_cast<double>(m->op[1].ops) / seconds(m->elapsed);
  };
  const double full = run_at(1.0);
  const double reduced = run_at(0.75);
  EXPECT_GT(reduced, 1.5 * full) << full << " vs " << reduced;
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
