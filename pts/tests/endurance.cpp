#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include <cmath>

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

void endurance_plan(TestPlan& plan, Params& p, const TargetFacts& t) {
  Common c = common(p);
  const double dwpd = p.number("dwpd", t.rated_dwpd > 0 ? t.rated_dwpd : 1.0);
  const Duration total = p.duration("duration");
  const auto bs = p.bytes("bs");
  add_preparation(plan, p, c);
  Element e = element(bs, 0, AccessPattern::random, c);
  e.rate_bytes_per_second = dwpd * static_cast<double>(t.capacity_bytes) / kSecondsPerDay;
  e.label += fmt::format(" {} DWPD", dwpd);
  Stage s;
  s.kind = "test";
  s.elements = {e};
  s.max_rounds = static_cast<int>(std::ceil(seconds(total) / seconds(c.round)));
  plan.stages.push_back(std::move(s));
}

}  // namespace

TestDefinition endurance_test() { return {TestKind::endurance, endurance_plan, std::nullopt}; }

}  // namespace nvmond
