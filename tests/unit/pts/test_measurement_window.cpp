// What a PTS stage reports and when it stops, on a target whose every round
// is scripted: the IOPS test stops only once all three tracked variables are
// steady in the same window, and every element value comes from the
// measurement window (the steady-state window, else the last rounds), its
// latency quantiles from the window's summed distributions.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "pts/run_executor.hpp"
#include "runmodel/run_json.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;

// One round of one element: `iops` for a minute, every I/O of the element's
// ops taking `latency_ns` but a `slow_share` of them taking `slow_ns`.
struct Scripted {
  double iops = 1000;
  std::uint64_t latency_ns = 100'000;
  double slow_share = 0;
  std::uint64_t slow_ns = 0;
};

using Script = std::function<Scripted(const Element&, std::size_t round)>;

Measurement measured(const Element& e, const Scripted& s) {
  Measurement m;
  m.elapsed = std::chrono::seconds(60);
  const double total = s.iops * 60;
  for (int op = 0; op < kIoOpCount; ++op) {
    const double share = op == 0 ? e.read_pct / 100 : 1 - e.read_pct / 100;
    const auto ops = static_cast<std::uint64_t>(total * share + 0.5);
    if (ops == 0) continue;
    const auto slow = static_cast<std::uint64_t>(static_cast<double>(ops) * s.slow_share + 0.5);
    OpTotals& t = m.op[op];
    t.ops = ops;
    t.bytes = ops * e.block_sizes[0].bytes;
    t.latency.record(s.latency_ns, ops - slow);
    t.latency.record(s.slow_ns, slow);
  }
  return m;
}

class ScriptedTarget final : public TestTarget {
 public:
  explicit ScriptedTarget(Script script) : script_(std::move(script)) {}
  TargetRecord identity() const override {
    TargetRecord id;
    id.path = "scripted";
    id.serial = "SCRIPTED0";
    id.model = "scripted";
    id.capacity_bytes = 100'000'000'000ULL;
    return id;
  }
  bool simulated() const override { return true; }
  std::optional<Error> check_destructive() const override { return std::nullopt; }
  Result<PurgeRecord> purge() override { return PurgeRecord{"none", ""}; }
  Result<Measurement> run(const Element& e, std::uint64_t, std::optional<std::uint64_t>,
                          const SequentialCursor&) override {
    now_ += std::chrono::seconds(60);
    return measured(e, script_(e, rounds_[e.label]++));
  }
  std::optional<SmartRecord> health() override { return std::nullopt; }
  WallTime now() const override { return now_; }
  void stop() override {}
  void restart() override {}

 private:
  Script script_;
  std::map<std::string, std::size_t> rounds_;
  WallTime now_ = WallTime{} + std::chrono::hours(480000);
};

bool is(const Element& e, std::uint32_t bs, double read_pct) {
  return e.block_sizes[0].bytes == bs && e.read_pct == read_pct;
}

