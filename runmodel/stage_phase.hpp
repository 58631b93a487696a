#pragma once
// What a stage's rounds are for. Each round records its stage's phase as
// text (run.json, runs.db, the control protocol); the text is read and
// written only through this table, so that code branches on the value.
#include <optional>
#include <string_view>

namespace nvmond {

// precondition: the run's preparation (WIPC, or a workload-dependent
// preconditioning that no result counts); test: measured rounds; histogram:
// a demand-intensity sweep's dedicated histogram rounds; prewrite: CBW's
// inter-round pre-write, run only before another stage's rounds.
enum class Phase { precondition, test, histogram, prewrite };

const char* phase_name(Phase phase);
// nullopt for text that is no phase (empty in runs before rounds had one).
std::optional<Phase> phase_from_name(std::string_view name);

}  // namespace nvmond
