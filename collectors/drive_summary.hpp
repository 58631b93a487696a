#pragma once
// Each drive's health in a few numbers, made by its poller from the decoded
// health data whenever it publishes (PublishedMetrics::drives()), so nvmonctl,
// the soak scheduler and the self-test scheduler never touch a device or wait
// on a poller, and what they see does not depend on how the metrics are named.
// It lives beside the health data it is made from, below every layer that
// reads it, so the schedulers take it as it is instead of a copy of a few of
// its fields; summarize_drive (polling/drive_summary.hpp) fills it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/health.hpp"

namespace nvmond {

struct DriveSummary {
  std::string serial, model, path;
  bool up = false;
  std::optional<double> composite_c, warning_c, percentage_used;  // celsius, ratio
  std::vector<std::string> critical_warnings;                     // names of the bits set (kCriticalWarningNames)
  bool throttling = false;
  bool link_degraded = false;  // PCIe link trained below its maximum speed or width
  // Media and path entries of its error log counted so far; nullopt: unknown.
  std::optional<std::uint64_t> media_path_errors = {};
  // The other conditions that page critical (grafana/rules), named by the
  // constants below; the SMART bits, the link and the error log
  // have their fields above. Filled from the snapshot by summarize_drive and
  // from the analytics by the poller (PollObservation::conditions).
  std::vector<std::string> conditions = {};
  bool self_test_supported = false;           // Identify OACS bit 4
  std::optional<SelfTestLog> self_test = {};  // as last read; nullopt before the first read
};

// Names of DriveSummary::conditions, as `nvmonctl status` prints them.
inline constexpr const char* kTemperatureCritical = "temperature_critical";  // composite at or over CCTEMP
inline constexpr const char* kSelfTestFailed = "self_test_failed";           // the newest self-test failed
inline constexpr const char* kFirmwarePanic = "firmware_panic";              // OCP C1 reports a panic
inline constexpr const char* kWearoutImminent = "wearout_imminent";          // rated endurance within 30 days

}  // namespace nvmond
