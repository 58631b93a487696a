#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void latency_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  std::vector<Element> elements = mix_by_size(p, c);
  if (p.boolean("sweep")) {
    for (auto t : p.integer_list("sweep_threads")) {
      for (auto q : p.integer_list("sweep_queue_depths")) elements.push_back(at_load(4 * kKiB, 65, c, t, q));
    }
  }
  add_preparation(plan, p, c);
  const std::size_t tracked = find_element(elements, 4096, 0);
  plan.stages.push_back(measured_stage(std::move(elements), c, tracked, TrackedVariable::mean_latency));
}

}  // namespace

TestDefinition latency_test() {
  return {TestKind::latency, latency_plan,
          SpecConditions{
              {"round", "max_rounds", "precondition", "block_sizes", "read_pcts", "threads", "queue_depth", "sweep"},
              nullptr}};
}

}  // namespace nvmond
