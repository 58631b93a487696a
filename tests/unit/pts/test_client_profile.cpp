// The Client profile (PTS-C 2.0.x): which tests it has, the plans they make
// (elements, order, tracking variable, window, active range, load) and the
// write cache state a run sets, against the same tests under PTS-E.
#include <gtest/gtest.h>

#include <fstream>

#include "pts/targets/device_target.hpp"
#include "runmodel/run_codec.hpp"
#include "pts/run_executor.hpp"
#include "runmodel/run_json.hpp"
#include "pts/plan.hpp"
#include "store/sqlite_run_store.hpp"
#include "tests/support/fake_controller.hpp"
#include "tests/support/jobs.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

const TargetFacts kDrive{1'000'000'000'000ULL, 0.3};
constexpr std::uint64_t KiB = 1024;

TestPlan client(const std::string& test, const ParamMap& params = {}) {
  return build_plan(test, params, kDrive, PtsProfile::client);
}

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const ParamError& e) {
    return e.what();
  }
  return "";
}

TEST(ClientProfile, HasTheFourPtsCTestsNvmondRunsAsTheSpecificationDoes) {
  EXPECT_EQ(test_names(PtsProfile::client), (std::vector<std::string>{"iops", "throughput", "latency", "wsat"}));
  EXPECT_EQ(test_names(PtsProfile::enterprise), test_names());
  EXPECT_EQ(parse_profile("client"), PtsProfile::client);
  EXPECT_EQ(parse_profile("enterprise"), PtsProfile::enterprise);
}

TEST(ClientProfile, ATestItDoesNotHaveAndAnUnknownProfileAreRefusedByName) {
  const std::string cbw = what([] { validate("cbw", {}, PtsProfile::client); });
  EXPECT_NE(cbw.find("cbw is not a test of the client profile"), std::string::npos) << cbw;
  EXPECT_NE(cbw.find("iops, throughput, latency, wsat"), std::string::npos) << cbw;
  EXPECT_NE(what([] { client("vqd"); }), "");
  const std::string bad = what([] { parse_profile("clinet"); });
  EXPECT_EQ(bad, "unknown profile \"clinet\" (known: enterprise, client)");
  // Under PTS-E every test is there, as before.
  EXPECT_EQ(what([] { validate("cbw", {}); }), "");
}

