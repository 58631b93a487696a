#include "pts/tests/definition.hpp"

#include <algorithm>
#include <string>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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

TestSchema qos_schema() {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  return not_pts(
      measuring("latency against declared QoS limits", {1, 1, std::chrono::seconds(60), false, false, 1},
                {bytes("bs", 4 * kKiB, "block size"),
                 choice("quantile", "0.999", {"0.5", "0.9", "0.99", "0.999", "0.9999"}, "latency quantile checked"),
                 duration("read_limit", microseconds(500), "read latency limit"),
                 duration("write_limit", milliseconds(2), "write latency limit")},
                false),
      "a datasheet's QoS limits: 4 KiB QD1 latency at a quantile");
}

}  // namespace

std::vector<TestDefinition> qos_tests() {
  return {{.name = "qos", .rank = 120, .schema = qos_schema(), .build = qos_plan}};
}

}  // namespace nvmond
