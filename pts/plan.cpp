#include "pts/plan.hpp"

#include <fmt/core.h>

#include <stdexcept>
#include <string>

#include "core/clock.hpp"
#include "pts/tests/definition.hpp"
#include "pts/tests/plan_parts.hpp"

namespace nvmond {

std::string block_size_label(std::uint64_t bytes) {
  using plan_parts::kKiB;
  if (bytes % (1024 * kKiB) == 0) return fmt::format("{}MiB", bytes / (1024 * kKiB));
  if (bytes % kKiB == 0) return fmt::format("{}KiB", bytes / kKiB);
  if (bytes % 512 == 0) return fmt::format("{}KiB", static_cast<double>(bytes) / kKiB);
  return fmt::format("{}B", bytes);
}

TestPlan build_plan(const TestRequest& request, const TargetFacts& target) {
  check_request(request);
  const TestDefinition& definition = *find_test_definition(request.test);
  Params p(request);
  TestPlan plan;
  plan.test = request.test;
  plan.profile = request.profile;
  plan.write_cache_enabled = profile_spec(request.profile).write_cache_enabled;
  plan.tested_range_bytes = target.capacity_bytes;  // builders scale it by `range`
  definition.build(plan, p, target);
  auto r = p.effective().find("range");
  if (r != p.effective().end()) {
    plan.tested_range_bytes =
        static_cast<std::uint64_t>(std::stod(r->second) * static_cast<double>(target.capacity_bytes));
  }
  plan.parameters = p.effective();
  return plan;
}

TestPlan build_plan(const std::string& test, const ParamMap& params, const TargetFacts& target, PtsProfile profile) {
  return build_plan(validate(test, params, profile), target);
}

}  // namespace nvmond
