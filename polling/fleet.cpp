#include "polling/fleet.hpp"

#include <fmt/chrono.h>

#include "analytics/drive_analytics.hpp"
#include "analytics/metrics.hpp"
#include "polling/drive_summary.hpp"
#include "collectors/nvme/libnvme_source.hpp"
#include "sim/sim_device.hpp"

#include "core/failure_state.hpp"
#include "core/log.hpp"
#include "collectors/sim_name.hpp"
#include "drivelog/error_log_tracker.hpp"
#include "drivelog/event_log_tracker.hpp"
#include "drivelog/nvme_exports.hpp"
#include "drivelog/telemetry_capture.hpp"
#include "drivelog/ocp_panic_tracker.hpp"

namespace nvmond {

namespace {

// Each new entry is logged once, with what an operator needs to find the
// command and the data it hit; the class totals become the drive's series.
void observe_error_log(ErrorLogTracker& tracker, const DriveInfo& info, const HealthSnapshot& snap,
                       const LabelPrefix& id, MetricSet& metrics, PollObservation& out) {
  const auto update = tracker.update(DriveKey{info.serial, info.model}, snap);
  if (update.error) log::debug("{}: recording the error log: {}", info.path, update.error->message);
  if (update.reset) {
    log::info("drive {} at {}: error count went backwards; reading its error log as new", info.serial, info.path);
  }
  for (const auto& e : update.fresh) {
    log::warn("drive {} at {}: error log entry {}: {} on SQID {} CID {}, LBA {}, namespace {}", info.serial, info.path,
              e.error_count, error_status_text(e), e.sqid, e.cid, e.lba, e.nsid);
  }
  out.error_log_seen = tracker.seen();
  if (!out.error_log_seen) return;
  out.media_path_errors = media_and_path_errors(tracker.counts());
  add_error_log_classes(tracker.counts(), id, metrics);
}

// A first read of a long-lived drive may bring thousands of events: the
// newest are logged, the rest counted.
constexpr std::size_t kMaxEventsLogged = 64;

std::string when_text(const std::optional<WallTime>& t) {
  if (!t) return "at an unknown time";
  return fmt::format("at {:%Y-%m-%d %H:%M:%S} UTC", std::chrono::floor<std::chrono::seconds>(*t));
}

void observe_event_log(EventLogTracker& tracker, const DriveInfo& info, const HealthSnapshot& snap,
                       const LabelPrefix& id, MetricSet& metrics) {
  const auto update = tracker.update(info, snap);
  if (update.error) log::debug("{}: recording the persistent event log: {}", info.path, update.error->message);
  if (update.cleared) {
    log::info("drive {} at {}: persistent event log generation changed; reading it as new", info.serial, info.path);
  }
  const std::size_t skipped = update.fresh.size() > kMaxEventsLogged ? update.fresh.size() - kMaxEventsLogged : 0;
  if (skipped > 0)
    log::info("drive {} at {}: {} older persistent events counted, not logged", info.serial, info.path, skipped);
  for (std::size_t i = skipped; i < update.fresh.size(); ++i) {
    const auto& f = update.fresh[i];
    const auto type = static_cast<PelEventType>(f.event.header.type);
    const bool notable = type == PelEventType::thermal_excursion || type == PelEventType::hardware_error;
    const std::string line =
        fmt::format("drive {} at {}: persistent event {}: {}{}", info.serial, info.path, when_text(f.time),
                    describe_pel_event(f.event), f.while_not_running ? " (while nvmond was not running)" : "");
    if (notable) {
      log::warn("{}", line);
    } else {
      log::info("{}", line);
    }
  }
  if (!tracker.known()) return;
  add_event_log_types(tracker.counts(), id, metrics);
}

// Each capture is one line naming its file; a failure one line when it
// starts or its reason changes, one when captures are saved again. Both wait
// for [telemetry] min_interval before the next attempt.
void observe_telemetry(TelemetryRecorder& recorder, const DriveInfo& info, const HealthSnapshot& snap,
                       Duration min_interval, const LabelPrefix& id, MetricSet& metrics, PollObservation& out) {
  const auto update = recorder.update(info, snap);
  if (update.restore_error) {
    log::warn("drive {} at {}: reading its saved telemetry: {}", info.serial, info.path, update.restore_error->message);
  }
  if (update.saved && snap.telemetry && snap.telemetry->capture) {
    const TelemetryLog& log = *snap.telemetry->capture;
    log::warn("drive {} at {}: controller-initiated telemetry generation {} (data areas 1-{}, {} bytes) saved to {}{}",
              info.serial, info.path, log.header.controller_generation, log.data_area, log.bytes.size(),
              update.saved->path,
              update.saved->removed.empty()
                  ? std::string()
                  : fmt::format("; {} older capture(s) deleted for the size caps", update.saved->removed.size()));
  }
  if (update.failure && update.failure_change != FailureState::Change::none) {
    log::warn(
        "drive {} at {}: saving controller-initiated telemetry failed, tried again every {} (each failure "
        "counted, logged again when the reason changes): {}",
        info.serial, info.path, format_duration(min_interval), update.failure->message);
  }
  if (update.recovered) log::info("drive {} at {}: controller-initiated telemetry saved again", info.serial, info.path);
  out.telemetry_mark = recorder.mark();
  if (!recorder.known()) return;
  add_telemetry_captures(recorder, id, metrics);
}

// A panic is an operator's business at once: the drive says how to recover.
void observe_ocp_recovery(OcpPanicTracker& tracker, const DriveInfo& info, const HealthSnapshot& snap) {
  if (!snap.ocp_recovery) return;
  if (auto line = tracker.update(*snap.ocp_recovery)) {
    log::warn("drive {} at {}: OCP error recovery log: {}", info.serial, info.path, *line);
  }
}

}  // namespace

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
      auto poller = std::make_unique<DevicePoller>(io_, handle.path, std::move(handle.device), ps, clock_, out_,
                                                   observer_for(src));
      poller->start();
      pollers_.emplace(handle.path, std::move(poller));
    }
  }
}

