#pragma once
// A running workload's live snapshot with known numbers: three 4 KiB writes
// (15 µs, 150 µs, 3 ms), one error, 1500 IOPS, the last interval at 150 µs.
#include <string>

#include "workloads/run_result.hpp"

namespace nvmond::test {

inline RunSnapshot running_workload(const std::string& job) {
  RunSnapshot s;
  s.job = job;
  s.running = true;
  RunSnapshot::Op& w = s.op[1];
  w.ops = 3;
  w.bytes = 3 * 4096;
  w.errors = 1;
  w.iops = 1500;
  w.bytes_per_second = 1500 * 4096;
  for (std::uint64_t ns : {15'000ULL, 150'000ULL, 3'000'000ULL}) w.latency.record(ns);
  w.interval_latency.record(150'000);
  return s;
}

}  // namespace nvmond::test
