#pragma once
// A plan's facts as the run model keeps them (runmodel/plan_record.hpp), and
// back: a plan of just those facts, which analyses a stored run's rounds as
// the plan it ran did (pts/results.hpp) and runs nothing.
#include <string>

#include "pts/plan.hpp"
#include "runmodel/plan_record.hpp"

namespace nvmond {

PlanRecord plan_record(const TestPlan& plan);
TestPlan plan_from_record(const std::string& test, const PlanRecord& record);

}  // namespace nvmond
