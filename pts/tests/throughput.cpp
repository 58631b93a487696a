#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

// Throughput as the specification runs it: one sub-test per block size,
// each with its own purge, its own WIPC at that block size and its own
// steady state on that block size's SEQ write bandwidth (reads are measured
// but not tracked). Block sizes run in the order given, 1 MiB first by
// default, and within a round reads (100/0) come before writes (0/100): the
// order of the specification's procedure as the PTS implementations we
// read it in run it (docs/pts.md, "Conformance").
void throughput_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto sizes = p.bytes_list("block_sizes");
  plan.purge = c.purge;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t first = plan.stages.size();
    if (c.precondition) plan.stages.push_back(wipc_stage(p, c, plan.tested_range_bytes, c.range, 0, sizes[i]));
    std::vector<Element> elements = {element(sizes[i], 100, AccessPattern::sequential, c),
                                     element(sizes[i], 0, AccessPattern::sequential, c)};
    plan.stages.push_back(measured_stage(std::move(elements), c, 1, TrackedVariable::bytes_per_second));
    // The first sub-test's purge is the run's own (plan.purge).
    if (i > 0) plan.stages[first].purge_before = c.purge;
  }
}

// One sub-test per block size, in this order (the PTS implementations'
// 1024 KiB, then 128 KiB): its own purge, WIPC and steady state.
TestSchema throughput_schema() {
  return measuring(
      "PTS throughput: SEQ reads and writes, a sub-test per block size",
      {1, 32, std::chrono::seconds(60), true, true, 25},
      {bytes_list("block_sizes", {1024 * kKiB, 128 * kKiB}, "block sizes, one sub-test each, in this order")}, true);
}

}  // namespace

std::vector<TestDefinition> throughput_tests() {
  return {{.name = "throughput",
           .rank = 40,
           .schema = throughput_schema(),
           .build = throughput_plan,
           .spec = SpecConditions{{"round", "max_rounds", "precondition", "block_sizes"}, nullptr}}};
}

}  // namespace nvmond
