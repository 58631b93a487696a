#pragma once
// run.json (schema "nvmond.run/1", see docs/pts.md): the whole document
// encoded from the typed run (pts/run.hpp). Pure: a resumed run rebuilds the
// same document from what the store kept.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runmodel/run_header.hpp"
#include "runmodel/run_status.hpp"
#include "pts/run.hpp"
#include "pts/round_record.hpp"

namespace nvmond {

// The run's document: the header's fields (runmodel/run_codec.hpp) and the
// status, then the rounds and what they amount to. The one writer of
// run.json.
nlohmann::json run_json(const Run& run);

}  // namespace nvmond