// An IOPS matrix of the three tracked cells and their neighbours, no purge or
// preconditioning, at most `max_rounds` rounds.
json iops_run(const Script& script, int max_rounds, const std::function<void(TestPlan&)>& adjust = {}) {
  test::TempDir dir("pts-window");
  auto store = SqliteRunStore::open_file(dir.path() + "/runs.db");
  EXPECT_TRUE(store);
  ScriptedTarget target(script);
  TestPlan plan = build_plan("iops",
                             {{"block_sizes", "1MiB,64KiB,4KiB"},
                              {"read_pcts", "100,65,0"},
                              {"purge", "false"},
                              {"precondition", "false"},
                              {"max_rounds", std::to_string(max_rounds)}},
                             TargetFacts{100'000'000'000ULL, 1});
  if (adjust) adjust(plan);
  RunExecutor ex(plan, target, **store, RunOptions{"iops", "scripted"});
  const RunOutcome out = ex.run();
  EXPECT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  return run_json(out.run);
}

const json& element(const json& run, const std::string& label) {
  for (const auto& e : run.at("elements")) {
    if (e.at("label") == label) return e;
  }
  ADD_FAILURE() << "no element " << label;
  static const json none = json::object();
  return none;
}

std::size_t rounds_of(const json& run) {
  std::size_t n = 0;
  for (const auto& r : run.at("rounds")) n = std::max<std::size_t>(n, r.at("round").get<std::size_t>() + 1);
  return n;
}

TEST(IopsTracking, FourKibWritesSettledWhile64KibMixedStillDriftsDoesNotStopTheTest) {
  const json run = iops_run(
      [](const Element& e, std::size_t round) {
        Scripted s;
        if (is(e, 64 * 1024, 65)) s.iops = 1000 * (1 + 0.1 * static_cast<double>(round));  // +10 % a round
        return s;
      },
      10);
  EXPECT_EQ(rounds_of(run), 10u) << "the stage stopped while 64KiB 65/35 was still drifting";
  EXPECT_FALSE(run.at("steady_state").at("reached").get<bool>());
}

TEST(IopsTracking, AllThreeSteadyInOneWindowStopsTheTestThere) {
  const json run = iops_run(
      [](const Element& e, std::size_t round) {
        Scripted s;
        // 64KiB 65/35 settles from round 3 on; the others are steady throughout.
        if (is(e, 64 * 1024, 65)) s.iops = round < 3 ? 3000 : 1000;
        return s;
      },
      25);
  EXPECT_EQ(rounds_of(run), 8u);
  const json& ss = run.at("steady_state");
  EXPECT_TRUE(ss.at("reached").get<bool>());
  EXPECT_EQ(ss.at("round"), 7);
  ASSERT_EQ(ss.at("variables").size(), 3u);
  std::set<std::string> tracked;
  for (const auto& v : ss.at("variables")) {
    tracked.insert(v.at("element").get<std::string>());
    EXPECT_EQ(v.at("window"), json::array({3, 7}));
    EXPECT_TRUE(v.at("range_ok").get<bool>() && v.at("slope_ok").get<bool>());
  }
  EXPECT_EQ(tracked, (std::set<std::string>{"4KiB 0/100", "64KiB 65/35", "1MiB 100/0"}));
}

TEST(MeasurementWindow, WithoutSteadyStateElementsAverageTheLastFiveRoundsAndSaySo) {
  const json run = iops_run(
      [](const Element& e, std::size_t round) {
        Scripted s;
        if (is(e, 64 * 1024, 65)) s.iops = 1000 * (1 + 0.1 * static_cast<double>(round));
        return s;
      },
      10);
  // Rounds 5..9: 1500, 1600, 1700, 1800, 1900.
  EXPECT_NEAR(element(run, "64KiB 65/35").at("iops").get<double>(), 1700, 0.5);
  const json& w = run.at("measurement_window");
  EXPECT_EQ(w.at("rounds"), json::array({5, 9}));
  EXPECT_FALSE(w.at("steady_state").get<bool>());
}

TEST(MeasurementWindow, LatencyComesFromTheWindowsSummedDistributions) {
  const json run = iops_run(
      [](const Element& e, std::size_t round) {
        Scripted s;
        // Round 0 of 4KiB writes has a 2 % tail at 10 ms; the rest of the
        // window none. Over the window the tail is 0.4 %: p99 is the body,
        // p99.9 and the maximum the tail (no one round says so).
        if (is(e, 4096, 0) && round == 0) s.slow_share = 0.02, s.slow_ns = 10'000'000;
        return s;
      },
      25);
  ASSERT_EQ(run.at("measurement_window").at("rounds"), json::array({0, 4}));
  const json& l = element(run, "4KiB 0/100").at("ops").at("write").at("latency_s");
  EXPECT_NEAR(l.at("p99").get<double>(), 100e-6, 1e-6);
  EXPECT_NEAR(l.at("p99.9").get<double>(), 10e-3, 10e-3 / 100);
  EXPECT_NEAR(l.at("p99.999").get<double>(), 10e-3, 10e-3 / 100);
  EXPECT_NEAR(l.at("max").get<double>(), 10e-3, 1e-9);
  // 60 000 writes a round, 1 200 of them slow in one round of five.
  EXPECT_NEAR(l.at("mean").get<double>(), (1200 * 10e-3 + (300'000 - 1200) * 100e-6) / 300'000, 1e-9);
}

TEST(MeasurementWindow, AQosCheckJudgesTheWindowNotItsLastRound) {
  std::size_t writes = 0;
  const json run = iops_run(
      [](const Element& e, std::size_t round) {
        Scripted s;
        if (is(e, 4096, 0) && round == 0) s.slow_share = 0.02, s.slow_ns = 10'000'000;
        return s;
      },
      25,
      [&writes](TestPlan& plan) {
        const auto& cells = plan.stages.back().elements;
        for (std::size_t i = 0; i < cells.size(); ++i) {
          if (is(cells[i], 4096, 0)) writes = i;
        }
        plan.qos.push_back(QosCheck{IoOp::write, 4096, 0.999, 1e-3, writes});
      });
  ASSERT_EQ(run.at("measurement_window").at("rounds"), json::array({0, 4}));
  // The last round alone (no tail) would pass at 0.1 ms.
  const json& check = run.at("qos").at("checks").at(0);
  EXPECT_NEAR(check.at("measured_s").get<double>(), 10e-3, 10e-3 / 100);
  EXPECT_FALSE(check.at("pass").get<bool>());
  EXPECT_FALSE(run.at("qos").at("pass").get<bool>());
}

TEST(MeasurementWindow, EveryRoundRecordsFiveNines) {
  const json run = iops_run(
      [](const Element&, std::size_t) {
        Scripted s;
        s.slow_share = 0.00002, s.slow_ns = 5'000'000;  // 1 write in 50 000
        return s;
      },
      5);
  for (const auto& r : run.at("rounds")) {
    if (r.at("element").at("label") != "4KiB 0/100") continue;
    const json& l = r.at("ops").at("write").at("latency_s");
    EXPECT_NEAR(l.at("p99.99").get<double>(), 100e-6, 1e-6);
    EXPECT_NEAR(l.at("p99.999").get<double>(), 5e-3, 5e-3 / 100);
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
