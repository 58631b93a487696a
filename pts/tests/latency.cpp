#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void latency_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  auto sizes = p.bytes_list("block_sizes");
  auto mixes = p.integer_list("read_pcts");
  std::vector<Element> elements;
  for (auto mix : mixes) {
    for (auto bs : sizes) elements.push_back(element(bs, static_cast<double>(mix), AccessPattern::random, c));
  }
  if (p.boolean("sweep")) {
    for (auto t : p.integer_list("sweep_threads")) {
      for (auto q : p.integer_list("sweep_queue_depths")) {
        Common s = c;
        s.threads = static_cast<unsigned>(std::max<std::int64_t>(1, t));
        s.queue_depth = static_cast<unsigned>(std::max<std::int64_t>(1, q));
        Element e = element(4 * kKiB, 65, AccessPattern::random, s);
        e.label += fmt::format(" T{}Q{}", s.threads, s.queue_depth);
        elements.push_back(e);
      }
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
