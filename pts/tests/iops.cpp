#include "pts/tests/definition.hpp"

#include "pts/tests/plan_parts.hpp"
#include "runmodel/schema_parts.hpp"

namespace nvmond {

namespace {

using namespace plan_parts;
using namespace schema_parts;

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

// The IOPS matrix in the specification's order: R/W mix outer, block size
// inner, largest block first.
TestSchema iops_schema() {
  return measuring(
      "PTS IOPS matrix", {4, 32, std::chrono::seconds(60), true, true, 25},
      {bytes_list("block_sizes", {1024 * kKiB, 128 * kKiB, 64 * kKiB, 32 * kKiB, 16 * kKiB, 8 * kKiB, 4 * kKiB, 512},
                  "block sizes of the matrix"),
       integer_list("read_pcts", {100, 95, 65, 50, 35, 5, 0}, 100, "read shares of the matrix, in %")},
      true);
}

}  // namespace

std::vector<TestDefinition> iops_tests() {
  return {{.name = "iops",
           .rank = 30,
           .schema = iops_schema(),
           .build = iops_plan,
           .spec = SpecConditions{{"round", "max_rounds", "precondition", "block_sizes", "read_pcts"}, nullptr}}};
}

}  // namespace nvmond
