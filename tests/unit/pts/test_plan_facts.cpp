// What the store keeps of a plan: every named test's plan facts survive the
// header blob, and a plan made from them has the same facts, so a stored run
// is analysed as the plan it ran.
#include <gtest/gtest.h>

#include "pts/plan_facts.hpp"
#include "runmodel/run_codec.hpp"
#include "runmodel/request.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(PlanFacts, EveryNamedTestsFactsRoundTripThroughTheHeaderBlob) {
  std::size_t staged = 0;
  for (const auto& name : test_names()) {
    const TestPlan plan = build_plan(name, {}, TargetFacts{100'000'000'000ULL, 1.3});
    RunHeader header;
    header.test = name;
    header.plan = plan_record(plan);
    staged += header.plan->stages.empty() ? 0 : 1;
    const auto back = header_from_blob(header_blob(header));
    ASSERT_TRUE(back) << name << ": " << back.error().message;
    EXPECT_EQ(back->plan, header.plan) << name;
    EXPECT_EQ(plan_record(plan_from_record(name, *back->plan)), *header.plan) << name;
    EXPECT_FALSE(header_json(header).contains("plan")) << name;  // run.json's header has none
  }
  EXPECT_GT(staged, 10u);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