PollObserver Fleet::observer_for(const Source& source) const {
  auto analytics = std::make_shared<DriveAnalytics>(store_, throughput_);
  auto errors = std::make_shared<ErrorLogTracker>(store_);
  auto events = std::make_shared<EventLogTracker>(store_);
  auto telemetry = std::make_shared<TelemetryRecorder>(telemetry_archive_);
  auto panics = std::make_shared<OcpPanicTracker>();
  // Kept from poll to poll (on the poller's worker thread): a poll then
  // renders into buffers it already has.
  auto metrics = std::make_shared<MetricSet>(MetricSet::Order::as_declared);
  const DaemonConfig& config = config_;
  return [analytics, errors, events, telemetry, panics, metrics, &config, extra = source.observer](
             const DriveInfo& info, const HealthSnapshot& snap) {
    PollObservation out;
    if (extra) out = extra(info, snap);
    const auto id = LabelPrefix::of({{"serial", info.serial}});
    observe_error_log(*errors, info, snap, id, *metrics, out);
    observe_event_log(*events, info, snap, id, *metrics);
    observe_telemetry(*telemetry, info, snap, config.telemetry.min_interval, id, *metrics, out);
    observe_ocp_recovery(*panics, info, snap);
    auto rating = config.ratings.find(info.serial);
    auto view = analytics->update(info, snap, config.analytics,
                                  rating != config.ratings.end() ? rating->second : DriveRating{});
    // The store logs its failures once per state change and counts them.
    if (!view) log::debug("{}: recording history: {}", info.path, view.error().message);
    const AnalyticsView& current = analytics->view();
    add_analytics_metrics(std::span(&current, 1), *metrics);
    metrics->render_to(out.families);
    // Without history the detector is fresh and knows nothing (its families are left out too).
    out.throttling = current.history && current.thermal.throttling;
    if (wearout_imminent(current.wear, snap.taken)) out.conditions.emplace_back(kWearoutImminent);
    return out;
  };
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
