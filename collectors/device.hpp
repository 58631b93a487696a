#pragma once
// The Device boundary: one NVMe controller, whatever its backend (libnvme on a
// real /dev/nvmeN, or the simulated drive). Methods block for at most the
// command timeout given at construction where the backend can enforce it;
// callers run them off the event loop and off the HTTP path, and treat a call
// that has not returned by its deadline as timed out.
//
// Thread-safety: one caller at a time per Device (the collector serialises
// polls of a device). Different devices may be polled concurrently.
//
// Two interfaces, one per kind of caller: DeviceReader reads (Identify, log
// pages, features the poll reports), DeviceAdmin changes the drive (format,
// write cache, self-test). Device is both, what every backend implements;
// code takes the narrower one it needs.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/health.hpp"
#include "collectors/persistent_event.hpp"
#include "collectors/self_test_kind.hpp"
#include "collectors/telemetry.hpp"
#include "core/result.hpp"

namespace nvmond {

class DeviceReader {
 public:
  virtual ~DeviceReader() = default;
  // Identify Controller + Namespaces. Cheap to call again (re-identifies).
  virtual Result<DriveInfo> identify() = 0;
  virtual Result<SmartLog> read_smart() = 0;
  // Ok(nullopt) when the drive has no OCP C0 log: not an error.
  virtual Result<std::optional<OcpSmartLog>> read_ocp() = 0;
  // The OCP Latency Monitor (C3h) and Error Recovery (C1h) logs; Ok(nullopt)
  // when the drive has no OCP one (as read_ocp): not an error.
  virtual Result<std::optional<OcpLatencyMonitorLog>> read_ocp_latency_monitor() {
    return std::optional<OcpLatencyMonitorLog>{};
  }
  virtual Result<std::optional<OcpErrorRecoveryLog>> read_ocp_error_recovery() {
    return std::optional<OcpErrorRecoveryLog>{};
  }
  virtual Result<TemperatureThresholds> read_temperature_thresholds() = 0;
  // Host Controlled Thermal Management (Get Features 10h, current value).
  // Ok(nullopt) when the controller does not support it (Identify HCTMA
  // bit 0 clear) or the backend cannot ask: not an error.
  virtual Result<std::optional<HostThermalManagement>> read_host_thermal_management() {
    return std::optional<HostThermalManagement>{};
  }
  // The Error Information log (01h), newest first, empty entries left out:
  // never more entries than the controller keeps (Identify ELPE + 1),
  // capped at 64. A backend without it refuses with reason "unsupported",
  // and is then not asked again.
  virtual Result<std::vector<ErrorLogEntry>> read_error_log() {
    return Error{ErrorReason::unsupported, "reading the error information log is not supported by this backend"};
  }
  // The Device Self-test log (06h): the test running now and the results
  // the drive keeps, newest first. A drive without self-test support
  // (Identify OACS bit 4 clear) or a backend without it refuses with reason
  // "unsupported", and is then not asked again.
  virtual Result<SelfTestLog> read_self_test_log() {
    return Error{ErrorReason::unsupported, "reading the device self-test log is not supported by this backend"};
  }
  // The Persistent Event log (0Dh), read whole in one reporting context
  // (established, read, released), its first 4 MiB at most. A drive
  // without one (Identify LPA bit 4 clear) or a backend without it refuses
  // with reason "unsupported", and is then not asked again.
  virtual Result<PersistentEventLog> read_persistent_event_log() {
    return Error{ErrorReason::unsupported, "reading the persistent event log is not supported by this backend"};
  }
  // The Telemetry Controller-Initiated log (08h): its 512-byte header only,
  // cheap enough to read every poll. A drive without the telemetry logs
  // (Identify LPA bit 3 clear) or a backend without them refuses with
  // reason "unsupported", and is then not asked again.
  virtual Result<TelemetryHeader> read_telemetry_header() {
    return Error{ErrorReason::unsupported,
                 "reading the controller-initiated telemetry log is not supported by this backend"};
  }
  // The same log from offset 0 through data area `data_area` (1..3) as the
  // header read first says, then the header again: a generation number or
  // Data Available that changed meanwhile means the drive replaced the data
  // during the read, reason "busy" (nothing is returned half old, half
  // new). Refused like read_telemetry_header.
  virtual Result<TelemetryLog> read_telemetry_log(unsigned data_area) {
    (void)data_area;
    return Error{ErrorReason::unsupported,
                 "reading the controller-initiated telemetry log is not supported by this backend"};
  }
  // The PCIe link as the host sees it; nullopt where there is none to read
  // (a fabrics controller, a backend without one): not an error.
  virtual Result<std::optional<PcieLink>> read_pcie_link() { return std::optional<PcieLink>{}; }
  // An OCP log page that differs from the others only by its identifier,
  // size and GUID, raw as the drive returned it, its GUID checked: the
  // caller decodes it. A drive without the OCP C0 page, one that rejects
  // the log or answers with another GUID, and a backend without the read
  // refuse with reason "unsupported".
  virtual Result<std::vector<std::uint8_t>> read_ocp_log(const OcpLogPage& page) {
    return Error{ErrorReason::unsupported,
                 std::string("reading the ") + std::string(page.name) + " log is not supported by this backend"};
  }
};

class DeviceAdmin {
 public:
  virtual ~DeviceAdmin() = default;
  // Format NVM of namespace `nsid` in its in-use LBA format with a user-data
  // erase: every block of the namespace is lost. Only a PTS purge sends it,
  // on a target the safety guard approved. May take minutes; the backend
  // bounds it with its own, longer, timeout. A backend that cannot format
  // refuses with reason "unsupported"; the message names the device and the
  // command, as every Error here does.
  virtual std::optional<Error> format_user_data_erase(std::uint32_t nsid) = 0;
  // Whether the volatile write cache is enabled now (Get Features 06h,
  // current value); only meaningful when Identify says the controller has
  // one (VWC bit 0). A backend that cannot ask refuses with reason
  // "unsupported", which is what a PTS run then records: unknown.
  virtual Result<bool> read_volatile_write_cache() {
    return Error{ErrorReason::unsupported, "reading the volatile write cache state is not supported by this backend"};
  }
  // Enables or disables the volatile write cache (Set Features 06h, current
  // value, not saved: a power cycle returns the drive to its own default).
  // Only a PTS run sends it, on a target the safety guard approved, to run
  // the test in the state its profile requires and to put the drive back
  // afterwards. A backend that cannot refuses with reason "unsupported".
  virtual std::optional<Error> set_volatile_write_cache(bool /*enabled*/) {
    return Error{ErrorReason::unsupported, "setting the volatile write cache is not supported by this backend"};
  }
  // Device Self-test (14h) of every namespace (NSID FFFFFFFFh): starts a
  // short or extended test and returns at once; the drive runs it in the
  // background, its progress and result in log 06h. A drive already running
  // one refuses with reason "busy" (status Device Self-test in Progress). A
  // drive without self-test support or a backend without the command
  // refuses with reason "unsupported".
  virtual std::optional<Error> start_self_test(SelfTestKind kind) {
    (void)kind;
    return Error{ErrorReason::unsupported, "starting a device self-test is not supported by this backend"};
  }
  // Device Self-test with STC Fh: the running test ends with result 1h
  // (aborted by a Device Self-test command). Without one running the drive
  // completes it and nothing changes.
  virtual std::optional<Error> abort_self_test() {
    return Error{ErrorReason::unsupported, "aborting a device self-test is not supported by this backend"};
  }
};

// One NVMe controller: what every backend implements.
class Device : public DeviceReader, public DeviceAdmin {};

// The NVMe controller behind a namespace block device (/dev/nvme0n1 ->
// /dev/nvme0) and the namespace's id on it: how a PTS target reads its
// drive's health and formats it.
struct NvmeNamespace {
  std::unique_ptr<Device> controller;
  std::optional<std::uint32_t> nsid;  // nullopt: unknown, so no format
};
// nullopt when `path` is no NVMe namespace (a loop device, another disk, a
// file). Must not open `path` itself: the safety guard decides that.
using NamespaceOpener = std::function<std::optional<NvmeNamespace>(const std::string& path)>;

// Enumerates the controllers a backend can see now. Called at start-up and on
// every rescan; a controller that appears later is picked up then.
struct DeviceHandle {
  std::string path;  // stable for this boot: "/dev/nvme0", "sim:NAME"
  std::unique_ptr<Device> device;
};

class DeviceSource {
 public:
  virtual ~DeviceSource() = default;
  virtual std::vector<DeviceHandle> scan() = 0;
};

}  // namespace nvmond
