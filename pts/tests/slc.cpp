#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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

TestSchema slc_schema() {
  return not_pts(
      measuring(
          "SLC cache size by sequential fill", {1, 32, std::chrono::seconds(2), true, false, 0},
          {number("drop_fraction", 0.7, 0.05, 0.99, "throughput drop, as a fraction of the first round's"),
           integer("drop_rounds", 3, 1, 1000, "rounds the drop must last"), bytes("bs", 128 * kKiB, "block size")},
          false),
      "the reviews' SLC-cache fill: data written until the cache runs out");
}

}  // namespace

std::vector<TestDefinition> slc_tests() {
  return {{.name = "slc", .rank = 110, .schema = slc_schema(), .build = slc_plan}};
}

}  // namespace nvmond
