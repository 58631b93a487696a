#pragma once
// One definition per test: which test it is (its schema, in the run model,
// by kind) and how it becomes a plan. The registry lists every definition
// once, so that a test with a schema and no plan, or two plans, fails at the
// first use instead of at a run's start.
#include <optional>
#include <string>
#include <vector>

#include "pts/plan.hpp"
#include "pts/run_conditions.hpp"
#include "runmodel/request.hpp"
#include "runmodel/pts_kind.hpp"

namespace nvmond {

// Fills a plan whose test, profile, write cache state and tested range
// (still the whole capacity) build_plan has set.
using PlanBuilder = void (*)(TestPlan& plan, Params& params, const TargetFacts& target);

// What a run of a PTS test may depart from (pts/run_conditions.hpp): the
// parameters whose value the specification fixes, its default in the
// profile's schema being the specification's value (the sources each rests
// on: docs/pts.md, "Conformance to the PTS"), and what else it checks of the
// plan (WSAT's length, whose default follows the reviews). Thread count and
// queue depth are the operator's choice and not listed, except for
// latency's T1Q1. `window`, `purge` and `range` (the profile's active
// range) are every test's; `wipc_*` count while the WIPC runs.
struct SpecConditions {
  std::vector<std::string> keys;
  void (*check)(const TestPlan& plan, std::vector<RunCondition>& out) = nullptr;
};

struct TestDefinition {
  TestKind kind = TestKind::purge;
  PlanBuilder build = nullptr;
  // nullopt: not a PTS test (or purge, which has no parameters), so nothing
  // to depart from.
  std::optional<SpecConditions> spec{};

  const char* name() const { return test_kind_name(kind); }
  const TestSchema& schema() const { return test_schema(kind); }
};

// Every test, in TestKind order (the schemas' documentation order).
const std::vector<TestDefinition>& test_definitions();
const TestDefinition& test_definition(TestKind kind);

}  // namespace nvmond
