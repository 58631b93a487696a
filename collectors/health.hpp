#pragma once
// Plain decoded data from an NVMe controller. Everything above the Device
// boundary (collection, metrics, wear and thermal analytics, the store) works
// on these structs and never sees a file descriptor or a raw page.
//
// Units are the drive's own (Kelvin, data units of 512 000 bytes, minutes,
// hours): conversion to base units happens once, at export, so analytics can
// compare raw counters exactly.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectors/ocp_logs.hpp"
#include "core/clock.hpp"
#include "core/u128.hpp"

namespace nvmond {

// NVMe: one data unit is 1000 512-byte blocks, whatever the LBA format.
inline constexpr std::uint64_t kDataUnitBytes = 512'000;

// Identify Controller (CNS 01h), the fields nvmond uses. Temperatures in
// Kelvin; 0 means "not reported" (as in the spec).
struct ControllerIdentity {
  std::uint16_t vid = 0;
  std::uint16_t ssvid = 0;
  std::string serial;    // SN, trailing spaces trimmed
  std::string model;     // MN, trimmed
  std::string firmware;  // FR, trimmed
  std::uint16_t cntlid = 0;
  std::uint32_t version = 0;   // VER, e.g. 0x00010400 for 1.4
  std::uint16_t wctemp_k = 0;  // warning composite temperature threshold
  std::uint16_t cctemp_k = 0;  // critical composite temperature threshold
  std::uint16_t mntmt_k = 0;   // minimum thermal management temperature
  std::uint16_t mxtmt_k = 0;   // maximum thermal management temperature
  std::uint16_t hctma = 0;     // host controlled thermal management attributes
  std::uint8_t lpa = 0;        // log page attributes
  std::uint8_t elpe = 0;       // error log page entries, 0's based
  u128 tnvmcap = 0;            // total NVM capacity, bytes (0 if not reported)
  std::uint32_t nn = 0;        // number of namespaces
  std::uint8_t vwc = 0;        // volatile write cache; bit 0: present
  std::uint16_t oacs = 0;      // optional admin command support; bit 4: device self-test
};

// Bits of ControllerIdentity::oacs that nvmond looks at.
inline constexpr std::uint16_t kOacsDeviceSelfTest = 1u << 4;
// Bit of ControllerIdentity::hctma: the controller supports Host Controlled
// Thermal Management (Get/Set Features 10h).
inline constexpr std::uint16_t kHctmaSupported = 1u << 0;

// Identify Namespace (CNS 00h).
struct NamespaceIdentity {
  std::uint32_t nsid = 0;
  std::uint64_t nsze = 0;  // size in logical blocks
  std::uint64_t ncap = 0;
  std::uint64_t nuse = 0;
  std::uint32_t lba_bytes = 512;  // from the in-use LBA format
  std::uint8_t lba_format = 0;    // the in-use LBA format's index (FLBAS), what a format keeps
  std::uint64_t size_bytes() const { return nsze * lba_bytes; }
};

// The SMART log's thermal counters (bytes 192..199 and 216..231): time the
// composite spent over WCTEMP / CCTEMP, and how often and how long the drive
// throttled itself at thermal management temperature 1 (light) or 2 (heavy).
// Throttling detection compares them between polls as one value.
struct SmartThermalCounters {
  std::uint32_t warning_minutes = 0;   // composite at or above WCTEMP and below CCTEMP
  std::uint32_t critical_minutes = 0;  // composite at or above CCTEMP
  std::uint32_t tmt1_transitions = 0;
  std::uint32_t tmt2_transitions = 0;
  std::uint32_t tmt1_seconds = 0;
  std::uint32_t tmt2_seconds = 0;
  bool operator==(const SmartThermalCounters&) const = default;
};

// SMART / Health Information log (Log ID 02h), NVMe 1.4 layout, all fields.
struct SmartLog {
  std::uint8_t critical_warning = 0;  // bit field, see CriticalWarning
  std::uint16_t composite_temperature_k = 0;
  std::uint8_t available_spare_pct = 0;
  std::uint8_t available_spare_threshold_pct = 0;
  std::uint8_t percentage_used = 0;  // may exceed 100 (saturates at 255)
  std::uint8_t endurance_group_critical_warning = 0;
  u128 data_units_read = 0;  // units of kDataUnitBytes
  u128 data_units_written = 0;
  u128 host_read_commands = 0;
  u128 host_write_commands = 0;
  u128 controller_busy_minutes = 0;
  u128 power_cycles = 0;
  u128 power_on_hours = 0;
  u128 unsafe_shutdowns = 0;
  u128 media_errors = 0;
  u128 error_log_entries = 0;
  // Temperature sensors 1..8 in Kelvin; 0 means the sensor is absent.
  std::array<std::uint16_t, 8> sensor_temperature_k{};
  SmartThermalCounters thermal;
};

// Bits of SmartLog::critical_warning.
enum CriticalWarning : std::uint8_t {
  kWarnSpare = 1u << 0,
  kWarnTemperature = 1u << 1,
  kWarnReliability = 1u << 2,
  kWarnReadOnly = 1u << 3,
  kWarnVolatileBackup = 1u << 4,
  kWarnPmr = 1u << 5,
};

// Each bit's name, in bit order: the `bit` label of nvme_critical_warning and
// what `nvmonctl status` lists, so the two name a warning alike.
struct CriticalWarningName {
  std::uint8_t mask;
  const char* name;
};
inline constexpr CriticalWarningName kCriticalWarningNames[] = {
    {kWarnSpare, "spare"},        {kWarnTemperature, "temperature"},        {kWarnReliability, "reliability"},
    {kWarnReadOnly, "read_only"}, {kWarnVolatileBackup, "volatile_backup"}, {kWarnPmr, "pmr"},
};

// OCP Datacenter NVMe SSD spec, SMART / Health Information Extended
// (log C0h, 512 bytes, GUID-checked). Only present on drives that implement it.
struct OcpSmartLog {
  u128 physical_media_units_written = 0;  // bytes
  u128 physical_media_units_read = 0;     // bytes
  std::uint64_t bad_user_nand_blocks_raw = 0;
  std::uint64_t bad_system_nand_blocks_raw = 0;
  std::uint64_t xor_recovery_count = 0;
  std::uint64_t uncorrectable_read_errors = 0;
  std::uint64_t soft_ecc_errors = 0;
  std::uint32_t end_to_end_detected_errors = 0;
  std::uint32_t end_to_end_corrected_errors = 0;
  std::uint8_t system_data_percent_used = 0;
  std::uint64_t refresh_counts = 0;  // 56-bit field
  std::uint32_t user_data_erase_count_max = 0;
  std::uint32_t user_data_erase_count_min = 0;
  std::uint8_t thermal_throttling_count = 0;   // events, saturating
  std::uint8_t thermal_throttling_status = 0;  // 0 none, 1 first level, 2 second, 3 critical
  u128 pcie_correctable_errors = 0;
  std::uint32_t incomplete_shutdowns = 0;
  std::uint8_t free_blocks_pct = 0;
  std::uint16_t capacitor_health_pct = 0;
  std::uint64_t unaligned_io = 0;
  std::uint64_t security_version = 0;
  u128 nuse = 0;
  u128 plp_start_count = 0;
  u128 endurance_estimate = 0;  // bytes the drive is expected to accept
  std::uint16_t log_page_version = 0;

