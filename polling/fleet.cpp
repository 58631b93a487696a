#include "polling/fleet.hpp"

#include "collectors/nvme/libnvme_source.hpp"
#include "collectors/sim_name.hpp"
#include "core/failure_state.hpp"
#include "core/log.hpp"
#include "polling/drive_pipeline.hpp"
#include "sim/sim_device.hpp"

namespace nvmond {

Fleet::Fleet(boost::asio::io_context& io, const DaemonConfig& config, const Clock& clock, PublishedMetrics& out,
             Store& store, std::vector<std::unique_ptr<DeviceSource>> extra,
             const std::vector<std::shared_ptr<DriveModel>>& sim_models)
    : io_(io),
      config_(config),
      clock_(clock),
      out_(out),
      store_(store),
      telemetry_archive_(std::make_shared<TelemetryArchive>(config.state_dir, config.telemetry.max_bytes_per_drive,
                                                            config.telemetry.max_bytes)),
      rescan_timer_(clock.real_timer(io)) {
  const auto& c = config_.collection;
  if (config_.nvme) {
    Source s;
    s.source = std::make_unique<LibnvmeSource>(
        config_.nvme->selection, std::chrono::duration_cast<std::chrono::milliseconds>(c.command_timeout));
    s.interval = config_.nvme->poll_interval.value_or(c.poll_interval);
    sources_.push_back(std::move(s));
  }
  if (!config_.sims.empty()) {
    std::vector<SimDriveSpec> specs;
    Source s;
    s.interval = c.poll_interval;
    for (const auto& sim : config_.sims) {
      specs.push_back(sim.spec);
      if (sim.poll_interval) s.interval_by_path[sim_device_path(sim.spec.name)] = *sim.poll_interval;
    }
    auto source = std::make_unique<SimDeviceSource>(specs, clock_, config_.state_dir, sim_models);
    auto* raw = source.get();
    sim_source_ = raw;
    // A restart (even kill -9) must continue the simulated drives' lives, so
    // each drive's state is saved after each poll, from the poller's thread,
    // into its slot file: one fstat and one pwrite, and a kill -9 still
    // finds the newest save (only a crash of the host could
    // cost a model its last polls). Each poller holds its own copy, so
    // `failing` is per drive and only that drive's thread touches it: a full
    // or read-only state directory is logged when it starts failing and when
    // it recovers, not every poll.
    s.observer = [raw, failing = FailureState{}](const DriveInfo& info, const HealthSnapshot&) mutable {
      auto err = raw->save(info.serial);
      if (err && failing.failed(err->reason) != FailureState::Change::none) {
        log::warn("{}: saving simulated drive state: {}", info.path, err->message);
      }
      if (!err && failing.succeeded()) log::info("{}: simulated drive state saved again", info.path);
      return PollObservation{};
    };
    s.source = std::move(source);
    sources_.push_back(std::move(s));
  }
  for (auto& source : extra) {
    Source s;
    s.interval = c.poll_interval;
    s.source = std::move(source);
    sources_.push_back(std::move(s));
  }
}

Fleet::~Fleet() { rescan_timer_->cancel(); }

void Fleet::start() {
  rescan();
  arm_rescan();
}

void Fleet::arm_rescan() {
  rescan_timer_->arm(config_.collection.rescan_interval, [this] {
    rescan();
    arm_rescan();
  });
}

void Fleet::rescan() {
  for (auto& src : sources_) {
    for (auto& handle : src.source->scan()) {
      auto it = pollers_.find(handle.path);
      // A controller that vanished and came back gets a fresh handle; one that
      // is still answering keeps its poller (and its counters).
      if (it != pollers_.end() && (it->second->up() || it->second->last_error_reason() != ErrorReason::absent)) {
        continue;
      }
      if (it != pollers_.end()) pollers_.erase(it);
      PollSettings ps;
      // One analytics state per poller: it restores the drive's history from
      // the store by serial+model on its first poll, wherever the drive sits.
      auto ov = src.interval_by_path.find(handle.path);
      ps.interval = ov != src.interval_by_path.end() ? ov->second : src.interval;
      ps.timeout = config_.collection.command_timeout;
      ps.telemetry = config_.telemetry;
      log::info("{}: polling every {:.3g} s", handle.path, seconds(ps.interval));
      auto pipeline = std::make_shared<DrivePipeline>(store_, throughput_, telemetry_archive_, config_, src.observer);
      auto poller = std::make_unique<DevicePoller>(io_, handle.path, std::move(handle.device), ps, clock_, out_,
                                                   DrivePipeline::observer(std::move(pipeline)));
      poller->start();
      pollers_.emplace(handle.path, std::move(poller));
    }
  }
}

std::size_t Fleet::up_count() const {
  std::size_t n = 0;
  for (const auto& [path, p] : pollers_) n += p->up() ? 1 : 0;
  return n;
}

void Fleet::self_test(const std::string& path, std::optional<SelfTestKind> kind,
                      std::function<void(std::optional<Error>)> done) {
  auto it = pollers_.find(path);
  if (it == pollers_.end()) return done(Error{ErrorReason::absent, path + ": no such controller is polled"});
  it->second->self_test(kind, std::move(done));
}

}  // namespace nvmond
