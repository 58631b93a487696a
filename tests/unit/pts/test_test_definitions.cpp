// One definition per test: the registry and the run model's schemas list the
// same tests in the same order, so a test with a schema and no plan (or a
// plan and no schema) cannot reach a run.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pts/plan.hpp"
#include "pts/tests/definition.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

TEST(TestDefinitions, OnePerSchemaInTheSchemasOrder) {
  const auto& defs = test_definitions();
  const auto& schemas = test_schemas();
  ASSERT_EQ(defs.size(), schemas.size());
  for (std::size_t i = 0; i < defs.size(); ++i) {
    EXPECT_EQ(defs[i].kind, schemas[i].kind) << schemas[i].test;
    EXPECT_EQ(std::string(defs[i].name()), schemas[i].test);
    EXPECT_NE(defs[i].build, nullptr) << schemas[i].test;
    EXPECT_EQ(&defs[i].schema(), &schemas[i]) << schemas[i].test;
  }
}

TEST(TestDefinitions, EachKindHasExactlyOne) {
  std::set<TestKind> seen;
  for (const auto& d : test_definitions()) EXPECT_TRUE(seen.insert(d.kind).second) << d.name();
  EXPECT_EQ(test_definition(TestKind::hir).kind, TestKind::hir);
  EXPECT_EQ(test_definition(TestKind::xsr).kind, TestKind::xsr);
}

TEST(TestDefinitions, APlanIsBuiltByItsTestsDefinition) {
  const TargetFacts drive{1'000'000'000'000ULL, 1.0};
  const TestPlan plan = build_plan(validate(test_definition(TestKind::xsr).name(), ParamMap{}), drive);
  EXPECT_EQ(plan.test, "xsr");
  ASSERT_EQ(plan.stages.size(), 3u);
  EXPECT_EQ(plan.stages[0].label.substr(0, 3), "AG1");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
