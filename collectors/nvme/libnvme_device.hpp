#pragma once
// The real Device backend: one NVMe controller character device (/dev/nvmeN),
// driven through libnvme's admin-command ioctl wrappers. libnvme only fetches
// raw pages; collectors/nvme/decode.hpp turns them into structs, the same code
// the fixture tests run.
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/device.hpp"

namespace nvmond {

// NSID FFFFFFFFh (libnvme's NVME_NSID_ALL; its header stays out of this one).
inline constexpr std::uint32_t kNsidAll = 0xFFFFFFFFu;

class LibnvmeDevice final : public Device {
 public:
  // `path`: a controller character device such as "/dev/nvme0". It is opened
  // on first use (so constructing one never fails) and reopened after the
  // controller went absent. `command_timeout` bounds every admin command; the
  // kernel enforces it, cancelling a late command (EINTR -> "timeout") and
  // resetting the controller. Zero means the kernel's default admin timeout.
  // `sysfs_class_nvme`: where the controller's PCIe link attributes are
  // read (<dir>/nvmeN/device/), a fake tree in tests.
  LibnvmeDevice(std::string path, std::chrono::milliseconds command_timeout,
                std::filesystem::path sysfs_class_nvme = "/sys/class/nvme");
  ~LibnvmeDevice() override;
  LibnvmeDevice(const LibnvmeDevice&) = delete;
  LibnvmeDevice& operator=(const LibnvmeDevice&) = delete;

  Result<DriveInfo> identify() override;
  Result<SmartLog> read_smart() override;
  // Ok(nullopt) when the drive rejects log C0h or its C0h is not the OCP page
  // (wrong GUID); it is then not asked again for the life of this object.
  Result<std::optional<OcpSmartLog>> read_ocp() override;
  // Logs C3h and C1h, asked only of a drive whose C0h is the OCP page (an
  // OCP drive has all three); Ok(nullopt), and not asked again, when the
  // drive rejects the log or answers with another GUID.
  Result<std::optional<OcpLatencyMonitorLog>> read_ocp_latency_monitor() override;
  Result<std::optional<OcpErrorRecoveryLog>> read_ocp_error_recovery() override;
  // Composite + sensors 1..8, over and under: 18 Get Features commands. A
  // selection the controller rejects is nullopt and not asked again.
  Result<TemperatureThresholds> read_temperature_thresholds() override;
  // Get Features 10h when the last identify's HCTMA says the controller
  // supports it (identifies first when there was none); Ok(nullopt) without
  // a command otherwise, and from then on when the controller rejects it.
  Result<std::optional<HostThermalManagement>> read_host_thermal_management() override;
  // Identify Namespace for its in-use LBA format, then Format NVM (SES 1) in
  // that format, under kFormatTimeout rather than the command timeout.
  std::optional<Error> format_user_data_erase(std::uint32_t nsid) override;
  Result<bool> read_volatile_write_cache() override;
  std::optional<Error> set_volatile_write_cache(bool enabled) override;
  // Get Log Page 01h for ELPE + 1 entries (at most kMaxErrorLogEntries),
  // from the last identify (identifies first when there was none).
  Result<std::vector<ErrorLogEntry>> read_error_log() override;
  // Get Log Page 06h when the last identify's OACS says the controller
  // supports Device Self-test (identifies first when there was none);
  // "unsupported" without a command otherwise.
  Result<SelfTestLog> read_self_test_log() override;
  // Get Log Page 0Dh when the last identify's LPA says the controller keeps
  // a Persistent Event log: the header with "establish context and read",
  // the rest of the log (Total Log Length, capped) in chunks at rising
  // offsets, then "release context", also after a failed read.
  Result<PersistentEventLog> read_persistent_event_log() override;
  // Device Self-test (14h), NSID FFFFFFFFh, under the command timeout (the
  // drive answers at once; the test runs after). Refused without a command
  // like read_self_test_log when OACS bit 4 is clear; status Device
  // Self-test in Progress (1Dh) is reason "busy".
  std::optional<Error> start_self_test(SelfTestKind kind) override;
  std::optional<Error> abort_self_test() override;
  // Get Log Page 08h (NSID 0, as libnvme's own helper sends it) when the
  // last identify's LPA says the controller has the telemetry logs
  // (identifies first when there was none); "unsupported" without a
  // command otherwise. The log is read in chunks at rising offsets, each a
  // multiple of 512 bytes as the specification requires.
  Result<TelemetryHeader> read_telemetry_header() override;
  Result<TelemetryLog> read_telemetry_log(unsigned data_area) override;
  // sysfs only: no command is sent.
  Result<std::optional<PcieLink>> read_pcie_link() override;
  // Asked only of a drive whose C0h is the OCP page, like logs C3h and C1h;
  // a log the drive rejects or answers with another GUID is "unsupported"
  // from then on, without a command.
  Result<std::vector<std::uint8_t>> read_ocp_log(const OcpLogPage& page) override;
  // A user-data erase takes minutes on a large drive.
  static constexpr std::chrono::minutes kFormatTimeout{10};

