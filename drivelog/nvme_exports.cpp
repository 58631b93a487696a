#include "drivelog/nvme_exports.hpp"

#include <chrono>

#include <fmt/core.h>

#include "collectors/nvme/ocp_log_pages.hpp"
#include "collectors/nvme/self_test_log.hpp"
#include "drivelog/log_sources.hpp"

namespace nvmond {
namespace {

constexpr double kMinute = 60.0;
constexpr double kHour = 3600.0;
constexpr double kDataUnit = static_cast<double>(kDataUnitBytes);

// One row per scalar field of a log page: the single place that says which
// metric a field becomes and how it is converted to base units.
template <typename Log>
struct FieldMetric {
  Family family;
  double (*value)(const Log&);
};

const FieldMetric<SmartLog> kSmartMetrics[] = {
    {{"nvme_available_spare_ratio", Family::gauge, "Remaining spare capacity (SMART Available Spare / 100)."},
     [](const SmartLog& s) { return s.available_spare_pct / 100.0; }},
    {{"nvme_available_spare_threshold_ratio", Family::gauge,
      "Spare level below which the drive raises a critical warning."},
     [](const SmartLog& s) { return s.available_spare_threshold_pct / 100.0; }},
    {{"nvme_percentage_used_ratio", Family::gauge,
      "Vendor estimate of endurance used (SMART Percentage Used / 100; may "
      "exceed 1)."},
     [](const SmartLog& s) { return s.percentage_used / 100.0; }},
    {{"nvme_endurance_group_critical_warning", Family::gauge,
      "Endurance Group Critical Warning Summary bit field (raw)."},
     [](const SmartLog& s) { return double(s.endurance_group_critical_warning); }},
    {{"nvme_data_read_bytes_total", Family::counter, "Host data read (SMART Data Units Read x 512000)."},
     [](const SmartLog& s) { return to_double(s.data_units_read) * kDataUnit; }},
    {{"nvme_data_written_bytes_total", Family::counter, "Host data written (SMART Data Units Written x 512000)."},
     [](const SmartLog& s) { return to_double(s.data_units_written) * kDataUnit; }},
    {{"nvme_host_read_commands_total", Family::counter, "Read commands completed by the controller."},
     [](const SmartLog& s) { return to_double(s.host_read_commands); }},
    {{"nvme_host_write_commands_total", Family::counter, "Write commands completed by the controller."},
     [](const SmartLog& s) { return to_double(s.host_write_commands); }},
    {{"nvme_controller_busy_seconds_total", Family::counter, "Time the controller was busy with I/O commands."},
     [](const SmartLog& s) { return to_double(s.controller_busy_minutes) * kMinute; }},
    {{"nvme_power_cycles_total", Family::counter, "Power cycles."},
     [](const SmartLog& s) { return to_double(s.power_cycles); }},
    {{"nvme_power_on_seconds_total", Family::counter, "Power-on time (SMART Power On Hours x 3600)."},
     [](const SmartLog& s) { return to_double(s.power_on_hours) * kHour; }},
    {{"nvme_unsafe_shutdowns_total", Family::counter, "Shutdowns without a shutdown notification."},
     [](const SmartLog& s) { return to_double(s.unsafe_shutdowns); }},
    {{"nvme_media_errors_total", Family::counter, "Unrecovered data integrity errors."},
     [](const SmartLog& s) { return to_double(s.media_errors); }},
    {{"nvme_error_log_entries_total", Family::counter, "Error information log entries over the drive's life."},
     [](const SmartLog& s) { return to_double(s.error_log_entries); }},
    {{"nvme_warning_temperature_seconds_total", Family::counter,
      "Time the composite temperature was at or above WCTEMP."},
     [](const SmartLog& s) { return s.thermal.warning_minutes * kMinute; }},
    {{"nvme_critical_temperature_seconds_total", Family::counter,
      "Time the composite temperature was at or above CCTEMP."},
     [](const SmartLog& s) { return s.thermal.critical_minutes * kMinute; }},
};

const FieldMetric<OcpSmartLog> kOcpMetrics[] = {
    {{"nvme_ocp_physical_media_written_bytes_total", Family::counter, "Bytes written to NAND (OCP C0)."},
     [](const OcpSmartLog& o) { return to_double(o.physical_media_units_written); }},
    {{"nvme_ocp_physical_media_read_bytes_total", Family::counter, "Bytes read from NAND (OCP C0)."},
     [](const OcpSmartLog& o) { return to_double(o.physical_media_units_read); }},
    {{"nvme_ocp_bad_user_nand_blocks", Family::gauge, "Bad user NAND blocks (OCP C0 raw count)."},
     [](const OcpSmartLog& o) { return double(o.bad_user_nand_blocks_raw); }},
    {{"nvme_ocp_bad_system_nand_blocks", Family::gauge, "Bad system NAND blocks (OCP C0 raw count)."},
     [](const OcpSmartLog& o) { return double(o.bad_system_nand_blocks_raw); }},
    {{"nvme_ocp_xor_recoveries_total", Family::counter, "XOR recoveries (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.xor_recovery_count); }},
    {{"nvme_ocp_uncorrectable_read_errors_total", Family::counter, "Uncorrectable read errors (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.uncorrectable_read_errors); }},
    {{"nvme_ocp_soft_ecc_errors_total", Family::counter, "Soft ECC errors (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.soft_ecc_errors); }},
    {{"nvme_ocp_end_to_end_detected_errors_total", Family::counter, "End-to-end detected errors (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.end_to_end_detected_errors); }},
    {{"nvme_ocp_end_to_end_corrected_errors_total", Family::counter, "End-to-end corrected errors (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.end_to_end_corrected_errors); }},
    {{"nvme_ocp_system_data_used_ratio", Family::gauge, "System data percent used / 100 (OCP C0)."},
     [](const OcpSmartLog& o) { return o.system_data_percent_used / 100.0; }},
    {{"nvme_ocp_refreshes_total", Family::counter, "NAND refresh count (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.refresh_counts); }},
    {{"nvme_ocp_thermal_throttling_events_total", Family::counter,
      "Thermal throttling events counted by the drive (OCP C0, saturates at "
      "255)."},
     [](const OcpSmartLog& o) { return double(o.thermal_throttling_count); }},
    {{"nvme_ocp_thermal_throttling_status", Family::gauge,
      "Current throttling: 0 none, 1 first level, 2 second level, 3 critical "
      "(OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.thermal_throttling_status); }},
    {{"nvme_ocp_pcie_correctable_errors_total", Family::counter, "PCIe correctable errors (OCP C0)."},
     [](const OcpSmartLog& o) { return to_double(o.pcie_correctable_errors); }},
    {{"nvme_ocp_incomplete_shutdowns_total", Family::counter, "Incomplete shutdowns (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.incomplete_shutdowns); }},
    {{"nvme_ocp_free_blocks_ratio", Family::gauge, "Free blocks percent / 100 (OCP C0)."},
     [](const OcpSmartLog& o) { return o.free_blocks_pct / 100.0; }},
    {{"nvme_ocp_capacitor_health_ratio", Family::gauge, "Power-loss capacitor health percent / 100 (OCP C0)."},
     [](const OcpSmartLog& o) { return o.capacitor_health_pct / 100.0; }},
    {{"nvme_ocp_unaligned_io_total", Family::counter, "Unaligned I/O commands (OCP C0)."},
     [](const OcpSmartLog& o) { return double(o.unaligned_io); }},
    {{"nvme_ocp_endurance_estimate_bytes", Family::gauge, "Bytes the drive expects to accept over its life (OCP C0)."},
     [](const OcpSmartLog& o) { return to_double(o.endurance_estimate); }},
};

// C0 fields of later log page versions: exported only when the page's
// version has them (a zero from an older page would read as a real value).
struct VersionedOcpMetric {
  std::uint16_t since;
  FieldMetric<OcpSmartLog> metric;
};
const VersionedOcpMetric kOcpVersionedMetrics[] = {
    {2,
     {{"nvme_ocp_pcie_link_retrainings_total", Family::counter, "PCIe link retrainings (OCP C0, version 2+)."},
      [](const OcpSmartLog& o) { return double(o.pcie_link_retraining_count); }}},
    {2,
     {{"nvme_ocp_power_state_changes_total", Family::counter, "Power state changes (OCP C0, version 2+)."},
      [](const OcpSmartLog& o) { return double(o.power_state_change_count); }}},
    {5,
     {{"nvme_ocp_media_dies", Family::gauge, "Media dies in the drive (OCP C0 Total Media Dies, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.total_media_dies); }}},
    {5,
     {{"nvme_ocp_media_die_failure_tolerance", Family::gauge,
       "Media dies the drive can lose and keep working (OCP C0, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.total_die_failure_tolerance); }}},
    {5,
     {{"nvme_ocp_media_dies_offline", Family::gauge, "Media dies taken offline (OCP C0, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.media_dies_offline); }}},
    {5,
     {{"nvme_ocp_max_temperature_recorded_celsius", Family::gauge,
       "Highest temperature the drive has recorded (OCP C0, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.max_temperature_recorded_c); }}},
    {5,
     {{"nvme_ocp_nand_average_erases", Family::gauge, "Average erase count of the NAND blocks (OCP C0, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.nand_average_erase_count); }}},
    {5,
     {{"nvme_ocp_command_timeouts_total", Family::counter, "Commands the drive timed out (OCP C0, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.command_timeouts); }}},
    {5,
     {{"nvme_ocp_system_area_program_failures_total", Family::counter,
       "Program failures in the system area (OCP C0 raw count, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.system_area_program_failures_raw); }}},
    {5,
     {{"nvme_ocp_system_area_uncorrectable_reads_total", Family::counter,
       "Uncorrectable reads in the system area (OCP C0 raw count, version "
       "5+)."},
      [](const OcpSmartLog& o) { return double(o.system_area_uncorrectable_reads_raw); }}},
    {5,
     {{"nvme_ocp_system_area_erase_failures_total", Family::counter,
       "Erase failures in the system area (OCP C0 raw count, version 5+)."},
      [](const OcpSmartLog& o) { return double(o.system_area_erase_failures_raw); }}},
};

template <typename Log, std::size_t N>
void add_fields(MetricSet& out, const FieldMetric<Log> (&rows)[N], const LabelPrefix& id, const Log& log) {
  for (const auto& m : rows) out.add(m.family, id, m.value(log));
}

// Filled from more than one place; every other family is declared where it is
// filled.
constexpr Family kDeviceInfo{"nvme_device_info", Family::gauge, "Drive identity; always 1."};
constexpr Family kTemperature{"nvme_temperature_celsius", Family::gauge,
                              "Temperature of the composite or of a sensor."};

}  // namespace

void add_up(const LabelPrefix& id, bool up, MetricSet& out) {
  out.add({"nvme_up", Family::gauge, "1 if the last poll of the drive succeeded, 0 otherwise."}, id, up ? 1 : 0);
}

void add_unidentified_drive(const std::string& path, bool up, MetricSet& out) {
  const auto l = LabelPrefix::of({{"path", path}});
  out.add(kDeviceInfo, l, 1);
  add_up(l, up, out);
}

void add_drive_info(const DriveInfo& info, const LabelPrefix& id, MetricSet& out,
                    const std::optional<HostThermalManagement>& host_thermal) {
  out.add(kDeviceInfo, id,
          {{"model", info.model}, {"firmware", info.firmware}, {"path", info.path}, {"backend", info.backend}}, 1);
  out.add({"nvme_capacity_bytes", Family::gauge, "Capacity the host can write (namespaces, else TNVMCAP)."}, id,
          static_cast<double>(info.capacity_bytes));
  const auto& c = info.controller;
  const HostThermalManagement tmt = host_thermal.value_or(HostThermalManagement{});
  const std::pair<const char*, std::uint16_t> limits[] = {{"warning", c.wctemp_k},
                                                          {"critical", c.cctemp_k},
                                                          {"thermal_management_min", c.mntmt_k},
                                                          {"thermal_management_max", c.mxtmt_k},
                                                          {"tmt1", tmt.tmt1_k},
                                                          {"tmt2", tmt.tmt2_k}};
  for (const auto& [name, kelvin] : limits) {
    if (kelvin == 0) continue;  // not reported by this controller, or that level disabled
    out.add({"nvme_temperature_limit_celsius", Family::gauge,
             "Temperature limits from Identify Controller (WCTEMP, CCTEMP, "
             "MNTMT, MXTMT) and host controlled "
             "thermal management (TMT1, TMT2)."},
            id, {{"limit", name}}, kelvin_to_celsius(kelvin));
  }
}

void add_error_log_classes(const ErrorClassCounts& counts, const LabelPrefix& id, MetricSet& out) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    out.add({"nvme_error_log_read_entries_total", Family::counter,
             "Error Information log entries read from the drive, by the class "
             "of their status."},
            id, {{"status_class", to_text(static_cast<ErrorStatusClass>(i))}}, static_cast<double>(counts[i]));
  }
}

void add_event_log_types(const EventLogTypeCounts& counts, const LabelPrefix& id, MetricSet& out) {
  const auto labels = pel_type_labels();
  for (std::size_t i = 0; i < counts.size(); ++i) {
    out.add({"nvme_event_log_events_total", Family::counter,
             "Persistent Event log events read from the drive, by event type."},
            id, {{"type", labels[i]}}, static_cast<double>(counts[i]));
  }
}

void add_pcie_link(const PcieLink& link, const LabelPrefix& id, MetricSet& out) {
  constexpr Family kSpeed{"nvme_pcie_link_speed_transfers_per_second", Family::gauge,
                          "PCIe link speed, current (as trained) and max (what both ends can do)."};
  constexpr Family kWidth{"nvme_pcie_link_width_lanes", Family::gauge,
                          "PCIe link width, current (as trained) and max (what both ends can do)."};
  const std::pair<const char*, std::pair<std::optional<double>, std::optional<unsigned>>> ends[] = {
      {"current", {link.current_speed_gts, link.current_width}}, {"max", {link.max_speed_gts, link.max_width}}};
  for (const auto& [which, v] : ends) {
    if (v.first) out.add(kSpeed, id, {{"link", which}}, *v.first * 1e9);
    if (v.second) out.add(kWidth, id, {{"link", which}}, *v.second);
  }
  out.add(
      {"nvme_pcie_link_degraded", Family::gauge, "1 while the PCIe link trained slower or narrower than its maximum."},
      id, link.degraded() ? 1 : 0);
  const std::pair<const char*, std::optional<std::uint64_t>> aer[] = {
      {"correctable", link.aer_correctable}, {"nonfatal", link.aer_nonfatal}, {"fatal", link.aer_fatal}};
  for (const auto& [severity, n] : aer) {
    if (!n) continue;  // no AER for this device
    out.add({"nvme_pcie_aer_errors_total", Family::counter,
             "PCIe Advanced Error Reporting errors of the drive's function "
             "since boot, by severity."},
            id, {{"severity", severity}}, static_cast<double>(*n));
  }
}

void add_ocp_smart(const OcpSmartLog& o, const LabelPrefix& id, MetricSet& out) {
  add_fields(out, kOcpMetrics, id, o);
  out.add({"nvme_ocp_smart_log_version", Family::gauge,
           "Log Page Version of the drive's OCP C0 log: which of the "
           "version-gated nvme_ocp_ families it has."},
          id, o.log_page_version);
  for (const auto& v : kOcpVersionedMetrics) {
    if (o.log_page_version >= v.since) out.add(v.metric.family, id, v.metric.value(o));
  }
}

void add_ocp_latency_monitor(const OcpLatencyMonitorLog& log, const LabelPrefix& id, MetricSet& out) {
  out.add({"nvme_ocp_latency_monitor_enabled", Family::gauge, "1 while the drive's OCP latency monitor (C3) is on."},
          id, log.enabled() ? 1 : 0);
  for (std::size_t b = 0; b < kOcpLatencyBuckets; ++b) {
    const std::string bucket = std::to_string(b);
    out.add({"nvme_ocp_latency_monitor_threshold_seconds", Family::gauge,
             "Lower bound of each OCP latency monitor bucket (Active Threshold "
             "A..D)."},
            id, {{"bucket", bucket}}, log.threshold_ms(b) / 1000.0);
    for (std::size_t op = 0; op < kOcpLatencyOps; ++op) {
      out.add({"nvme_ocp_latency_monitor_commands_total", Family::counter,
               "Commands the drive timed at or above a latency monitor bucket's "
               "threshold and below the next "
               "(OCP C3 static bucket counters, since the monitor was enabled)."},
              id, {{"op", kOcpLatencyOpNames[op]}, {"bucket", bucket}}, log.static_bucket[b][op]);
    }
  }
}

void add_ocp_recovery(const OcpErrorRecoveryLog& log, const LabelPrefix& id, MetricSet& out) {
  out.add(
      {"nvme_ocp_panics_total", Family::counter, "Panics the drive counted (OCP C1 Panic Count, saturates at 255)."},
      id, log.panic_count);
  out.add({"nvme_ocp_panic", Family::gauge, "1 while the drive reports a panic (OCP C1 Panic ID not zero)."}, id,
          log.panicked() ? 1 : 0);
  if (!log.panicked()) return;
  const std::string reset_action = ocp_reset_action_text(log.panic_reset_action);
  out.add({"nvme_ocp_panic_info", Family::gauge,
           "The drive's current panic and what it asks the host to do (OCP "
           "C1); always 1."},
          id,
          {{"panic_id", fmt::format("0x{:x}", log.panic_id)},
           {"reset_action", reset_action},
           {"recovery_action", ocp_recovery_action_text(log.device_recovery_action_1)}},
          1);
}

void add_self_test(const SelfTestLog& log, const LabelPrefix& id, MetricSet& out) {
  out.add({"nvme_self_test_in_progress", Family::gauge, "1 while a device self-test runs, 0 otherwise."}, id,
          log.running() ? 1 : 0);
  out.add({"nvme_self_test_progress_ratio", Family::gauge,
           "Completion of the running device self-test (0..1; 0 when none runs)."},
          id, log.running() ? log.completion_pct / 100.0 : 0.0);
  if (log.results.empty()) return;  // never tested
  const SelfTestResult& last = log.results.front();
  out.add({"nvme_self_test_last_result", Family::gauge,
           "1 for the newest device self-test result, labelled by its kind and "
           "outcome."},
          id, {{"kind", self_test_kind_text(last.code())}, {"result", self_test_result_text(last.result())}}, 1);
  out.add({"nvme_self_test_last_power_on_seconds", Family::gauge,
           "Power-on time at which the newest device self-test completed or "
           "aborted (its Power On Hours x 3600)."},
          id, static_cast<double>(last.power_on_hours) * kHour);
  if (last.result() == kSelfTestFailedSegments) {
    out.add({"nvme_self_test_failed_segment", Family::gauge,
             "First failed segment of the newest device self-test, when it "
             "failed in a known segment."},
            id, last.segment);
  }
}

void add_smart_health(const SmartLog& s, const LabelPrefix& id, MetricSet& out) {
  out.add(kTemperature, id, {{"sensor", "composite"}}, kelvin_to_celsius(s.composite_temperature_k));
  for (std::size_t i = 0; i < s.sensor_temperature_k.size(); ++i) {
    if (s.sensor_temperature_k[i] == 0) continue;  // absent sensor
    out.add(kTemperature, id, {{"sensor", std::to_string(i + 1)}}, kelvin_to_celsius(s.sensor_temperature_k[i]));
  }
  for (const auto& bit : kCriticalWarningNames) {
    out.add({"nvme_critical_warning", Family::gauge, "SMART critical warning bits, one series per bit (0/1)."}, id,
            {{"bit", bit.name}}, (s.critical_warning & bit.mask) != 0 ? 1 : 0);
  }
  add_fields(out, kSmartMetrics, id, s);

  const std::pair<const char*, std::pair<std::uint32_t, std::uint32_t>> tmt[] = {
      {"1", {s.thermal.tmt1_transitions, s.thermal.tmt1_seconds}},
      {"2", {s.thermal.tmt2_transitions, s.thermal.tmt2_seconds}}};
  for (const auto& [level, v] : tmt) {
    out.add({"nvme_thermal_management_transitions_total", Family::counter,
             "Transitions into host-controlled thermal management level 1 or 2."},
            id, {{"level", level}}, v.first);
    out.add({"nvme_thermal_management_seconds_total", Family::counter,
             "Time spent in host-controlled thermal management level 1 or 2."},
            id, {{"level", level}}, v.second);
  }
}

void add_temperature_thresholds(const TemperatureThresholds& thresholds, const LabelPrefix& id, MetricSet& out) {
  for (std::size_t i = 0; i < thresholds.over_k.size(); ++i) {
    std::string sensor = i == 0 ? "composite" : std::to_string(i);
    const std::pair<const char*, const std::optional<std::uint16_t>*> kinds[] = {{"over", &thresholds.over_k[i]},
                                                                                 {"under", &thresholds.under_k[i]}};
    for (const auto& [kind, value] : kinds) {
      if (!value->has_value() || **value == 0) continue;
      out.add({"nvme_temperature_threshold_celsius", Family::gauge,
               "Temperature Threshold feature (FID 04h) per sensor, over and "
               "under."},
              id, {{"sensor", sensor}, {"type", kind}}, kelvin_to_celsius(**value));
    }
  }
}

void add_health(const HealthSnapshot& snap, const LabelPrefix& id, MetricSet& out) {
  for (const LogSource& source : log_sources()) {
    if (source.add_exports) source.add_exports(snap, id, out);
  }
}

}  // namespace nvmond
