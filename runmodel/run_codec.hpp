#pragma once
// The one codec between the run model and JSON: the store's header blob
// (pts_runs.header), the header fields at the top of run.json
// ("nvmond.run/1", README "How to run a soak") and the run's status there,
// and a run as the control socket sends it (status, history, show).
//
// Decoding is strict about what every run has (schema, test, start, target,
// parameters: reason "decode", naming the field) and ignores a "status" in a
// header: rows and run.json files written before the status lived only in the
// store's column carry one, and the column wins.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/run_view.hpp"

namespace nvmond {

// The header as a JSON object, less its plan: the start of run.json.
nlohmann::json header_json(const RunHeader& header);
// A SMART record's fields as run.json's drive.smart_before holds them, in
// its order, each printed: strings bare, numbers as JSON writes them.
std::vector<std::pair<std::string, std::string>> smart_record_fields(const SmartRecord& s);
Result<RunHeader> header_from_json(const nlohmann::json& j);

// The store's blob: header_json as text, with the plan's facts under "plan"
// (run.json's header has none).
std::string header_blob(const RunHeader& header);
Result<RunHeader> header_from_blob(const std::string& blob);

// run.json's top: the header and the run's status.
nlohmann::json run_head_json(const RunHeader& header, RunStatus status);
// The status a run.json (or any run payload) carries; "decode" when it names
// no status.
Result<RunStatus> status_from_json(const nlohmann::json& run);

// A run in a control reply: times in seconds since the epoch, an unknown
// ETA, end or steady state as null. The window and latency fields are the
// metrics' and do not travel. Reading back, a number sent as null (JSON has
// no infinity) is NaN; reason "decode" names the field.
nlohmann::json run_view_json(const RunView& run);
Result<RunView> run_view_from_json(const nlohmann::json& j);

}  // namespace nvmond
