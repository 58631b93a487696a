#include "daemon/health_metrics.hpp"

#include <chrono>

namespace nvmond {
namespace {

using prometheus::MetricType;

constexpr double kMinute = 60.0;
constexpr double kHour = 3600.0;
constexpr double kDataUnit = static_cast<double>(kDataUnitBytes);

// One row per scalar field of a log page: the single place that says which
// metric a field becomes and how it is converted to base units.
template <typename Log>
struct FieldMetric {
  const char* name;
  const char* help;
  MetricType type;
  double (*value)(const Log&);
};

const FieldMetric<SmartLog> kSmartMetrics[] = {
    {"nvme_available_spare_ratio", "Remaining spare capacity (SMART Available Spare / 100).",
     MetricType::Gauge, [](const SmartLog& s) { return s.available_spare_pct / 100.0; }},
    {"nvme_available_spare_threshold_ratio",
     "Spare level below which the drive raises a critical warning.", MetricType::Gauge,
     [](const SmartLog& s) { return s.available_spare_threshold_pct / 100.0; }},
    {"nvme_percentage_used_ratio",
     "Vendor estimate of endurance used (SMART Percentage Used / 100; may exceed 1).",
     MetricType::Gauge, [](const SmartLog& s) { return s.percentage_used / 100.0; }},
    {"nvme_endurance_group_critical_warning",
     "Endurance Group Critical Warning Summary bit field (raw).", MetricType::Gauge,
     [](const SmartLog& s) { return double(s.endurance_group_critical_warning); }},
    {"nvme_data_read_bytes_total", "Host data read (SMART Data Units Read x 512000).",
     MetricType::Counter, [](const SmartLog& s) { return to_double(s.data_units_read) * kDataUnit; }},
    {"nvme_data_written_bytes_total", "Host data written (SMART Data Units Written x 512000).",
     MetricType::Counter,
     [](const SmartLog& s) { return to_double(s.data_units_written) * kDataUnit; }},
    {"nvme_host_read_commands_total", "Read commands completed by the controller.",
     MetricType::Counter, [](const SmartLog& s) { return to_double(s.host_read_commands); }},
    {"nvme_host_write_commands_total", "Write commands completed by the controller.",
     MetricType::Counter, [](const SmartLog& s) { return to_double(s.host_write_commands); }},
    {"nvme_controller_busy_seconds_total", "Time the controller was busy with I/O commands.",
     MetricType::Counter,
     [](const SmartLog& s) { return to_double(s.controller_busy_minutes) * kMinute; }},
    {"nvme_power_cycles_total", "Power cycles.", MetricType::Counter,
     [](const SmartLog& s) { return to_double(s.power_cycles); }},
    {"nvme_power_on_seconds_total", "Power-on time (SMART Power On Hours x 3600).",
     MetricType::Counter, [](const SmartLog& s) { return to_double(s.power_on_hours) * kHour; }},
    {"nvme_unsafe_shutdowns_total", "Shutdowns without a shutdown notification.",
     MetricType::Counter, [](const SmartLog& s) { return to_double(s.unsafe_shutdowns); }},
    {"nvme_media_errors_total", "Unrecovered data integrity errors.", MetricType::Counter,
     [](const SmartLog& s) { return to_double(s.media_errors); }},
    {"nvme_error_log_entries_total", "Error information log entries over the drive's life.",
     MetricType::Counter, [](const SmartLog& s) { return to_double(s.error_log_entries); }},
    {"nvme_warning_temperature_seconds_total",
     "Time the composite temperature was at or above WCTEMP.", MetricType::Counter,
     [](const SmartLog& s) { return s.warning_temperature_minutes * kMinute; }},
    {"nvme_critical_temperature_seconds_total",
     "Time the composite temperature was at or above CCTEMP.", MetricType::Counter,
     [](const SmartLog& s) { return s.critical_temperature_minutes * kMinute; }},
};

struct WarningBit {
  std::uint8_t mask;
  const char* label;
};
const WarningBit kWarningBits[] = {
    {kWarnSpare, "spare"},           {kWarnTemperature, "temperature"},
    {kWarnReliability, "reliability"}, {kWarnReadOnly, "read_only"},
    {kWarnVolatileBackup, "volatile_backup"}, {kWarnPmr, "pmr"},
};

const FieldMetric<OcpSmartLog> kOcpMetrics[] = {
    {"nvme_ocp_physical_media_written_bytes_total", "Bytes written to NAND (OCP C0).",
     MetricType::Counter, [](const OcpSmartLog& o) { return to_double(o.physical_media_units_written); }},
    {"nvme_ocp_physical_media_read_bytes_total", "Bytes read from NAND (OCP C0).",
     MetricType::Counter, [](const OcpSmartLog& o) { return to_double(o.physical_media_units_read); }},
    {"nvme_ocp_bad_user_nand_blocks", "Bad user NAND blocks (OCP C0 raw count).", MetricType::Gauge,
     [](const OcpSmartLog& o) { return double(o.bad_user_nand_blocks_raw); }},
    {"nvme_ocp_bad_system_nand_blocks", "Bad system NAND blocks (OCP C0 raw count).",
     MetricType::Gauge, [](const OcpSmartLog& o) { return double(o.bad_system_nand_blocks_raw); }},
    {"nvme_ocp_xor_recoveries_total", "XOR recoveries (OCP C0).", MetricType::Counter,
     [](const OcpSmartLog& o) { return double(o.xor_recovery_count); }},
    {"nvme_ocp_uncorrectable_read_errors_total", "Uncorrectable read errors (OCP C0).",
     MetricType::Counter, [](const OcpSmartLog& o) { return double(o.uncorrectable_read_errors); }},
    {"nvme_ocp_soft_ecc_errors_total", "Soft ECC errors (OCP C0).", MetricType::Counter,
     [](const OcpSmartLog& o) { return double(o.soft_ecc_errors); }},
    {"nvme_ocp_end_to_end_detected_errors_total", "End-to-end detected errors (OCP C0).",
     MetricType::Counter, [](const OcpSmartLog& o) { return double(o.end_to_end_detected_errors); }},
    {"nvme_ocp_end_to_end_corrected_errors_total", "End-to-end corrected errors (OCP C0).",
     MetricType::Counter, [](const OcpSmartLog& o) { return double(o.end_to_end_corrected_errors); }},
    {"nvme_ocp_system_data_used_ratio", "System data percent used / 100 (OCP C0).",
     MetricType::Gauge, [](const OcpSmartLog& o) { return o.system_data_percent_used / 100.0; }},
    {"nvme_ocp_refreshes_total", "NAND refresh count (OCP C0).", MetricType::Counter,
     [](const OcpSmartLog& o) { return double(o.refresh_counts); }},
    {"nvme_ocp_thermal_throttling_events_total",
     "Thermal throttling events counted by the drive (OCP C0, saturates at 255).",
     MetricType::Counter, [](const OcpSmartLog& o) { return double(o.thermal_throttling_count); }},
    {"nvme_ocp_thermal_throttling_status",
     "Current throttling: 0 none, 1 first level, 2 second level, 3 critical (OCP C0).",
     MetricType::Gauge, [](const OcpSmartLog& o) { return double(o.thermal_throttling_status); }},
    {"nvme_ocp_pcie_correctable_errors_total", "PCIe correctable errors (OCP C0).",
     MetricType::Counter, [](const OcpSmartLog& o) { return to_double(o.pcie_correctable_errors); }},
    {"nvme_ocp_incomplete_shutdowns_total", "Incomplete shutdowns (OCP C0).", MetricType::Counter,
     [](const OcpSmartLog& o) { return double(o.incomplete_shutdowns); }},
    {"nvme_ocp_free_blocks_ratio", "Free blocks percent / 100 (OCP C0).", MetricType::Gauge,
     [](const OcpSmartLog& o) { return o.free_blocks_pct / 100.0; }},
    {"nvme_ocp_capacitor_health_ratio", "Power-loss capacitor health percent / 100 (OCP C0).",
     MetricType::Gauge, [](const OcpSmartLog& o) { return o.capacitor_health_pct / 100.0; }},
    {"nvme_ocp_unaligned_io_total", "Unaligned I/O commands (OCP C0).", MetricType::Counter,
     [](const OcpSmartLog& o) { return double(o.unaligned_io); }},
    {"nvme_ocp_endurance_estimate_bytes", "Bytes the drive expects to accept over its life (OCP C0).",
     MetricType::Gauge, [](const OcpSmartLog& o) { return to_double(o.endurance_estimate); }},
};

Labels with(const Labels& base, const char* name, std::string value) {
  Labels out = base;
  out.push_back({name, std::move(value)});
  return out;
}

template <typename Log, std::size_t N>
void add_fields(MetricSet& out, const FieldMetric<Log> (&rows)[N], const Labels& id, const Log& log) {
  for (const auto& m : rows) {
    if (m.type == MetricType::Counter) out.counter(m.name, m.help, id, m.value(log));
    else out.gauge(m.name, m.help, id, m.value(log));
  }
}

void add_temperature(MetricSet& out, const Labels& id, const char* sensor, std::uint16_t kelvin) {
  out.gauge("nvme_temperature_celsius", "Temperature of the composite or of a sensor.",
            with(id, "sensor", sensor), kelvin_to_celsius(kelvin));
}

constexpr const char* kDeviceInfoHelp = "Drive identity; always 1.";

}  // namespace

void add_up(const Labels& id, bool up, MetricSet& out) {
  out.gauge("nvme_up", "1 if the last poll of the drive succeeded, 0 otherwise.", id, up ? 1 : 0);
}

void add_unidentified_drive(const std::string& path, bool up, MetricSet& out) {
  Labels l{{"path", path}};
  out.gauge("nvme_device_info", kDeviceInfoHelp, l, 1);
  add_up(l, up, out);
}

void add_drive_info(const DriveInfo& info, const Labels& id, MetricSet& out) {
  Labels l = id;
  l.push_back({"model", info.model});
  l.push_back({"firmware", info.firmware});
  l.push_back({"path", info.path});
  l.push_back({"backend", info.backend});
  out.gauge("nvme_device_info", kDeviceInfoHelp, l, 1);
  out.gauge("nvme_capacity_bytes", "Capacity the host can write (namespaces, else TNVMCAP).", id,
            static_cast<double>(info.capacity_bytes));
  const auto& c = info.controller;
  const std::pair<const char*, std::uint16_t> limits[] = {
      {"warning", c.wctemp_k}, {"critical", c.cctemp_k},
      {"thermal_management_min", c.mntmt_k}, {"thermal_management_max", c.mxtmt_k}};
  for (const auto& [name, kelvin] : limits) {
    if (kelvin == 0) continue;  // not reported by this controller
    out.gauge("nvme_temperature_limit_celsius",
              "Temperature limits from Identify Controller (WCTEMP, CCTEMP, MNTMT, MXTMT).",
              with(id, "limit", name), kelvin_to_celsius(kelvin));
  }
}

void add_health(const DriveInfo& /*info*/, const HealthSnapshot& snap, const Labels& id,
                MetricSet& out) {
  const SmartLog& s = snap.smart;
  add_temperature(out, id, "composite", s.composite_temperature_k);
  for (std::size_t i = 0; i < s.sensor_temperature_k.size(); ++i) {
    if (s.sensor_temperature_k[i] == 0) continue;  // absent sensor
    add_temperature(out, id, std::to_string(i + 1).c_str(), s.sensor_temperature_k[i]);
  }
  for (const auto& bit : kWarningBits) {
    out.gauge("nvme_critical_warning", "SMART critical warning bits, one series per bit (0/1).",
              with(id, "bit", bit.label), (s.critical_warning & bit.mask) != 0 ? 1 : 0);
  }
  add_fields(out, kSmartMetrics, id, s);

  const std::pair<const char*, std::pair<std::uint32_t, std::uint32_t>> tmt[] = {
      {"1", {s.thermal_mgmt_t1_transitions, s.thermal_mgmt_t1_seconds}},
      {"2", {s.thermal_mgmt_t2_transitions, s.thermal_mgmt_t2_seconds}}};
  for (const auto& [level, v] : tmt) {
    out.counter("nvme_thermal_management_transitions_total",
                "Transitions into host-controlled thermal management level 1 or 2.",
                with(id, "level", level), v.first);
    out.counter("nvme_thermal_management_seconds_total",
                "Time spent in host-controlled thermal management level 1 or 2.",
                with(id, "level", level), v.second);
  }

  for (std::size_t i = 0; i < snap.thresholds.over_k.size(); ++i) {
    std::string sensor = i == 0 ? "composite" : std::to_string(i);
    const std::pair<const char*, const std::optional<std::uint16_t>*> kinds[] = {
        {"over", &snap.thresholds.over_k[i]}, {"under", &snap.thresholds.under_k[i]}};
    for (const auto& [kind, value] : kinds) {
      if (!value->has_value() || **value == 0) continue;
      Labels l = with(id, "sensor", sensor);
      l.push_back({"type", kind});
      out.gauge("nvme_temperature_threshold_celsius",
                "Temperature Threshold feature (FID 04h) per sensor, over and under.", l,
                kelvin_to_celsius(**value));
    }
  }

  if (snap.ocp) add_fields(out, kOcpMetrics, id, *snap.ocp);
}

}  // namespace nvmond
