#pragma once
// What a drive's successful poll goes through on its worker thread, after
// the device reads: the drive-log trackers count what its logs say (each new
// entry logged once), the telemetry recorder saves its captures, the
// analytics update its wear and thermal history in the store, and their
// families are rendered. One per poller, made by the Fleet, kept from poll to
// poll so that a poll renders into buffers it already has.
//
// Thread-safety: its poller's worker thread only.
#include <memory>

#include "analytics/drive_analytics.hpp"
#include "core/throughput_feed.hpp"
#include "drivelog/error_log_tracker.hpp"
#include "drivelog/event_log_tracker.hpp"
#include "drivelog/ocp_panic_tracker.hpp"
#include "drivelog/telemetry_capture.hpp"
#include "metrics/metric_set.hpp"
#include "polling/poller.hpp"
#include "services/config.hpp"
#include "store/store.hpp"

namespace nvmond {

class DrivePipeline {
 public:
  // `store`, `throughput` (may be null), `archive` and `config` must outlive
  // it. `source_observer`: what the drive's source adds first (a simulated
  // drive saves its state); may be empty.
  DrivePipeline(Store& store, ThroughputFeed* throughput, std::shared_ptr<TelemetryArchive> archive,
                const DaemonConfig& config, PollObserver source_observer);
  // The poller's observer: one poll of an identified drive.
  PollObservation observe(const DriveInfo& info, const HealthSnapshot& snap);
  // observe() of a shared pipeline, as a PollObserver.
  static PollObserver observer(std::shared_ptr<DrivePipeline> pipeline);

 private:
  void observe_error_log(const DriveInfo& info, const HealthSnapshot& snap, const LabelPrefix& id,
                         PollObservation& out);
  void observe_event_log(const DriveInfo& info, const HealthSnapshot& snap, const LabelPrefix& id);
  void observe_telemetry(const DriveInfo& info, const HealthSnapshot& snap, const LabelPrefix& id,
                         PollObservation& out);
  void observe_ocp_recovery(const DriveInfo& info, const HealthSnapshot& snap);
  void observe_analytics(const DriveInfo& info, const HealthSnapshot& snap, PollObservation& out);

  const DaemonConfig& config_;
  PollObserver source_observer_;
  DriveAnalytics analytics_;
  ErrorLogTracker errors_;
  EventLogTracker events_;
  TelemetryRecorder telemetry_;
  OcpPanicTracker panics_;
  MetricSet metrics_{MetricSet::Order::as_declared};
};

}  // namespace nvmond
