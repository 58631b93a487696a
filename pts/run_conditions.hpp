#pragma once
// What makes a run non-conformant to the PTS, found before and while it
// runs: the target cannot take the plan's block sizes (refused before any
// I/O), a purge that fell back from a format to deallocate or zero-fill,
// and a volatile write cache that is not in the state the test's profile
// expects (its profile's: PTS-E disabled, PTS-C enabled) or that the target
// cannot tell, and every parameter set to other than the specification's
// value (a shorter round, a 4-round window, the reviews' WSAT length, ...).
// Conditions are recorded in the run's header, so run.json and the report
// name them.
#include <optional>
#include <vector>

#include "core/result.hpp"
#include "runmodel/run_header.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"

namespace nvmond {

// A refusal (reason "block_size") when an element's block size is below the
// target's logical block size; nullopt when it is unknown or all fit.
std::optional<Error> check_block_sizes(const TestPlan& plan, const TargetRecord& target);
// "purge-fallback" unless the purge returned the drive to FOB by a format.
std::optional<RunCondition> purge_condition(const PurgeRecord& purge);
// "write-cache-enabled", "write-cache-disabled" or "write-cache-unknown"
// unless the cache is known to be in the state the plan's profile expects.
std::optional<RunCondition> write_cache_condition(const WriteCacheState& state, bool expected_enabled);
// One "parameter" condition per parameter of a PTS test whose effective
// value departs from the specification's, each naming the parameter, its
// value and the specification's ("round=5s (PTS: 60s)"). The
// specification's values are the PTS tests' defaults in the plan's profile,
// except WSAT's length, whose default follows the reviews; where a default
// rests on an implementation rather than the specification's text (CBW's
// pre-write: the public PTS scripts), the detail names that source instead
// of "PTS". Tests that are not PTS tests (mixed, vqd, slc, qos, endurance)
// have none.
std::vector<RunCondition> parameter_conditions(const TestPlan& plan);
// A plan's effective parameter as run.json records it; empty when it has none.
std::string plan_parameter(const TestPlan& plan, const std::string& key);

}  // namespace nvmond
