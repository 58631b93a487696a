#pragma once
// run.json (schema "nvmond.run/1", see docs/pts.md): the whole document
// encoded from the typed run (runmodel/run.hpp) and decoded back into one.
// Pure: a resumed run rebuilds the same document from what the store kept.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "runmodel/run.hpp"

namespace nvmond {

// The run's document: the header's fields (runmodel/run_codec.hpp) and the
// status, then the rounds and what they amount to. The one writer of
// run.json.
nlohmann::json run_json(const Run& run);

// The typed run of a run.json document, also of one older nvmond wrote
// (docs/pts.md, "Older runs"). The run's conditions stay in its header.
// Reason "decode", naming the field: "rounds[3].iops: expected a number".
Result<Run> run_from_json(const nlohmann::json& j);

}  // namespace nvmond
