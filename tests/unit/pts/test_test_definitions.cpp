// One definition per test, each from its own file: the registry lists them
// in their ranks' order (the documentation's), each name once, each with a
// plan; the schemas are theirs; every kind the run model names is a test's,
// and a test no code treats apart needs no kind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pts/plan.hpp"
#include "pts/catalog.hpp"
#include "pts/tests/definition.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using ::testing::HasSubstr;

TEST(TestDefinitions, InTheDocumentationsOrder) {
  std::vector<std::string> names;
  for (const auto& d : test_definitions()) names.push_back(d.name);
  const std::vector<std::string> pts_and_reviews = {"purge", "precondition", "iops",      "throughput", "latency",
                                                    "wsat",  "mixed",        "vqd",       "cbw",        "dirth",
                                                    "slc",   "qos",          "endurance", "hir",        "xsr"};
  ASSERT_GE(names.size(), pts_and_reviews.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + static_cast<long>(pts_and_reviews.size())),
            pts_and_reviews);
}

TEST(TestDefinitions, EachHasItsOwnNameRankAndPlanAndItsSchemaIsTheCatalogs) {
  const auto& defs = test_definitions();
  const auto& schemas = test_schemas();
  ASSERT_EQ(defs.size(), schemas.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    EXPECT_TRUE(names.insert(defs[i].name).second) << defs[i].name;
    if (i > 0) {
      EXPECT_LT(defs[i - 1].rank, defs[i].rank) << defs[i].name;
    }
    EXPECT_NE(defs[i].build, nullptr) << defs[i].name;
    EXPECT_EQ(defs[i].schema.test, defs[i].name);
    EXPECT_EQ(schemas[i].test, defs[i].name);
    EXPECT_EQ(find_test_definition(defs[i].name), &defs[i]);
  }
  EXPECT_EQ(test_names().size(), defs.size());
  EXPECT_EQ(find_test_definition("no such test"), nullptr);
}

TEST(TestDefinitions, EveryKindIsATestsAndReadsBackAsItsName) {
  for (const auto kind :
       {TestKind::purge, TestKind::precondition, TestKind::iops, TestKind::throughput, TestKind::latency,
        TestKind::wsat, TestKind::mixed, TestKind::vqd, TestKind::cbw, TestKind::dirth, TestKind::slc, TestKind::qos,
        TestKind::endurance, TestKind::hir, TestKind::xsr}) {
    const TestDefinition& d = test_definition(kind);
    EXPECT_EQ(d.name, test_kind_name(kind));
    EXPECT_EQ(d.kind(), kind) << d.name;
  }
  EXPECT_EQ(test_definition(TestKind::hir).name, "hir");
}

TEST(TestDefinitions, TheClientProfilesSchemasAreTestsOfTheirName) {
  for (const auto& s : test_schemas(PtsProfile::client)) EXPECT_NE(find_test_definition(s.test), nullptr) << s.test;
}

// The report is given what the tests that are not PTS tests rest on: every
// such test's, and no PTS test's.
TEST(TestDefinitions, TheBasesAreTheNonPtsTestsOwn) {
  for (const auto& s : test_schemas()) {
    if (s.basis.empty()) {
      EXPECT_EQ(test_bases().count(s.test), 0u) << s.test;
    } else {
      EXPECT_EQ(test_bases().at(s.test), s.basis);
    }
  }
  EXPECT_THAT(test_bases().at("slc"), HasSubstr("SLC-cache fill"));
  EXPECT_THAT(test_bases().at("qos"), HasSubstr("datasheet"));
  EXPECT_EQ(test_bases().count("wsat"), 0u);
}

TEST(TestDefinitions, APlanIsBuiltByItsTestsDefinition) {
  const TargetFacts drive{1'000'000'000'000ULL, 1.0};
  const TestPlan plan = build_plan(validate(test_definition(TestKind::xsr).name, ParamMap{}), drive);
  EXPECT_EQ(plan.test, "xsr");
  ASSERT_EQ(plan.stages.size(), 3u);
  EXPECT_EQ(plan.stages[0].label.substr(0, 3), "AG1");
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
