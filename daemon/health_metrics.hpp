#pragma once
// Renders one drive's decoded health into Prometheus families, following the
// conventions of DESIGN.md: prefix nvme_, base units (seconds, bytes, celsius,
// ratio), counters end in _total, every series labelled serial="...".
#include "collectors/health.hpp"
#include "daemon/metric_set.hpp"

namespace nvmond {

// Series that describe the drive whether or not its last poll worked.
void add_drive_info(const DriveInfo& info, const Labels& id, MetricSet& out);
// Everything read in one successful poll.
void add_health(const DriveInfo& info, const HealthSnapshot& snap, const Labels& id,
                MetricSet& out);

}  // namespace nvmond
