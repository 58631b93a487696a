#include "pts/tests/definition.hpp"

#include <algorithm>
#include <string>

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void qos_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  // The quantiles every round records (run.json latency_s).
  const double q = std::stod(p.choice("quantile"));
  const double read_limit = seconds(p.duration("read_limit"));
  const double write_limit = seconds(p.duration("write_limit"));
  add_preparation(plan, p, c);
  Stage s;
  s.kind = "test";
  s.elements = {element(bs, 100, AccessPattern::random, c), element(bs, 0, AccessPattern::random, c)};
  s.max_rounds = std::max(1, c.rule.max_rounds);
  plan.stages.push_back(std::move(s));
  const auto b = static_cast<std::uint32_t>(bs);
  plan.qos = {QosCheck{IoOp::read, b, q, read_limit, 0}, QosCheck{IoOp::write, b, q, write_limit, 1}};
}

}  // namespace

TestDefinition qos_test() { return {TestKind::qos, qos_plan, std::nullopt}; }

}  // namespace nvmond
