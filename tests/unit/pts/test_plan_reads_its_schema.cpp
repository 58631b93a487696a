// build_plan and validate read one schema: every key a test declares is read
// by its plan, and a plan reading an undeclared key (or as another type)
// fails instead of inventing a parameter validation never saw.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "pts/plan.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

const TargetFacts kDrive{3'840'000'000'000ULL, 1.3};

std::set<std::string> keys_read(const TestRequest& request) {
  std::set<std::string> keys;
  for (const auto& [k, v] : build_plan(request, kDrive).parameters) keys.insert(k);
  return keys;
}

TEST(PlanReadsItsSchema, EveryDeclaredKeyIsReadByThePlanAndNoOther) {
  for (const auto& schema : test_schemas()) {
    // Some keys are read only when a switch is on (wipc_* with
    // precondition, sweep_* with sweep): flip each boolean in turn.
    std::set<std::string> read = keys_read(TestRequest{schema.test, {}});
    for (const auto& spec : schema.params) {
      if (spec.type != ParamType::boolean) continue;
      const bool flipped = !std::get<bool>(*spec.def);
      const auto more = keys_read(TestRequest{schema.test, {{spec.key, ParamValue{flipped}}}});
      read.insert(more.begin(), more.end());
    }
    std::set<std::string> declared;
    for (const auto& spec : schema.params) declared.insert(spec.key);
    EXPECT_EQ(read, declared) << schema.test;
  }
}

TEST(PlanReadsItsSchema, EveryTestWithASchemaHasAPlan) {
  for (const auto& name : test_names()) EXPECT_NO_THROW(build_plan(TestRequest{name, {}}, kDrive)) << name;
}

TEST(PlanReadsItsSchema, ReadingAnUndeclaredKeyOrAnotherTypeIsAProgrammingError) {
  const TestRequest request = validate("wsat", ParamMap{});
  Params p(request);
  EXPECT_THROW(p.integer("treads"), std::logic_error);
  EXPECT_THROW(p.number("rounds"), std::logic_error);
  EXPECT_EQ(p.integer("rounds"), 600);
}

TEST(PlanReadsItsSchema, WhatDependsOnTheDriveIsCheckedWhenThePlanIsBuiltForIt) {
  const TestRequest endurance = validate("endurance", ParamMap{});
  EXPECT_EQ(build_plan(endurance, TargetFacts{1'000'000'000'000ULL, 3.0}).parameters.at("dwpd"), "3");
  EXPECT_EQ(build_plan(endurance, TargetFacts{1'000'000'000'000ULL, 0}).parameters.at("dwpd"), "1");
  EXPECT_THROW(build_plan(endurance, TargetFacts{1'000'000'000'000ULL, 5000}), ParamError);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond
