#pragma once
// Helpers shared by the sim tests: named specs and a sustained workload
// driven on a ManualClock (one command in service at a time, so throughput is
// exactly bytes / sum of service times).
#include <cstdint>
#include <functional>
#include <string>

#include "sim/drive_model.hpp"
#include "sim/sim_drive_spec.hpp"
#include "core/clock.hpp"

namespace nvmond::test {

inline SimDriveSpec named(const std::string& profile, const std::string& name = "d0",
                          const std::string& serial = "SN0") {
  SimDriveSpec s = sim_profile(profile);
  s.name = name;
  s.serial = serial;
  return s;
}

struct Sample {
  double elapsed_s;     // since the workload started
  double celsius;       // composite, after the command
  int level;            // throttle level, after the command
  double limit;         // write limit, after the command
  std::uint64_t bytes;  // this command
  Duration service;
};

// Issues `kind` commands of `chunk` bytes back to back for `span` of clock
// time, advancing the clock by each service time; calls `see` after each.
inline void run_workload(DriveModel& m, ManualClock& clock, Duration span, std::uint64_t chunk, IoOp kind,
                         bool sequential, const std::function<void(const Sample&)>& see) {
  const WallTime start = clock.wall();
  while (clock.wall() - start < span) {
    m.advance_to(clock.wall());
    Duration d = m.io(kind, chunk, sequential);
    clock.advance(d);
    see(Sample{seconds(clock.wall() - start), m.composite_celsius(), m.throttle_level(), m.write_limit_bytes_per_s(),
               chunk, d});
  }
  m.advance_to(clock.wall());
}

}  // namespace nvmond::test
