#include "sim/sim_device.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "core/atomic_file.hpp"
#include "core/config_reader.hpp"
#include "core/log.hpp"
#include "collectors/sim_name.hpp"

namespace nvmond {

SimDevice::SimDevice(std::shared_ptr<DriveModel> model, const Clock& clock) : model_(std::move(model)), clock_(clock) {}

std::optional<Error> SimDevice::enter(const char* command) {
  model_->advance_to(clock_.wall());
  if (model_->fault() == SimFault::hang) {
    model_->wait_if_hung();
    model_->advance_to(clock_.wall());
  }
  if (model_->fault() == SimFault::fail) {
    return Error{ErrorReason::io, sim_device_path(model_->spec().name) + ": " + command + ": injected failure"};
  }
  return std::nullopt;
}

Result<DriveInfo> SimDevice::identify() {
  if (auto err = enter("identify")) return *err;
  return model_->identity();
}

Result<SmartLog> SimDevice::read_smart() {
  if (auto err = enter("get-log SMART")) return *err;
  return model_->smart();
}

Result<std::optional<OcpSmartLog>> SimDevice::read_ocp() {
  if (auto err = enter("get-log OCP C0")) return *err;
  return model_->ocp();
}

Result<std::optional<OcpLatencyMonitorLog>> SimDevice::read_ocp_latency_monitor() {
  if (auto err = enter("get-log OCP C3")) return *err;
  return model_->ocp_latency_monitor();
}

Result<std::optional<OcpErrorRecoveryLog>> SimDevice::read_ocp_error_recovery() {
  if (auto err = enter("get-log OCP C1")) return *err;
  return model_->ocp_error_recovery();
}

Result<TemperatureThresholds> SimDevice::read_temperature_thresholds() {
  if (auto err = enter("get-features temperature threshold")) return *err;
  return model_->thresholds();
}

Result<std::optional<HostThermalManagement>> SimDevice::read_host_thermal_management() {
  if (auto err = enter("get-features host controlled thermal management")) return *err;
  return model_->host_thermal_management();
}

Result<std::vector<ErrorLogEntry>> SimDevice::read_error_log() {
  if (auto err = enter("get-log error information")) return *err;
  return model_->error_log();
}

Result<SelfTestLog> SimDevice::read_self_test_log() {
  if (auto err = enter("get-log device self-test")) return *err;
  return model_->self_test_log();
}

Result<PersistentEventLog> SimDevice::read_persistent_event_log() {
  if (auto err = enter("get-log persistent event")) return *err;
  return model_->persistent_event_log();
}

Result<TelemetryHeader> SimDevice::read_telemetry_header() {
  if (auto err = enter("get-log telemetry controller-initiated, header")) return *err;
  return model_->telemetry_header();
}

Result<TelemetryLog> SimDevice::read_telemetry_log(unsigned data_area) {
  if (auto err = enter("get-log telemetry controller-initiated")) return *err;
  return model_->telemetry_log(data_area);
}

std::optional<Error> SimDevice::start_self_test(SelfTestKind kind) {
  const char* command = kind == SelfTestKind::extended_test ? "device self-test, extended" : "device self-test, short";
  if (auto err = enter(command)) return err;
  return model_->start_self_test(kind);
}

std::optional<Error> SimDevice::abort_self_test() {
  if (auto err = enter("device self-test, abort")) return err;
  model_->abort_self_test();
  return std::nullopt;
}

Result<std::optional<PcieLink>> SimDevice::read_pcie_link() {
  if (auto err = enter("read PCIe link")) return *err;
  return std::optional<PcieLink>{model_->pcie_link()};
}

std::optional<Error> SimDevice::format_user_data_erase(std::uint32_t nsid) {
  const std::string command = fmt::format("format NVM namespace {}, user data erase", nsid);
  if (auto err = enter(command.c_str())) return err;
  const auto namespaces = model_->identity().namespaces;
  if (std::none_of(namespaces.begin(), namespaces.end(), [&](const auto& ns) { return ns.nsid == nsid; })) {
    return Error{ErrorReason::nvme_status,
                 fmt::format("{}: {}: no such namespace", sim_device_path(model_->spec().name), command)};
  }
  model_->purge();
  return std::nullopt;
}

namespace {

// The newest saved state of `model` from `dir`: its slot file, else the
// whole-file state an older daemon wrote, else none (a fresh drive). A
// state file that cannot be taken (damaged, truncated, not the daemon's own
// file) is set aside, never deleted: the drive starts fresh and the file is
// kept for a look. Returns whether one was set aside.
bool restore(DriveModel& model, const std::filesystem::path& dir, WallTime now) {
  const std::string who = sim_device_path(model.spec().name);
  const std::string slots = SimDeviceSource::state_file(dir, model.spec().serial).string();
  std::string from = slots;
  std::optional<Error> err;
  if (auto text = SlotFile::read(slots)) {
    err = model.load_state(*text);
    if (err) err->message = slots + ": " + err->message;
  } else if (text.error().reason != ErrorReason::absent) {
    err = text.error();
  } else {
    from = SimDeviceSource::legacy_state_file(dir, model.spec().serial).string();
    err = load_state_file(model, from);
  }
  if (!err) {
    model.resume_at(now);
    log::info("{}: state restored from {}", who, from);
    return false;
  }
  if (err->reason == ErrorReason::absent) return false;
  auto aside = set_aside_file(from, "aside");
  if (!aside) {
    log::warn("{}: {}; starting the drive fresh (setting the file aside failed: {})", who, err->message,
              aside.error().message);
    return aside.error().reason != ErrorReason::absent;
  }
  log::warn("{}: {}; set aside as {}, starting the drive fresh", who, err->message, *aside);
  return true;
}

}  // namespace

SimDeviceSource::SimDeviceSource(std::vector<SimDriveSpec> specs, const Clock& clock,
                                 std::optional<std::filesystem::path> state_dir,
                                 const std::vector<std::shared_ptr<DriveModel>>& adopt)
    : clock_(clock), state_dir_(std::move(state_dir)) {
  std::set<std::string> names;
  std::set<std::string> serials;
  const WallTime now = clock_.wall();
  for (auto& spec : specs) {
    if (!names.insert(spec.name).second) throw ConfigError("sim drives: duplicate name \"" + spec.name + "\"");
    if (!serials.insert(spec.serial).second) {
      throw ConfigError("sim drives: duplicate serial \"" + spec.serial + "\"");
    }
    auto same = std::find_if(adopt.begin(), adopt.end(), [&](const auto& m) { return m->spec() == spec; });
    if (same != adopt.end()) {
      models_.push_back(*same);
      continue;
    }
    auto model = std::make_shared<DriveModel>(std::move(spec), now);
    if (state_dir_ && restore(*model, *state_dir_, now)) set_aside_.fetch_add(1, std::memory_order_relaxed);
    models_.push_back(std::move(model));
  }
  for (std::size_t i = 0; i < models_.size(); ++i) saved_.push_back(std::make_unique<Saved>());
}

std::vector<DeviceHandle> SimDeviceSource::scan() {
  std::vector<DeviceHandle> out;
  for (const auto& m : models_) {
    out.push_back(DeviceHandle{sim_device_path(m->spec().name), std::make_unique<SimDevice>(m, clock_)});
  }
  return out;
}

std::shared_ptr<DriveModel> SimDeviceSource::model(const std::string& serial) const {
  for (const auto& m : models_) {
    if (m->spec().serial == serial) return m;
  }
  return nullptr;
}

std::optional<Error> SimDeviceSource::save(const std::string& serial) const {
  for (std::size_t i = 0; i < models_.size(); ++i) {
    if (models_[i]->spec().serial == serial) return save(i);
  }
  return std::nullopt;
}

std::optional<Error> SimDeviceSource::save(std::size_t index) const {
  if (!state_dir_) return std::nullopt;
  const DriveModel& model = *models_[index];
  Saved& s = *saved_[index];
  std::lock_guard lock(s.mu);
  const bool first = !s.file;
  if (first) {
    auto file = SlotFile::open(state_file(*state_dir_, model.spec().serial).string());
    if (!file) return file.error();
    s.file = std::move(*file);
  }
  if (auto err = s.file->save(model.save_state())) return err;
  if (!s.file->rebuilt().empty()) {
    // The drive's state in memory is the newest there is: it is what the
    // rebuilt file holds, so the drive loses nothing.
    set_aside_.fetch_add(1, std::memory_order_relaxed);
    log::warn("{}: state file {} was {} while the drive ran; rebuilt from the drive's current state",
              sim_device_path(model.spec().name), s.file->path(), s.file->rebuilt());
  }
  if (first) {
    // The slot file holds a save now: an older whole-file state left beside
    // it would only be read if the slot file were lost, and then be stale.
    std::error_code ec;
    std::filesystem::remove(legacy_state_file(*state_dir_, model.spec().serial), ec);
  }
  return std::nullopt;
}

std::vector<Error> SimDeviceSource::save_all() const {
  std::vector<Error> errors;
  for (std::size_t i = 0; i < models_.size(); ++i) {
    if (auto err = save(i)) errors.push_back(*err);
  }
  return errors;
}

std::filesystem::path SimDeviceSource::state_file(const std::filesystem::path& dir, const std::string& serial) {
  return dir / ("sim-" + serial + ".state");
}

std::filesystem::path SimDeviceSource::legacy_state_file(const std::filesystem::path& dir, const std::string& serial) {
  return dir / ("sim-" + serial + ".json");
}

}  // namespace nvmond
