#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void slc_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  SlcDetection d;
  d.drop_fraction = p.number("drop_fraction");
  d.drop_rounds = static_cast<int>(p.integer("drop_rounds"));
  const auto bs = p.bytes("bs");
  add_preparation(plan, p, c);
  Stage s;
  s.kind = "test";
  s.elements = {element(bs, 0, AccessPattern::sequential, c)};
  s.max_rounds = c.rule.max_rounds;
  s.byte_budget =
      static_cast<std::uint64_t>(static_cast<double>(plan.tested_range_bytes) * c.range);  // one pass at most
  s.slc = d;
  plan.stages.push_back(std::move(s));
}

}  // namespace

TestDefinition slc_test() { return {TestKind::slc, slc_plan, std::nullopt}; }

}  // namespace nvmond
