#include "pts/run_conditions.hpp"

#include <fmt/core.h>

#include <cmath>
#include <string>

#include "pts/tests/definition.hpp"
#include "pts/catalog.hpp"
#include "runmodel/request.hpp"

namespace nvmond {

namespace {

// The parameter that sets the block sizes, named in the refusal.
std::string remedy(const TestPlan& plan, std::uint32_t lbs) {
  if (plan.parameters.count("block_sizes")) return fmt::format("set block_sizes to sizes of at least {} B", lbs);
  if (plan.parameters.count("bs")) return fmt::format("set bs to at least {} B", lbs);
  return "this test's block sizes are fixed, so it cannot run on this device";
}

// What a parameter's default rests on, where that is not a text of the
// specification quoted or summarised (docs/pts.md names each source): the
// condition names it, and what the value counts.
struct Basis {
  const char* source = "PTS";
  const char* unit = "";
};

Basis basis_of(const std::string& key) {
  // CBW's inter-round pre-write: the public PTS CBW scripts' IRPW_ROUNDS.
  if (key == "prewrite_rounds") return {"ECW scripts", " \u00d7 round"};
  return {};
}

}  // namespace

std::vector<RunCondition> parameter_conditions(const TestPlan& plan) {
  std::vector<RunCondition> out;
  const TestDefinition* definition = find_test_definition(plan.test);
  if (!definition || !definition->spec) return out;
  const auto& fixed = definition->spec;
  const TestSchema& schema = test_schema(plan.test, plan.profile);
  std::vector<std::string> checked = {"range", "purge", "window"};
  checked.insert(checked.end(), fixed->keys.begin(), fixed->keys.end());
  // The WIPC's own parameters count when it runs.
  if (schema.find("wipc_multiple") && plan_parameter(plan, "precondition") == "true") {
    checked.insert(checked.end(), {"wipc_multiple", "wipc_threads"});
  }
  for (const auto& key : checked) {
    const ParamSpec* spec = schema.find(key);
    if (!spec || !spec->def) continue;
    const std::string value = plan_parameter(plan, key);
    const std::string expected = param_text(*spec->def);
    if (value.empty() || value == expected) continue;
    const Basis basis = basis_of(key);
    out.push_back({"parameter", fmt::format("{}={} ({}: {}{})", key, value, basis.source, expected, basis.unit)});
  }
  if (fixed->check) fixed->check(plan, out);
  return out;
}

std::string plan_parameter(const TestPlan& plan, const std::string& key) {
  auto it = plan.parameters.find(key);
  return it == plan.parameters.end() ? std::string() : it->second;
}

std::optional<Error> check_block_sizes(const TestPlan& plan, const TargetRecord& target) {
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

std::optional<RunCondition> purge_condition(const PurgeRecord& purge) {
  if (purge.method == "format" || purge.method == "sanitize") return std::nullopt;
  return RunCondition{"purge-fallback",
                      fmt::format("purged by {}, not a format or sanitize: {}", purge.method, purge.detail)};
}

std::optional<RunCondition> write_cache_condition(const WriteCacheState& state, bool expected_enabled) {
  if (!state.enabled) return RunCondition{"write-cache-unknown", state.source};
  if (*state.enabled == expected_enabled) return std::nullopt;
  return RunCondition{
      *state.enabled ? "write-cache-enabled" : "write-cache-disabled",
      fmt::format("{} (the test expects it {})", state.source, expected_enabled ? "enabled" : "disabled")};
}

}  // namespace nvmond
