#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;

// PTS-E 2.0.x IOPS: the IOPS of 4KiB 0/100, 64KiB 65/35 and 1024KiB 100/0,
// those of them the matrix has (4KiB 0/100's fallback when it has none).
std::vector<TrackedElement> iops_tracking(const std::vector<Element>& elements) {
  std::vector<TrackedElement> tracked;
  const std::pair<std::uint64_t, double> cells[] = {{4 * kKiB, 0.0}, {64 * kKiB, 65.0}, {1024 * kKiB, 100.0}};
  for (const auto& [bs, read_pct] : cells) {
    const std::size_t i = find_element(elements, bs, read_pct);
    if (elements[i].block_sizes[0].bytes == bs && elements[i].read_pct == read_pct) {
      tracked.push_back({i, TrackedVariable::iops});
    }
  }
  if (tracked.empty()) tracked.push_back({find_element(elements, 4 * kKiB, 0), TrackedVariable::iops});
  return tracked;
}

void iops_plan(TestPlan& plan, Params& p, const TargetFacts&) {
  Common c = common(p);
  std::vector<Element> elements = mix_by_size(p, c);
  add_preparation(plan, p, c);
  auto tracked = iops_tracking(elements);
  plan.stages.push_back(measured_stage(std::move(elements), c, std::move(tracked)));
}

}  // namespace

TestDefinition iops_test() {
  return {TestKind::iops, iops_plan,
          SpecConditions{{"round", "max_rounds", "precondition", "block_sizes", "read_pcts"}, nullptr}};
}

}  // namespace nvmond
