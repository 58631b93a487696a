#pragma once
// The nvme_* export table: one drive's decoded health, and what its log
// trackers counted, as Prometheus families, following the conventions of
// docs/metrics.md: prefix nvme_, base units (seconds, bytes, celsius, ratio),
// counters end in _total, every series labelled serial="...". It needs the
// decoded data only, never a device or the poller, so it sits beside the
// trackers whose counts it renders.
#include "collectors/health.hpp"
#include "drivelog/error_log_tracker.hpp"
#include "drivelog/event_log_tracker.hpp"
#include "metrics/metric_set.hpp"

namespace nvmond {

// nvme_up: 1 if the last poll of the drive succeeded.
void add_up(const LabelPrefix& id, bool up, MetricSet& out);
// A drive that never identified (no serial): nvme_up and nvme_device_info
// keyed by path, nothing else.
void add_unidentified_drive(const std::string& path, bool up, MetricSet& out);
// Series that describe the drive whether or not its last poll worked; with
// the host controlled thermal management points of its last successful poll
// (nullopt: none, or the drive is down) beside its Identify limits.
void add_drive_info(const DriveInfo& info, const LabelPrefix& id, MetricSet& out,
                    const std::optional<HostThermalManagement>& host_thermal = std::nullopt);
// nvme_error_log_read_entries_total: the entries of the Error Information
// log counted so far, one series per status class (zeros included, so an
// alert's increase() sees the first one).
void add_error_log_classes(const ErrorClassCounts& counts, const LabelPrefix& id, MetricSet& out);
// nvme_event_log_events_total: the Persistent Event log events counted so
// far, one series per type label (zeros included, as above).
void add_event_log_types(const EventLogTypeCounts& counts, const LabelPrefix& id, MetricSet& out);
// Everything read in one successful poll: each log source's families
// (drivelog/log_sources), in the table's order.
void add_health(const HealthSnapshot& snap, const LabelPrefix& id, MetricSet& out);

// One page's families, each for the LogSource row of its page.
// The SMART log's: temperatures, critical warning bits, its counters.
void add_smart_health(const SmartLog& smart, const LabelPrefix& id, MetricSet& out);
void add_temperature_thresholds(const TemperatureThresholds& thresholds, const LabelPrefix& id, MetricSet& out);
void add_ocp_smart(const OcpSmartLog& log, const LabelPrefix& id, MetricSet& out);
void add_ocp_latency_monitor(const OcpLatencyMonitorLog& log, const LabelPrefix& id, MetricSet& out);
void add_ocp_recovery(const OcpErrorRecoveryLog& log, const LabelPrefix& id, MetricSet& out);
void add_pcie_link(const PcieLink& link, const LabelPrefix& id, MetricSet& out);
// Only for a drive that supports self-tests: a drive without them has no
// nvme_self_test_* series at all (QEMU, most client drives).
void add_self_test(const SelfTestLog& log, const LabelPrefix& id, MetricSet& out);

}  // namespace nvmond
