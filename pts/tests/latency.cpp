#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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

TestSchema latency_schema() {
  return measuring(
      "PTS latency", {1, 1, std::chrono::seconds(60), true, true, 25},
      {bytes_list("block_sizes", {8 * kKiB, 4 * kKiB, 512}, "block sizes, in this order (the sources' 8, 4, 0.5 KiB)"),
       integer_list("read_pcts", {100, 65, 0}, 100, "read shares, in %"),
       boolean("sweep", false, "add 4KiB 65/35 at each sweep_threads x sweep_queue_depths"),
       integer_list("sweep_threads", {1, 2, 4}, kUnbounded, "thread counts of the sweep"),
       integer_list("sweep_queue_depths", {1, 2, 4, 8, 16, 32}, kUnbounded, "queue depths of the sweep")},
      true);
}

}  // namespace

std::vector<TestDefinition> latency_tests() {
  return {{.name = "latency",
           .rank = 50,
           .schema = latency_schema(),
           .build = latency_plan,
           .spec = SpecConditions{
               {"round", "max_rounds", "precondition", "block_sizes", "read_pcts", "threads", "queue_depth", "sweep"},
               nullptr}}};
}

}  // namespace nvmond
