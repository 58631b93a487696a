#pragma once
// Simulated drives the PTS and soak unit tests share.
#include <string>

#include "sim/sim_drive_spec.hpp"

namespace nvmond::test {

// A 100 GB datacenter drive: small enough that a WSAT reaches its write
// cliff within a few simulated hours.
inline SimDriveSpec small_datacenter_drive(const std::string& serial) {
  SimDriveSpec s = sim_profile("datacenter");
  s.name = "d0";
  s.serial = serial;
  s.capacity_bytes = 100'000'000'000ULL;
  return s;
}

}  // namespace nvmond::test