TEST(ClientProfile, IopsIsTheSameMatrixAtT2Q16OverSeventyFivePercentWithTheCacheEnabled) {
  const TestPlan p = client("iops");
  EXPECT_EQ(p.profile, PtsProfile::client);
  EXPECT_TRUE(p.write_cache_enabled);
  EXPECT_EQ(p.tested_range_bytes, 750'000'000'000ULL);
  EXPECT_EQ(p.parameters.at("range"), "0.75");
  EXPECT_EQ(p.parameters.at("threads"), "2");
  EXPECT_EQ(p.parameters.at("queue_depth"), "16");
  ASSERT_EQ(p.stages.size(), 2u);
  // WIPC: 2 x the user capacity of SEQ 128 KiB over the active range.
  const Stage& wipc = p.stages[0];
  EXPECT_EQ(wipc.kind, "workload-independent");
  EXPECT_EQ(*wipc.byte_budget, 2 * kDrive.capacity_bytes);
  EXPECT_EQ(wipc.elements.at(0).range_fraction, 0.75);
  EXPECT_EQ(wipc.elements.at(0).block_sizes.at(0).bytes, 128 * KiB);
  const Stage& s = p.stages[1];
  ASSERT_EQ(s.elements.size(), 56u);
  // The order and the elements are PTS-E's, the load and the range PTS-C's.
  const TestPlan e = build_plan("iops", {}, kDrive);
  for (std::size_t i = 0; i < 56; ++i) {
    EXPECT_EQ(s.elements[i].label, e.stages[1].elements[i].label);
    EXPECT_EQ(s.elements[i].threads, 2u);
    EXPECT_EQ(s.elements[i].queue_depth, 16u);
    EXPECT_EQ(s.elements[i].range_fraction, 0.75);
  }
  ASSERT_TRUE(s.steady_state);
  std::vector<std::string> tracked;
  for (const auto& t : s.steady_state->tracked) {
    EXPECT_EQ(t.variable, TrackedVariable::iops);
    tracked.push_back(s.elements[t.element].label);
  }
  EXPECT_EQ(tracked, (std::vector<std::string>{"4KiB 0/100", "64KiB 65/35", "1MiB 100/0"}));
  EXPECT_EQ(s.steady_state->rule.window, 5);
  EXPECT_EQ(s.max_rounds, 25);
}

TEST(ClientProfile, ThroughputIsTheOneMibSubTestOnlyOverSeventyFivePercent) {
  const TestPlan p = client("throughput");
  EXPECT_TRUE(p.write_cache_enabled);
  EXPECT_EQ(p.parameters.at("block_sizes"), "1048576");
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(*p.stages[0].byte_budget, 2 * kDrive.capacity_bytes);
  EXPECT_EQ(p.stages[0].elements.at(0).block_sizes.at(0).bytes, 1024 * KiB);
  const Stage& s = p.stages[1];
  ASSERT_EQ(s.elements.size(), 2u);
  EXPECT_EQ(s.elements[0].label, "SEQ 1MiB read");
  EXPECT_EQ(s.elements[1].label, "SEQ 1MiB write");
  for (const auto& el : s.elements) {
    EXPECT_EQ(el.pattern, AccessPattern::sequential);
    EXPECT_EQ(el.range_fraction, 0.75);
    EXPECT_EQ(el.threads, 1u);
    EXPECT_EQ(el.queue_depth, 32u);
  }
  ASSERT_EQ(s.steady_state->tracked.size(), 1u);
  EXPECT_EQ(s.steady_state->tracked[0].element, 1u);
  EXPECT_EQ(s.steady_state->tracked[0].variable, TrackedVariable::bytes_per_second);
  EXPECT_EQ(s.steady_state->rule.window, 5);
}

TEST(ClientProfile, LatencyStaysAtT1Q1TrackingFourKibWriteLatency) {
  const TestPlan p = client("latency");
  EXPECT_TRUE(p.write_cache_enabled);
  const Stage& s = p.stages.back();
  ASSERT_EQ(s.elements.size(), 9u);
  for (const auto& el : s.elements) {
    EXPECT_EQ(el.threads, 1u);
    EXPECT_EQ(el.queue_depth, 1u);
    EXPECT_EQ(el.range_fraction, 0.75);
  }
  EXPECT_EQ(s.elements.front().label, "8KiB 100/0");
  ASSERT_EQ(s.steady_state->tracked.size(), 1u);
  EXPECT_EQ(s.elements[s.steady_state->tracked[0].element].label, "4KiB 0/100");
  EXPECT_EQ(s.steady_state->tracked[0].variable, TrackedVariable::mean_latency);
}

TEST(ClientProfile, WsatWritesFourKibAtT2Q16AndItsSpecVariantStopsAtFourTimesTheUserCapacity) {
  const TestPlan p = client("wsat");
  EXPECT_TRUE(p.write_cache_enabled);
  EXPECT_FALSE(p.stages.empty());
  const Stage& s = p.stages.back();
  ASSERT_EQ(s.elements.size(), 1u);
  EXPECT_EQ(s.elements[0].label, "4KiB 0/100");
  EXPECT_EQ(s.elements[0].threads, 2u);
  EXPECT_EQ(s.elements[0].queue_depth, 16u);
  EXPECT_EQ(s.elements[0].range_fraction, 0.75);
  EXPECT_EQ(s.max_rounds, 600);
  EXPECT_FALSE(s.steady_state->stop_when_reached);
  const TestPlan spec_plan = client("wsat", {{"variant", "spec"}});  // kept: `spec` points into it
  const Stage& spec = spec_plan.stages.back();
  // 4 x the user capacity (the drive's 1 TB), not 4 x the 75 % range.
  EXPECT_EQ(*spec.byte_budget, 4 * kDrive.capacity_bytes);
  EXPECT_EQ(spec.max_rounds, 360);
}

TEST(ClientProfile, GivenParametersStillOverrideItsDefaults) {
  const TestPlan p = client("iops", {{"threads", "4"}, {"range", "1"}});
  EXPECT_EQ(p.parameters.at("threads"), "4");
  EXPECT_EQ(p.stages.back().elements[0].threads, 4u);
  EXPECT_EQ(p.tested_range_bytes, kDrive.capacity_bytes);
  EXPECT_EQ(p.parameters.at("queue_depth"), "16");
  EXPECT_TRUE(p.write_cache_enabled);
}

TEST(ClientProfile, EnterpriseIsTheDefaultWithTheCacheDisabledOverTheWholeRange) {
  const TestPlan p = build_plan("iops", {}, kDrive);
  EXPECT_EQ(p.profile, PtsProfile::enterprise);
  EXPECT_FALSE(p.write_cache_enabled);
  EXPECT_EQ(p.parameters.at("range"), "1");
  EXPECT_EQ(p.parameters.at("threads"), "4");
  EXPECT_EQ(build_plan("throughput", {}, kDrive).parameters.at("block_sizes"), "1048576,131072");
}

// A drive whose cache is disabled gets it enabled for a client run and back
// to disabled at its end; one that refuses runs as it is, non-conformant.
struct DriveFixture {
  DriveFixture() {
    std::ofstream(file) << std::string(1 << 20, 'x');
    script->identity.serial = "SN-CLIENT";
    script->identity.vwc = 1;
    script->write_cache_enabled = false;
  }
  RunOutcome run() {
    auto target = DeviceTarget::open(file, guard, test::fake_namespace(script, 3), test::uring_engines());
    if (!target) throw std::runtime_error(target.error().message);
    const TestPlan plan =
        build_plan("wsat", {{"rounds", "2"}, {"round", "50ms"}, {"threads", "1"}, {"queue_depth", "1"}},
                   TargetFacts{1 << 20, 0}, PtsProfile::client);
    RunExecutor ex(plan, **target, *store, RunOptions{"client", file, true});
    return ex.run();
  }
  test::TempDir dir{"pts-client"};
  std::string file = dir.path() + "/ns.img";
  SafetyGuard guard{SafetyConfig{{}, {dir.path()}}};
  std::shared_ptr<test::ControllerScript> script = std::make_shared<test::ControllerScript>();
  std::unique_ptr<SqliteRunStore> store = std::move(*SqliteRunStore::open_file(dir.path() + "/runs.db"));
};

// The run's conditions other than its parameters' (this fixture's rounds
// are short, which is a departure of its own).
nlohmann::json non_parameter_conditions(const nlohmann::json& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : run.value("conditions", nlohmann::json::array())) {
    if (c["name"] != "parameter") out.push_back(c);
  }
  return out;
}

