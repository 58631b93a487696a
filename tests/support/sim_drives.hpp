#pragma once
// Simulated drives the PTS and soak unit tests share.
#include <string>

#include "sim/sim_drive_spec.hpp"

namespace nvmond::test {

// A 100 GB drive of a simulator profile, named d0: small enough that a WSAT
// reaches its write cliff within a few simulated hours.
inline SimDriveSpec small_drive(const std::string& profile, const std::string& serial) {
  SimDriveSpec s = sim_profile(profile);
  s.name = "d0";
  s.serial = serial;
  s.capacity_bytes = 100'000'000'000ULL;
  return s;
}

inline SimDriveSpec small_datacenter_drive(const std::string& serial) { return small_drive("datacenter", serial); }

}  // namespace nvmond::test
