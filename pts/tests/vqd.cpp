#include "pts/tests/definition.hpp"

#include <algorithm>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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

TestSchema vqd_schema() {
  return not_pts(
      measuring("the reviews' variable queue depth (not PTS DIRTH)", {1, 1, std::chrono::seconds(60), true, true, 1},
                {bytes("bs", 8 * kKiB, "block size"), number("read_pct", 70.0, 0, 100, "read share, in %"),
                 integer_list("thread_counts", {1, 2, 4, 8}, kUnbounded, "thread counts"),
                 integer_list("queue_depths", {1, 2, 4, 8, 16, 32}, kUnbounded, "queue depths")},
                false),
      "the reviews' variable-queue-depth test");
}

}  // namespace

std::vector<TestDefinition> vqd_tests() {
  return {{.name = "vqd", .rank = 80, .schema = vqd_schema(), .build = vqd_plan}};
}

}  // namespace nvmond
