#pragma once
// One definition per test: its name, its place in the list, its schema and
// how it becomes a plan. Each pts/tests/<family>.cpp defines
// `std::vector<TestDefinition> <family>_tests()`, and the registry finds
// them through the list CMake generates from the files in pts/tests/, so a
// test is its own file and no list elsewhere names it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pts/plan.hpp"
#include "pts/run_conditions.hpp"
#include "runmodel/pts_kind.hpp"
#include "runmodel/request.hpp"

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
  // As requests, run.json and the store give it.
  std::string name;
  // Its place among the tests (nvmonctl's help, the docs): ascending, each
  // test's its own.
  int rank = 0;
  // Its parameters; the registry gives it the test's name.
  TestSchema schema{};
  PlanBuilder build = nullptr;
  // nullopt: not a PTS test (or purge, which has no parameters), so nothing
  // to depart from.
  std::optional<SpecConditions> spec{};

  // What code that treats the test apart (the report's own sections)
  // branches on; nullopt for a test nothing treats apart.
  std::optional<TestKind> kind() const { return test_kind_from_name(name); }
};

// Every test, by rank (the documentation's order).
const std::vector<TestDefinition>& test_definitions();
// nullptr for a name that is no test.
const TestDefinition* find_test_definition(std::string_view name);
// Every kind is a test's (pts_kind.cpp names only tests that have a file).
const TestDefinition& test_definition(TestKind kind);

}  // namespace nvmond
