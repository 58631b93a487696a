#pragma once
// run.json (schema "nvmond.run/1", see docs/pts.md): the
// header written when a run starts, and the whole document assembled from
// the header, the plan and the rounds. Pure: a resumed run rebuilds the same
// document from what the store kept.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "pts/round_record.hpp"
#include "pts/plan.hpp"
#include "pts/target.hpp"

namespace nvmond {

RunHeader run_header(const TestPlan& plan, const TargetIdentity& id, const std::string& target, bool simulated,
                     WallTime started);
SmartRecord smart_record(const HealthSample& h);
// The max, mid and min IOPS points (in that order, as element indices of
// `sweep`) over the measurement window of `rounds`, stage `stage`'s; empty
// before it has a measured round.
std::vector<std::pair<const char*, std::size_t>> sweep_iops_points(const Stage& sweep, std::size_t stage,
                                                                   const std::vector<const RoundRecord*>& rounds);
// The header's fields (runmodel/run_codec.hpp) and the status, then what
// the plan and rounds make of the run.
nlohmann::json build_run_json(const TestPlan& plan, const RunHeader& header, RunStatus status,
                              const std::vector<RoundRecord>& rounds);

}  // namespace nvmond
