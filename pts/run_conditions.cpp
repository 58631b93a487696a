#include "pts/run_conditions.hpp"

#include <fmt/core.h>

namespace nvmond {

namespace {

// The parameter that sets the block sizes, named in the refusal.
std::string remedy(const TestPlan& plan, std::uint32_t lbs) {
  if (plan.parameters.count("block_sizes")) return fmt::format("set block_sizes to sizes of at least {} B", lbs);
  if (plan.parameters.count("bs")) return fmt::format("set bs to at least {} B", lbs);
  return "this test's block sizes are fixed, so it cannot run on this device";
}

}  // namespace

std::optional<Error> check_block_sizes(const TestPlan& plan, const TargetIdentity& target) {
  const std::uint32_t lbs = target.logical_block_bytes;
  if (lbs == 0) return std::nullopt;
  for (const auto& stage : plan.stages) {
    for (const auto& e : stage.elements) {
      for (const auto& b : e.block_sizes) {
        if (b.bytes >= lbs) continue;
        return Error{ErrorReason::block_size,
                     fmt::format("{}: block size {} B ({}, element \"{}\") is below the device's logical block size "
                                 "of {} B, and every I/O must be whole logical blocks; {}",
                                 target.path, b.bytes, block_size_label(b.bytes), e.label, lbs, remedy(plan, lbs))};
      }
    }
  }
  return std::nullopt;
}

std::optional<RunCondition> purge_condition(const PurgeOutcome& purge) {
  if (purge.method == "format" || purge.method == "sanitize") return std::nullopt;
  return RunCondition{"purge-fallback",
                      fmt::format("purged by {}, not a format or sanitize: {}", purge.method, purge.detail)};
}

std::optional<RunCondition> write_cache_condition(const WriteCacheState& state, bool expected_enabled) {
  if (!state.enabled) return RunCondition{"write-cache-unknown", state.source};
  if (*state.enabled == expected_enabled) return std::nullopt;
  return RunCondition{*state.enabled ? "write-cache-enabled" : "write-cache-disabled",
                      fmt::format("{} (the test expects it {})", state.source,
                                  expected_enabled ? "enabled" : "disabled")};
}

void add_condition(RunHeader& header, std::optional<RunCondition> c) {
  if (!c) return;
  for (const auto& have : header.conditions) {
    if (have == *c) return;
  }
  header.conditions.push_back(std::move(*c));
}

}  // namespace nvmond