TEST(ClientProfile, ARunEnablesADisabledWriteCacheAndPutsItBackDisabled) {
  DriveFixture f;
  const RunOutcome out = f.run();
  ASSERT_EQ(out.status, RunStatus::completed) << (out.failure ? out.failure->message : "");
  EXPECT_EQ(f.script->write_cache_sets, (std::vector<bool>{true, false}));
  EXPECT_EQ(f.script->write_cache_enabled, std::optional<bool>(false));
  EXPECT_EQ(run_json(out.run)["profile"], "client");
  EXPECT_EQ(run_json(out.run)["write_cache"]["found"], false);
  EXPECT_EQ(run_json(out.run)["write_cache"]["during"], true);
  EXPECT_TRUE(run_json(out.run)["write_cache"].contains("restored_at"));
  // Conformant: the cache was as PTS-C requires; PTS-E's wish would have been
  // a condition here.
  EXPECT_TRUE(non_parameter_conditions(run_json(out.run)).empty()) << run_json(out.run)["conditions"].dump();
  auto header = header_from_blob(f.store->run(out.run_id).value()->header);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->profile, std::optional<PtsProfile>(PtsProfile::client));
}

TEST(ClientProfile, ADriveThatRefusesToEnableItsCacheRunsWithTheCacheDisabledCondition) {
  DriveFixture f;
  f.script->write_cache_set_error = Error{ErrorReason::nvme_status, "fake:nvme7: set features (06h): Invalid Field"};
  const RunOutcome out = f.run();
  ASSERT_EQ(out.status, RunStatus::completed);
  const auto conditions = non_parameter_conditions(run_json(out.run));
  ASSERT_FALSE(conditions.empty());
  const auto& c = conditions[0];
  EXPECT_EQ(c["name"], "write-cache-disabled");
  const std::string detail = c["detail"].get<std::string>();
  EXPECT_NE(detail.find("Invalid Field"), std::string::npos) << detail;
  EXPECT_NE(detail.find("expects it enabled"), std::string::npos) << detail;
}

TEST(ClientProfile, AnEnterpriseRunOfTheSameNameIsNotResumedAsAClientOne) {
  DriveFixture f;
  auto target = DeviceTarget::open(f.file, f.guard, test::fake_namespace(f.script, 3), test::uring_engines());
  ASSERT_TRUE(target);
  const TestPlan enterprise = build_plan(
      "wsat", {{"rounds", "3"}, {"round", "50ms"}, {"threads", "1"}, {"queue_depth", "1"}}, TargetFacts{1 << 20, 0});
  RunExecutor* self = nullptr;
  RunExecutor ex(enterprise, **target, *f.store, RunOptions{"client", f.file, true}, [&](const RunProgress& p) {
    if (p.index == 1) self->stop(StopAs::paused);  // left "running", as after kill -9
  });
  self = &ex;
  const RunOutcome left = ex.run();
  ASSERT_EQ(left.status, RunStatus::paused);
  const RunOutcome fresh = f.run();
  ASSERT_EQ(fresh.status, RunStatus::completed);
  EXPECT_NE(fresh.run_id, left.run_id);
  EXPECT_EQ(f.store->run(left.run_id).value()->status, RunStatus::interrupted);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
