// The tests that only prepare a target: a purge, and a purge followed by
// workload-independent preconditioning, each a plan with no measured stage.
#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void purge_plan(TestPlan& plan, Params&, const TargetFacts&) { plan.purge = true; }

void precondition_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  add_preparation(plan, p, c);
}

}  // namespace

TestDefinition purge_test() { return {TestKind::purge, purge_plan, std::nullopt}; }
TestDefinition precondition_test() { return {TestKind::precondition, precondition_plan, SpecConditions{{}, nullptr}}; }

}  // namespace nvmond
