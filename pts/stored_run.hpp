#pragma once
// run.json rebuilt from what the store kept of a run (its row and rounds):
// the same document the run's writer produced, for runs that have no
// run.json on disk yet (in progress, killed) or whose directory is elsewhere.
// The rounds are analysed under the plan facts the header kept; a run stored
// before they were kept has its plan rebuilt from the header's test and
// effective parameters, which build_plan() turns back into the same stages.
#include <nlohmann/json.hpp>

#include <vector>

#include "core/result.hpp"
#include "runmodel/round_record.hpp"
#include "pts/run.hpp"
#include "store/run_store.hpp"

namespace nvmond {

// The rounds a store kept, decoded in their order. Throws
// nlohmann::json::exception on an unreadable one.
std::vector<RoundRecord> rounds_from_rows(const std::vector<RoundRow>& rows);

// Reason "decode" when the header or a round is unreadable or its parameters
// no longer make a plan; the message names the run.
Result<Run> run_from_store(const StoredRun& stored);
// Its run.json (runmodel/run_json.hpp).
Result<nlohmann::json> run_json_from_store(const StoredRun& stored);

}  // namespace nvmond
