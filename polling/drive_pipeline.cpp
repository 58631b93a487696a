#include "polling/drive_pipeline.hpp"

#include <fmt/chrono.h>

#include "analytics/metrics.hpp"
#include "core/failure_state.hpp"
#include "core/log.hpp"
#include "drivelog/nvme_exports.hpp"
#include "polling/drive_summary.hpp"

namespace nvmond {

namespace {

// A first read of a long-lived drive may bring thousands of events: the
// newest are logged, the rest counted.
constexpr std::size_t kMaxEventsLogged = 64;

std::string when_text(const std::optional<WallTime>& t) {
  if (!t) return "at an unknown time";
  return fmt::format("at {:%Y-%m-%d %H:%M:%S} UTC", std::chrono::floor<std::chrono::seconds>(*t));
}

}  // namespace

DrivePipeline::DrivePipeline(Store& store, ThroughputFeed* throughput, std::shared_ptr<TelemetryArchive> archive,
                             const DaemonConfig& config, PollObserver source_observer)
    : config_(config),
      source_observer_(std::move(source_observer)),
      analytics_(store, throughput),
      errors_(store),
      events_(store),
      telemetry_(std::move(archive)) {}

PollObserver DrivePipeline::observer(std::shared_ptr<DrivePipeline> pipeline) {
  return [pipeline](const DriveInfo& info, const HealthSnapshot& snap) { return pipeline->observe(info, snap); };
}

PollObservation DrivePipeline::observe(const DriveInfo& info, const HealthSnapshot& snap) {
  PollObservation out;
  if (source_observer_) out = source_observer_(info, snap);
  const auto id = LabelPrefix::of({{"serial", info.serial}});
  observe_error_log(info, snap, id, out);
  observe_event_log(info, snap, id);
  observe_telemetry(info, snap, id, out);
  observe_ocp_recovery(info, snap);
  observe_analytics(info, snap, out);
  return out;
}

// Each new entry is logged once, with what an operator needs to find the
// command and the data it hit; the class totals become the drive's series.
void DrivePipeline::observe_error_log(const DriveInfo& info, const HealthSnapshot& snap, const LabelPrefix& id,
                                      PollObservation& out) {
  ErrorLogTracker& tracker = errors_;
  const auto update = tracker.update(DriveKey{info.serial, info.model}, snap);
  if (update.error) log::debug("{}: recording the error log: {}", info.path, update.error->message);
  if (update.reset) {
    log::info(
        "drive {} at {}: error count went backwards; reading its error "
        "log as new",
        info.serial, info.path);
  }
  for (const auto& e : update.fresh) {
    log::warn(
        "drive {} at {}: error log entry {}: {} on SQID {} CID {}, LBA "
        "{}, namespace {}",
        info.serial, info.path, e.error_count, error_status_text(e), e.sqid, e.cid, e.lba, e.nsid);
  }
  out.error_log_seen = tracker.seen();
  if (!out.error_log_seen) return;
  out.media_path_errors = media_and_path_errors(tracker.counts());
  add_error_log_classes(tracker.counts(), id, metrics_);
}

void DrivePipeline::observe_event_log(const DriveInfo& info, const HealthSnapshot& snap, const LabelPrefix& id) {
  EventLogTracker& tracker = events_;
  const auto update = tracker.update(info, snap);
  if (update.error) log::debug("{}: recording the persistent event log: {}", info.path, update.error->message);
  if (update.cleared) {
    log::info(
        "drive {} at {}: persistent event log generation changed; "
        "reading it as new",
        info.serial, info.path);
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
  add_event_log_types(tracker.counts(), id, metrics_);
}

// Each capture is one line naming its file; a failure one line when it
// starts or its reason changes, one when captures are saved again. Both wait
// for [telemetry] min_interval before the next attempt.
void DrivePipeline::observe_telemetry(const DriveInfo& info, const HealthSnapshot& snap, const LabelPrefix& id,
                                      PollObservation& out) {
  TelemetryRecorder& recorder = telemetry_;
  const Duration min_interval = config_.telemetry.min_interval;
  const auto update = recorder.update(info, snap);
  if (update.restore_error) {
    log::warn("drive {} at {}: reading its saved telemetry: {}", info.serial, info.path, update.restore_error->message);
  }
  if (update.saved && snap.telemetry && snap.telemetry->capture) {
    const TelemetryLog& log = *snap.telemetry->capture;
    log::warn(
        "drive {} at {}: controller-initiated telemetry generation {} (data "
        "areas 1-{}, {} bytes) saved to {}{}",
        info.serial, info.path, log.header.controller_generation, log.data_area, log.bytes.size(), update.saved->path,
        update.saved->removed.empty()
            ? std::string()
            : fmt::format("; {} older capture(s) deleted for the size caps", update.saved->removed.size()));
  }
  if (update.failure && update.failure_change != FailureState::Change::none) {
    log::warn(
        "drive {} at {}: saving controller-initiated telemetry failed, "
        "tried again every {} (each failure "
        "counted, logged again when the reason changes): {}",
        info.serial, info.path, format_duration(min_interval), update.failure->message);
  }
  if (update.recovered) log::info("drive {} at {}: controller-initiated telemetry saved again", info.serial, info.path);
  out.telemetry_mark = recorder.mark();
  if (!recorder.known()) return;
  add_telemetry_captures(recorder, id, metrics_);
}

// A panic is an operator's business at once: the drive says how to recover.
void DrivePipeline::observe_ocp_recovery(const DriveInfo& info, const HealthSnapshot& snap) {
  if (!snap.ocp_recovery) return;
  if (auto line = panics_.update(*snap.ocp_recovery)) {
    log::warn("drive {} at {}: OCP error recovery log: {}", info.serial, info.path, *line);
  }
}

void DrivePipeline::observe_analytics(const DriveInfo& info, const HealthSnapshot& snap, PollObservation& out) {
  auto rating = config_.ratings.find(info.serial);
  auto view = analytics_.update(info, snap, config_.analytics,
                                rating != config_.ratings.end() ? rating->second : DriveRating{});
  // The store logs its failures once per state change and counts them.
  if (!view) log::debug("{}: recording history: {}", info.path, view.error().message);
  const AnalyticsView& current = analytics_.view();
  add_analytics_metrics(std::span(&current, 1), metrics_);
  metrics_.render_to(out.families);
  // Without history the detector is fresh and knows nothing (its families are
  // left out too).
  out.throttling = current.history && current.thermal.throttling;
  if (wearout_imminent(current.wear, snap.taken)) out.conditions.emplace_back(kWearoutImminent);
}

}  // namespace nvmond
