#pragma once
// `nvmonctl run-job FILE`: parses [[job]] tables and one [safety] table from
// FILE, runs the jobs one after another, prints one JSON object per job
// (one line each) to `out`.
//
// Exit codes: 0 all jobs ran without I/O errors, 1 a job was refused or failed
// to start, 2 the file is invalid (message on `err`), 3 I/O errors or verify
// mismatches were counted.
#include <iosfwd>
#include <string>
#include <vector>

#include "workloads/jobs_config.hpp"
#include "workloads/run_result.hpp"
#include "workloads/runner.hpp"

namespace nvmond {

// The daemon's [[job]] reader (workloads/jobs_config.hpp) on a file of its
// own, which must hold at least one job. Throws ConfigError (file:line:col)
// for anything wrong in the file, a duplicate job name included.
JobsConfig load_job_file(const std::string& path);

// The summary printed for one run: totals, latency quantiles in seconds,
// errors with offsets, verify counts and the per-second timeline.
std::string result_json(const RunResult& result, bool with_timeline = true);

// `factory`: make_engine_factory() (engines/registry.hpp) in the binaries.
int run_job_cli(const std::string& job_toml_path, std::ostream& out, std::ostream& err, const EngineFactory& factory);

}  // namespace nvmond
