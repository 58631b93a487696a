#include "pts/tests/definition.hpp"

#include <algorithm>

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void vqd_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  const double read_pct = p.number("read_pct");
  std::vector<Element> elements;
  for (auto t : p.integer_list("thread_counts")) {
    for (auto q : p.integer_list("queue_depths")) elements.push_back(at_load(bs, read_pct, c, t, q));
  }
  add_preparation(plan, p, c);
  Stage s;
  s.kind = "test";
  s.elements = std::move(elements);
  s.max_rounds = std::max(1, c.rule.max_rounds);
  plan.stages.push_back(std::move(s));
}

}  // namespace

TestDefinition vqd_test() { return {TestKind::vqd, vqd_plan, std::nullopt}; }

}  // namespace nvmond
