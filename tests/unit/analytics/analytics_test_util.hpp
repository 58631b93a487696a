#pragma once
// Shared helpers of the analytics tests: temp dirs and synthetic snapshots.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "collectors/health.hpp"
#include "core/clock.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond::testing {

using test::TempDir;

inline DriveInfo drive(const std::string& serial, const std::string& path, std::uint64_t capacity = 1'000'000'000'000) {
  DriveInfo d;
  d.serial = serial;
  d.model = "Test Drive 1TB";
  d.path = path;
  d.backend = "sim";
  d.capacity_bytes = capacity;
  d.controller.serial = serial;
  d.controller.model = d.model;
  d.controller.wctemp_k = 343;  // 69.85 °C
  d.controller.cctemp_k = 358;  // 84.85 °C
  return d;
}

// A cool, idle drive at `t`.
inline HealthSnapshot snapshot(WallTime t) {
  HealthSnapshot s;
  s.taken = t;
  s.smart.composite_temperature_k = 313;
  s.smart.power_on_hours = 1000;
  return s;
}

}  // namespace nvmond::testing
