#include "pts/tests/definition.hpp"

#include <fmt/core.h>

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

void mixed_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  const auto bs = p.bytes("bs");
  const double read_pct = p.number("read_pct");
  const double reduced = p.number("reduced_range");
  add_preparation(plan, p, c);
  Element e = element(bs, read_pct, AccessPattern::random, c);
  plan.stages.push_back(measured_stage({e}, c, 0, TrackedVariable::iops));
  if (reduced <= 0 || reduced >= 1) return;
  // The comparison run: purge again, then the same on a smaller range (the
  // rest of the drive is extra over-provisioning).
  const double fraction = c.range * reduced;
  const std::size_t first = plan.stages.size();
  // The smaller drive it stands for has the reduced range as its capacity.
  const auto reduced_bytes = static_cast<std::uint64_t>(fraction * static_cast<double>(plan.tested_range_bytes));
  if (c.precondition) plan.stages.push_back(wipc_stage(p, c, reduced_bytes, fraction, 1));
  e.range_fraction = fraction;
  e.label += fmt::format(" range {:.0f}%", fraction * 100);
  Stage s = measured_stage({e}, c, 0, TrackedVariable::iops);
  s.group = 1;
  plan.stages.push_back(std::move(s));
  plan.stages[first].purge_before = c.purge;
  plan.compare_label = fmt::format("reduced range {:.0f}%", fraction * 100);
}

TestSchema mixed_schema() {
  return not_pts(
      measuring("saturation with a reduced-range comparison", {4, 32, std::chrono::seconds(60), true, true, 25},
                {bytes("bs", 8 * kKiB, "block size"), number("read_pct", 70.0, 0, 100, "read share, in %"),
                 number("reduced_range", 0.75, 0, 1, "range of the comparison run (0 or 1: none)")},
                true),
      "the reviews' 8 KiB 70/30 saturation with extra over-provisioning");
}

}  // namespace

std::vector<TestDefinition> mixed_tests() {
  return {{.name = "mixed", .rank = 70, .schema = mixed_schema(), .build = mixed_plan}};
}

}  // namespace nvmond