  const std::string& path() const { return path_; }

 private:
  // What one libnvme call returned: rc 0 success, -1 with err = errno, or a
  // positive NVMe status.
  struct Outcome {
    int rc = 0;
    int err = 0;
    // For a libnvme call that has just returned `result`: errno is read here,
    // before anything else can overwrite it.
    static Outcome of(int result) { return Outcome{result, result < 0 ? errno : 0}; }
  };

  Result<int> fd();
  Error failed(std::string_view command, Outcome outcome);
  Outcome identify_page(int cns, std::uint32_t nsid, std::span<std::uint8_t> page);
  Outcome get_log_page(std::uint8_t lid, std::span<std::uint8_t> page);
  // One Get Log Page at byte `offset` with log specific field `lsp`.
  Outcome get_log_at(std::uint8_t lid, std::uint8_t lsp, std::uint64_t offset, std::span<std::uint8_t> page,
                     std::uint32_t nsid = kNsidAll);
  // Identifies first when there was none; "unsupported" when LPA bit 3 is
  // clear. The header on success.
  Result<TelemetryHeader> telemetry_header(std::string_view command);
  Outcome get_current_feature(std::uint8_t fid, std::uint32_t cdw11, std::uint32_t& cdw0);
  Result<std::vector<std::uint32_t>> active_namespaces();
  // After the header was read in an established context: the rest of it.
  Result<PersistentEventLog> read_persistent_event_body(std::vector<std::uint8_t>& page);
  // What Identify Controller says the controller has, each bit gating
  // commands that a controller without it would only reject.
  enum class Capability : std::uint8_t { self_test, persistent_event_log, telemetry, host_thermal_management };
  // Identifies first when there was none; then "unsupported", naming the
  // device, `command` and the Identify bit, when the controller lacks
  // `capability`; otherwise opens the device (its error if that fails).
  std::optional<Error> require_capability(Capability capability, std::string_view command);
  std::optional<Error> device_self_test(std::uint8_t stc, std::string_view command);
  // One GUID-checked OCP log; nullopt (and the log not asked again) when the
  // drive has no OCP C0 page, rejects this one or its GUID is another's.
  Result<std::optional<std::vector<std::uint8_t>>> ocp_page(const OcpLogPage& spec);
  template <typename Log>
  Result<std::optional<Log>> read_ocp_page(const OcpLogPage& spec,
                                           Result<Log> (*decode)(std::span<const std::uint8_t>));

  std::string path_;
  std::string name_;  // "nvme0": the context in every error message
  std::uint32_t timeout_ms_;
  std::filesystem::path sysfs_class_nvme_;
  std::size_t error_log_entries_ = 0;  // ELPE + 1, capped; 0 before the first identify
  // By Capability; nullopt before the first identify.
  std::optional<std::array<bool, 4>> capabilities_;
  int fd_ = -1;
  bool ocp_absent_ = false;
  bool ocp_checked_ = false;               // C0h has answered: ocp_absent_ is known
  std::vector<std::uint8_t> ocp_refused_;  // OCP logs (by id) rejected or with another GUID
  std::array<bool, 9> over_unsupported_{};
  std::array<bool, 9> under_unsupported_{};
};

}  // namespace nvmond
