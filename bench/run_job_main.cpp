// Runs a job file through the workload engine and prints the JSON summary:
// the same entry point `nvmonctl run-job` uses, as a bare process so the
// benchmark driver can measure its CPU time with wait4().
#include <iostream>

#include "engines/registry.hpp"
#include "workloads/run_job_cli.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " JOB.toml\n";
    return 2;
  }
  return nvmond::run_job_cli(argv[1], std::cout, std::cerr, nvmond::make_engine_factory());
}
