#include "pts/tests/definition.hpp"

#include <fmt/core.h>

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
    for (auto q : p.integer_list("queue_depths")) {
      Common s = c;
      s.threads = static_cast<unsigned>(std::max<std::int64_t>(1, t));
      s.queue_depth = static_cast<unsigned>(std::max<std::int64_t>(1, q));
      Element e = element(bs, read_pct, AccessPattern::random, s);
      e.label += fmt::format(" T{}Q{}", s.threads, s.queue_depth);
      elements.push_back(e);
    }
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
