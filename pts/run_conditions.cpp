#include "pts/run_conditions.hpp"

#include <fmt/core.h>

#include <cmath>
#include <map>
#include <string>

#include "runmodel/request.hpp"

namespace nvmond {

namespace {

// The parameter that sets the block sizes, named in the refusal.
std::string remedy(const TestPlan& plan, std::uint32_t lbs) {
  if (plan.parameters.count("block_sizes")) return fmt::format("set block_sizes to sizes of at least {} B", lbs);
  if (plan.parameters.count("bs")) return fmt::format("set bs to at least {} B", lbs);
  return "this test's block sizes are fixed, so it cannot run on this device";
}

// The parameters of each PTS test whose value the specification fixes: its
// default in the profile's schema is the specification's value (the
// sources each rests on: docs/pts.md, "Conformance to the PTS"). Thread
// count and queue depth are the operator's choice and not listed, except
// for latency's T1Q1. `window`, `purge` and `range` (the profile's active
// range) are every test's; `wipc_*` count while the WIPC runs.
const std::map<std::string, std::vector<std::string>>& spec_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"precondition", {}},
      {"iops", {"round", "max_rounds", "precondition", "block_sizes", "read_pcts"}},
      {"throughput", {"round", "max_rounds", "precondition", "block_sizes"}},
      {"latency", {"round", "max_rounds", "precondition", "block_sizes", "read_pcts", "threads", "queue_depth",
                   "sweep"}},
      {"wsat", {"round", "precondition", "bs", "read_pct"}},
      {"cbw", {"round", "max_rounds", "precondition", "read_pct", "thread_counts", "queue_depths", "prewrite_rounds"}},
      {"dirth", {"round", "max_rounds", "precondition", "thread_counts", "queue_depths"}},
      {"hir", {"round", "max_rounds", "precondition", "burst", "bursts", "idle_seconds", "baseline_bursts"}},
      {"xsr", {"round", "precondition", "seq_bs", "rnd_bs", "seq_duration", "rnd_duration", "recovery_duration"}},
  };
  return keys;
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

std::string value_of(const TestPlan& plan, const std::string& key) {
  auto it = plan.parameters.find(key);
  return it == plan.parameters.end() ? std::string() : it->second;
}

// WSAT's length: the specification's is 6 h or 4 x the user capacity,
// whichever first (`variant=spec`); the default soak is the reviews' run.
void wsat_length_conditions(const TestPlan& plan, std::vector<RunCondition>& out) {
  if (value_of(plan, "variant") != "spec") {
    out.push_back({"parameter", fmt::format("variant=soak: {} rounds (reviews), not PTS 6 h / 4×",
                                            value_of(plan, "rounds"))});
    return;
  }
  // A `rounds` given with the specification's variant caps its 6 h (the
  // plan reads the key only then).
  if (const std::string rounds = value_of(plan, "rounds"); !rounds.empty()) {
    out.push_back({"parameter", fmt::format("rounds={} caps the length (PTS: 6 h or 4\u00d7 the user capacity)", rounds)});
  }
  // `capacity_multiple` counts the tested range: 4 x the user capacity is
  // 4 / range of it.
  const double range = std::stod(value_of(plan, "range").empty() ? "1" : value_of(plan, "range"));
  const std::string multiple = value_of(plan, "capacity_multiple");
  if (!multiple.empty() && std::fabs(std::stod(multiple) * range - 4.0) > 1e-6) {
    out.push_back({"parameter", fmt::format("capacity_multiple={} of the range, {:g}× the user capacity "
                                            "(PTS: 4× the user capacity)",
                                            multiple, std::stod(multiple) * range)});
  }
}

}  // namespace

std::vector<RunCondition> parameter_conditions(const TestPlan& plan) {
  std::vector<RunCondition> out;
  auto keys = spec_keys().find(plan.test);
  if (keys == spec_keys().end()) return out;
  const TestSchema& schema = test_schema(plan.test, plan.profile);
  std::vector<std::string> checked = {"range", "purge", "window"};
  checked.insert(checked.end(), keys->second.begin(), keys->second.end());
  // The WIPC's own parameters count when it runs.
  if (schema.find("wipc_multiple") && value_of(plan, "precondition") == "true") {
    checked.insert(checked.end(), {"wipc_multiple", "wipc_threads"});
  }
  for (const auto& key : checked) {
    const ParamSpec* spec = schema.find(key);
    if (!spec || !spec->def) continue;
    const std::string value = value_of(plan, key);
    const std::string expected = param_text(*spec->def);
    if (value.empty() || value == expected) continue;
    const Basis basis = basis_of(key);
    out.push_back({"parameter", fmt::format("{}={} ({}: {}{})", key, value, basis.source, expected, basis.unit)});
  }
  if (plan.test == "wsat") wsat_length_conditions(plan, out);
  return out;
}

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
