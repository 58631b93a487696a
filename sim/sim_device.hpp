#pragma once
// The simulated backend of the Device boundary: drives whose data come from a
// DriveModel moved forward by the daemon's Clock. The embedded default for
// demos and fast tests.
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device.hpp"
#include "sim/drive_model.hpp"
#include "sim/sim_drive_spec.hpp"
#include "core/clock.hpp"
#include "core/slot_file.hpp"

namespace nvmond {

// One handle on a shared model. Every call first advances the model to
// clock.wall(), then applies the model's injected fault:
//   fail: Error{ErrorReason::io, "sim:NAME: <command>: injected failure"}
//   hang: blocks the calling thread (real time, DriveModel::wait_if_hung)
//         before answering normally.
// The clock must outlive the device.
class SimDevice final : public Device {
 public:
  SimDevice(std::shared_ptr<DriveModel> model, const Clock& clock);
  Result<DriveInfo> identify() override;
  Result<SmartLog> read_smart() override;
  Result<std::optional<OcpSmartLog>> read_ocp() override;
  Result<std::optional<OcpLatencyMonitorLog>> read_ocp_latency_monitor() override;
  Result<std::optional<OcpErrorRecoveryLog>> read_ocp_error_recovery() override;
  Result<TemperatureThresholds> read_temperature_thresholds() override;
  Result<std::optional<HostThermalManagement>> read_host_thermal_management() override;
  // Purges the model (back to fresh-out-of-box, lifetime counters kept), as
  // a user-data erase does to a real drive; any namespace but the model's
  // one is refused.
  std::optional<Error> format_user_data_erase(std::uint32_t nsid) override;
  Result<std::vector<ErrorLogEntry>> read_error_log() override;
  Result<SelfTestLog> read_self_test_log() override;
  Result<PersistentEventLog> read_persistent_event_log() override;
  Result<TelemetryHeader> read_telemetry_header() override;
  Result<TelemetryLog> read_telemetry_log(unsigned data_area) override;
  std::optional<Error> start_self_test(SelfTestKind kind) override;
  std::optional<Error> abort_self_test() override;
  Result<std::optional<PcieLink>> read_pcie_link() override;

 private:
  // Advance, then hang or fail as injected; nullopt means answer normally.
  std::optional<Error> enter(const char* command);
  std::shared_ptr<DriveModel> model_;
  const Clock& clock_;
};

// All configured sim drives. Models live as long as the source (one per spec,
// for the process lifetime); scan() hands out fresh SimDevice handles over
// them with paths "sim:<name>".
//
// With a state directory, each model is restored from its slot file
// <dir>/sim-<serial>.state (core/slot_file.hpp), or from <dir>/sim-<serial>.json
// that daemons before the slot file wrote when there is no slot file. One
// that cannot be taken (truncated, damaged, a hard link or another user's
// file) is set aside as <file>.aside-<time>, logged and counted, and the
// drive starts fresh. save() writes a model's state into its slot file with
// one fstat and one pwrite, so a poller can save after every poll and a kill
// -9 still finds the newest save; a file truncated or replaced while the
// daemon runs is rebuilt from the drive's state at the next save (logged
// and counted too), and costs the daemon nothing else. Nothing is fsynced:
// the kernel writes the files back in its own time (a flush at every stop
// or reload took up to a second at 256 drives), so a crash of the host may
// cost a drive its last polls.
//
// Thread-safety: scan(), model(), save() and save_all() may be called from any
// thread; models are internally synchronised. The clock must outlive the source.
class SimDeviceSource final : public DeviceSource {
 public:
  // Throws ConfigError on duplicate names or serials (start-up misconfiguration).
  // `adopt`: live models of a previous source (a reload); a spec equal to
  // one of theirs keeps that model, so a soak writing to it and the new
  // poller see the same drive.
  SimDeviceSource(std::vector<SimDriveSpec> specs, const Clock& clock,
                  std::optional<std::filesystem::path> state_dir = std::nullopt,
                  const std::vector<std::shared_ptr<DriveModel>>& adopt = {});
  std::vector<DeviceHandle> scan() override;
  // The model of the drive with this serial; nullptr if none.
  std::shared_ptr<DriveModel> model(const std::string& serial) const;
  // The time the drives live in (their engines keep it too).
  const Clock& clock() const { return clock_; }
  const std::vector<std::shared_ptr<DriveModel>>& models() const { return models_; }
  // Saves the state of the drive with this serial into its slot file (opened,
  // or created, on its first save). nullopt on success, and without a state
  // directory or such a drive.
  std::optional<Error> save(const std::string& serial) const;
  // save() of every model; returns the failures (empty on success).
  std::vector<Error> save_all() const;
  // State files set aside at start or rebuilt by a save because they were
  // damaged, truncated or not the daemon's own (see above).
  std::uint64_t state_files_set_aside() const { return set_aside_.load(std::memory_order_relaxed); }
  // <dir>/sim-<serial>.state, the slot file
  static std::filesystem::path state_file(const std::filesystem::path& dir, const std::string& serial);
  // <dir>/sim-<serial>.json, the whole-file state of daemons before the slot
  // file: read when there is no slot file, removed after the first save.
  static std::filesystem::path legacy_state_file(const std::filesystem::path& dir, const std::string& serial);

 private:
  // A model's slot file, opened on its first save.
  struct Saved {
    std::mutex mu;
    std::optional<SlotFile> file;
  };
  std::optional<Error> save(std::size_t index) const;
  const Clock& clock_;
  std::optional<std::filesystem::path> state_dir_;
  std::vector<std::shared_ptr<DriveModel>> models_;  // fixed after construction
  std::vector<std::unique_ptr<Saved>> saved_;        // one per model
  mutable std::atomic<std::uint64_t> set_aside_{0};
};

}  // namespace nvmond
