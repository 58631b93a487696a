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

#include "workloads/job_spec.hpp"
#include "workloads/run_result.hpp"
#include "workloads/runner.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

struct JobFile {
  std::vector<JobSpec> jobs;
  SafetyConfig safety;
};

// Throws ConfigError (file:line:col) for anything wrong in the file.
JobFile load_job_file(const std::string& path);

// The summary printed for one run: totals, latency quantiles in seconds,
// errors with offsets, verify counts and the per-second timeline.
std::string result_json(const RunResult& result, bool with_timeline = true);

int run_job_cli(const std::string& job_toml_path, std::ostream& out, std::ostream& err,
                const EngineFactory& factory = default_engine_factory());
int run_job_cli(const std::string& job_toml_path, std::ostream& out);

}  // namespace nvmond
