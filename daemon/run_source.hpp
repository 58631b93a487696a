#pragma once
// Where `nvmonctl report` and `nvmonctl compare` find a RUN: a directory
// holding run.json or a run.json file when such a path exists, else a run
// id in the daemon's store, read read-only from its state directory and
// rebuilt into the run.json the run's writer produces (pts/stored_run.hpp).
//
// The state directory: --state-dir, else --config's [daemon] state_dir,
// else the daemon's default (default_state_dir()). Its database is
// nvmond.db (the daemon's), else runs.db (`nvmonctl test run --out DIR`).
#include <string>

#include "core/result.hpp"
#include "report/run_record.hpp"

namespace nvmond {

class RunSource {
 public:
  // Empty strings: not given.
  RunSource(std::string state_dir, std::string config)
      : state_dir_(std::move(state_dir)), config_(std::move(config)) {}

  // Errors name the path, or the database and the id: reasons "absent" (no
  // such path, no database), "unknown" (no run with that id), "config",
  // "decode", the store's.
  Result<report::RunRecord> load(const std::string& run) const;

  // The database of the state directory, existing or not.
  Result<std::string> database() const;

 private:
  std::string state_dir_;
  std::string config_;
};

}  // namespace nvmond
