// The tests that only prepare a target: a purge, and a purge followed by
// workload-independent preconditioning, each a plan with no measured stage.
#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

void purge_plan(TestPlan& plan, Params&, const TargetFacts&) { plan.purge = true; }

void precondition_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  add_preparation(plan, p, c);
}

}  // namespace

std::vector<TestDefinition> purge_tests() {
  return {
      {.name = "purge", .rank = 10, .schema = TestSchema{{}, "purge the target", {}, false}, .build = purge_plan},
      {.name = "precondition",
       .rank = 20,
       .schema = measuring("purge, then workload-independent preconditioning",
                           {1, 32, std::chrono::seconds(60), true, true, 25}, {}, false),
       .build = precondition_plan,
       .spec = SpecConditions{{}, nullptr}},
  };
}

}  // namespace nvmond
