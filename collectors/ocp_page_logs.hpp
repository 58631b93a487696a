#pragma once
// The OCP Datacenter NVMe SSD pages read through the generic read
// (DeviceReader::read_ocp_log), decoded: one member per page, each filled by
// that page's log source row (drivelog/log_sources), nullopt when the drive
// lacks the page or its read failed. A HealthSnapshot holds them behind a
// pointer (HealthSnapshot::ocp_pages), so only the rows, the exports and
// their tests include this header. Like health.hpp, the drive's own units.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvmond {

// Unsupported Requirements (log C5h): the requirements of the specification
// the drive says it does not meet, by their IDs ("GETF-1").
struct OcpUnsupportedRequirementsLog {
  std::vector<std::string> requirement_ids;  // as many as the page's count says, each up to its first NUL
  std::uint16_t log_page_version = 0;
  bool operator==(const OcpUnsupportedRequirementsLog&) const = default;
};

struct OcpPageLogs {
  std::optional<OcpUnsupportedRequirementsLog> unsupported_requirements;
};

}  // namespace nvmond