  // Fields of later log page versions: read only when log_page_version is
  // at least the version that added them (ocp_smart_log_revisions(),
  // decode.hpp); 0 otherwise. Version 2 and later:
  std::uint8_t dssd_errata_version = 0;
  std::uint16_t dssd_point_version = 0;
  std::uint16_t dssd_minor_version = 0;
  std::uint8_t dssd_major_version = 0;
  std::uint8_t nvme_base_errata_version = 0;
  std::uint64_t pcie_link_retraining_count = 0;
  std::uint64_t power_state_change_count = 0;
  // Version 4 and later:
  std::uint8_t nvme_command_set_errata_version = 0;
  std::uint64_t lowest_permitted_firmware_revision = 0;
  // Version 5 and later:
  std::uint8_t nvme_over_pcie_errata_version = 0;
  std::uint8_t nvme_mi_errata_version = 0;
  std::uint16_t total_media_dies = 0;
  std::uint16_t total_die_failure_tolerance = 0;
  std::uint16_t media_dies_offline = 0;
  std::uint8_t max_temperature_recorded_c = 0;  // one byte: degrees Celsius
  std::uint64_t nand_average_erase_count = 0;
  std::uint32_t command_timeouts = 0;
  std::uint32_t system_area_program_failures_raw = 0;
  std::uint8_t system_area_program_failures_normalized = 0;
  std::uint32_t system_area_uncorrectable_reads_raw = 0;
  std::uint8_t system_area_uncorrectable_reads_normalized = 0;
  std::uint32_t system_area_erase_failures_raw = 0;
  std::uint8_t system_area_erase_failures_normalized = 0;
  std::uint16_t max_peak_power_capability = 0;
  std::uint16_t current_max_average_power = 0;
  std::uint64_t lifetime_power_consumed = 0;  // 48-bit field
  // Version 6 and later:
  std::uint8_t form_factor = 0;
  std::uint64_t die_in_use_bad_nand_blocks_raw = 0;  // 48-bit field
};

// One entry of the Error Information log (Log ID 01h), NVMe 2.0 layout.
// error_count is the drive's lifetime count of the error this entry records
// (unique and rising); 0 marks an empty entry.
struct ErrorLogEntry {
  std::uint64_t error_count = 0;
  std::uint16_t sqid = 0;
  std::uint16_t cid = 0;
  // The completion's status field: bit 0 phase tag, 8:1 SC, 11:9 SCT,
  // 13:12 CRD, 14 More, 15 DNR.
  std::uint16_t status = 0;
  std::uint16_t parameter_error_location = 0;
  std::uint64_t lba = 0;
  std::uint32_t nsid = 0;
  std::uint8_t vendor_specific_info = 0;  // log page of vendor detail, 0 none
  std::uint8_t transport_type = 0;
  std::uint64_t command_specific_info = 0;
  std::uint16_t transport_type_specific_info = 0;

