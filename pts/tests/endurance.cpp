#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include <cmath>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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

TestSchema endurance_schema() {
  using std::chrono::hours;
  return not_pts(
      measuring(
          "writes at a target DWPD", {1, 8, hours(1), false, false, 0},
          {number("dwpd", std::nullopt, 0.001, 1000, "drive writes per day (default: the drive's rating, else 1)"),
           duration("duration", hours(24), "length of the run"), bytes("bs", 128 * kKiB, "block size")},
          false),
      "the drive's endurance rating (JESD218 DWPD): writes at its rated pace");
}

}  // namespace

std::vector<TestDefinition> endurance_tests() {
  return {{.name = "endurance", .rank = 130, .schema = endurance_schema(), .build = endurance_plan}};
}

}  // namespace nvmond
