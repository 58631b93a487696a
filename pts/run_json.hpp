#pragma once
// run.json (schema "nvmond.run/1", see docs/pts.md): the
// header written when a run starts, and the whole document encoded from the
// header, the rounds and their results (pts/results.hpp). Pure: a resumed
// run rebuilds the same document from what the store kept.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "pts/results.hpp"
#include "pts/round_record.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"

namespace nvmond {

RunHeader run_header(const TestPlan& plan, const TargetIdentity& id, const std::string& target, bool simulated,
                     WallTime started);
SmartRecord smart_record(const HealthSample& h);
// The header's fields (runmodel/run_codec.hpp) and the status, then the
// rounds and what they amount to.
nlohmann::json run_json(const RunHeader& header, RunStatus status, const std::vector<RoundRecord>& rounds,
                        const RunResults& results);
// The same with the results analysed from the plan.
nlohmann::json build_run_json(const TestPlan& plan, const RunHeader& header, RunStatus status,
                              const std::vector<RoundRecord>& rounds);

}  // namespace nvmond