  std::uint8_t status_code() const { return static_cast<std::uint8_t>((status >> 1) & 0xffu); }
  std::uint8_t status_code_type() const { return static_cast<std::uint8_t>((status >> 9) & 0x7u); }
  bool do_not_retry() const { return (status & 0x8000u) != 0; }
  bool operator==(const ErrorLogEntry&) const = default;
};

// One Self-test Result of the Device Self-test log (Log ID 06h), NVMe 2.0
// layout. Raw bytes as the drive wrote them; the accessors mask.
struct SelfTestResult {
  std::uint8_t status = 0;                 // Device Self-test Status: 3:0 result, 7:4 code
  std::uint8_t segment = 0;                // first failed segment (result 7)
  std::uint8_t valid_diagnostic_info = 0;  // bit 0 NSID, 1 FLBA, 2 SCT, 3 SC valid
  std::uint64_t power_on_hours = 0;        // when the test completed or aborted
  std::uint32_t nsid = 0;
  std::uint64_t failing_lba = 0;
  std::uint8_t status_code_type_raw = 0;  // bits 2:0
  std::uint8_t status_code = 0;
  std::uint16_t vendor_specific = 0;

  // 0 passed .. 9 aborted by a sanitize; Fh: entry not used.
  std::uint8_t result() const { return static_cast<std::uint8_t>(status & 0x0fu); }
  // 1 short, 2 extended, Eh vendor specific.
  std::uint8_t code() const { return static_cast<std::uint8_t>(status >> 4); }
  std::uint8_t status_code_type() const { return static_cast<std::uint8_t>(status_code_type_raw & 0x7u); }
  bool operator==(const SelfTestResult&) const = default;
};

// The Device Self-test log (Log ID 06h): the operation running now and the
// results the drive keeps (at most 20), newest first, unused entries left out.
struct SelfTestLog {
  std::uint8_t current_operation = 0;  // 0 none, 1 short, 2 extended, Eh vendor
  std::uint8_t completion_pct = 0;     // of the running operation, 0..100
  std::vector<SelfTestResult> results;
  bool running() const { return current_operation != 0; }
  bool operator==(const SelfTestLog&) const = default;
};

// The PCIe link of a controller as the kernel reports it (sysfs). Speeds in
// GT/s; nullopt where the kernel does not say (no file, "Unknown"), which
// virtual and fabrics controllers do.
struct PcieLink {
  std::optional<double> current_speed_gts;
  std::optional<double> max_speed_gts;
  std::optional<unsigned> current_width;
  std::optional<unsigned> max_width;
  // Advanced Error Reporting totals since boot (TOTAL_ERR_COR etc.); nullopt
  // where the kernel has no AER for the device.
  std::optional<std::uint64_t> aer_correctable;
  std::optional<std::uint64_t> aer_nonfatal;
  std::optional<std::uint64_t> aer_fatal;
  // Trained below what both ends can do: slower or narrower than the
  // maximum. Unknown values never count as degraded.
  bool degraded() const {
    return (current_speed_gts && max_speed_gts && *current_speed_gts < *max_speed_gts) ||
           (current_width && max_width && *current_width < *max_width);
  }
  bool operator==(const PcieLink&) const = default;
};

// Temperature Threshold feature (FID 04h) for the composite (index 0) and the
// eight sensors (1..8). Kelvin; nullopt where the controller rejected the read.
struct TemperatureThresholds {
  std::array<std::optional<std::uint16_t>, 9> over_k{};
  std::array<std::optional<std::uint16_t>, 9> under_k{};
};

// Host Controlled Thermal Management feature (FID 10h), current value: the
// composite temperatures at which the drive starts its light (TMT1) and heavy
// (TMT2) thermal management. Kelvin; 0 means that level is disabled.
struct HostThermalManagement {
  std::uint16_t tmt1_k = 0;
  std::uint16_t tmt2_k = 0;
  bool operator==(const HostThermalManagement&) const = default;
};

// Everything one poll of one controller produced. Immutable once published.
struct PersistentEventLog;  // collectors/persistent_event.hpp
struct TelemetryPoll;       // collectors/telemetry.hpp
struct OcpPageLogs;         // collectors/ocp_page_logs.hpp

struct HealthSnapshot {
  WallTime taken{};
  SmartLog smart;
  std::optional<OcpSmartLog> ocp;  // nullopt: the drive has no C0 log
  TemperatureThresholds thresholds;
  // nullopt: the controller has no host controlled thermal management
  // (Identify HCTMA bit 0 clear) or its read failed.
  std::optional<HostThermalManagement> host_thermal;
  // Entries of the Error Information log read in this poll, newest first;
  // nullopt when the poll did not read the log (nothing new to read).
  std::optional<std::vector<ErrorLogEntry>> error_log;
  std::optional<PcieLink> pcie;  // nullopt: the backend has no PCIe link
  // The Persistent Event log, on the polls that read it (shared: it may be
  // large, and the snapshot is copied).
  std::shared_ptr<const PersistentEventLog> event_log;
  // The Device Self-test log, read every poll; nullopt when the drive has
  // none (no self-test support) or its read failed.
  std::optional<SelfTestLog> self_test;
  // The Telemetry Controller-Initiated log's header, and a capture on the
  // polls that read the whole log; null when the drive has no such log or
  // the read failed. The poller drops it once the observer has saved it.
  std::shared_ptr<const TelemetryPoll> telemetry;
  // OCP Latency Monitor (C3h) and Error Recovery (C1h) logs; nullopt when
  // the drive has none (QEMU, non-OCP drives) or the read failed.
  std::optional<OcpLatencyMonitorLog> ocp_latency;
  std::optional<OcpErrorRecoveryLog> ocp_recovery;
  // The OCP pages read through DeviceReader::read_ocp_log, each by its log
  // source row (drivelog/log_sources); null when the poll read none. Behind
  // a pointer, as the logs above, so that a page added there leaves this
  // header, which nearly every file includes, as it is.
  std::shared_ptr<const OcpPageLogs> ocp_pages;
};

// Who a drive is: stable across reboots and slots (serial + model), plus where
// it is now.
struct DriveInfo {
  std::string serial;
  std::string model;
  std::string firmware;
  std::string path;     // "/dev/nvme0" or "sim:NAME"
  std::string backend;  // "libnvme" or "sim"
  ControllerIdentity controller;
  std::vector<NamespaceIdentity> namespaces;
  // Bytes the operator can write: sum of namespace sizes, else TNVMCAP.
  std::uint64_t capacity_bytes = 0;
};

// A drive named as Identify Controller names it (SN, MN, FR), so that every
// backend keys the same drive alike; the backend adds namespaces and capacity.
inline DriveInfo drive_info(ControllerIdentity controller, std::string path, std::string backend) {
  DriveInfo d;
  d.serial = controller.serial;
  d.model = controller.model;
  d.firmware = controller.firmware;
  d.path = std::move(path);
  d.backend = std::move(backend);
  d.controller = std::move(controller);
  return d;
}

// NVMe reports whole Kelvin; nvme-cli and libnvme convert with 273, so the
// same drive reads the same in Grafana as on the operator's console.
inline double kelvin_to_celsius(double k) { return k - 273.0; }
inline double celsius_to_kelvin(double c) { return c + 273.0; }

}  // namespace nvmond
