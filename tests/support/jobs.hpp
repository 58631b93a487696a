#pragma once
// What workload tests start from: a job of one block size, and the io_uring
// engine for every job (what the engine registry, engines/, gives an io_uring
// job, for the tests of what links neither it nor the simulator).
#include <memory>
#include <string>
#include <utility>

#include "workloads/job_spec.hpp"
#include "workloads/runner.hpp"
#include "workloads/uring_engine.hpp"

namespace nvmond::test {

inline JobSpec one_size_job(std::string name, std::string engine, std::string target, double read_pct,
                            std::uint32_t block_bytes) {
  JobSpec j;
  j.name = std::move(name);
  j.engine = std::move(engine);
  j.target = std::move(target);
  j.read_pct = read_pct;
  j.block_sizes = {{block_bytes, 1}};
  return j;
}

inline EngineFactory uring_engines() {
  return [](const JobSpec& spec) { return make_uring_engine(spec); };
}

}  // namespace nvmond::test
