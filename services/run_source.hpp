#pragma once
// Where `nvmonctl report` and `nvmonctl compare` find a RUN: a directory
// holding run.json or a run.json file when such a path exists, else a run
// id in the daemon's store, read read-only from its state directory and
// rebuilt into the typed run its run.json encodes (pts/stored_run.hpp).
//
// The state directory: --state-dir, else --config's [daemon] state_dir,
// else the daemon's default (default_state_dir()). A run id is looked up in
// its runs.db (the daemon's runs; `nvmonctl test run --out DIR`'s), then in
// its nvmond.db (where older daemons kept runs beside the history).
#include <string>
#include <vector>

#include "core/result.hpp"
#include "report/run_record.hpp"

namespace nvmond {

class RunSource {
 public:
  // Empty strings: not given.
  RunSource(std::string state_dir, std::string config) : state_dir_(std::move(state_dir)), config_(std::move(config)) {}

  // Errors name the path, or the database and the id: reasons "absent" (no
  // such path, no database), "unknown" (no run with that id), "config",
  // "decode", the store's.
  Result<report::RunRecord> load(const std::string& run) const;

  // The state directory's databases that may hold run ids, in the order
  // they are read, existing or not.
  Result<std::vector<std::string>> databases() const;

 private:
  Result<std::string> state_dir() const;

  std::string state_dir_;
  std::string config_;
};

}  // namespace nvmond
