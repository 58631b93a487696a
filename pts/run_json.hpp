#pragma once
// run.json (schema "nvmond.run/1", see docs/pts.md): the
// header written when a run starts, and the whole document assembled from
// the header, the plan and the rounds. Pure: a resumed run rebuilds the same
// document from what the store kept.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pts/round_record.hpp"
#include "pts/test_plan.hpp"
#include "pts/test_target.hpp"

namespace nvmond {

nlohmann::json run_header(const TestPlan& plan, const TargetIdentity& id, const std::string& target,
                          bool simulated, WallTime started);
nlohmann::json health_json(const HealthSample& h);
nlohmann::json build_run_json(const TestPlan& plan, const nlohmann::json& header,
                              const std::vector<RoundRecord>& rounds);

}  // namespace nvmond
