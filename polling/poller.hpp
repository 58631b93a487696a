#pragma once
// Polls one device on its own interval. The device commands run on a worker
// thread owned by this poller; the event loop only arms timers and publishes.
// A command that has not returned by its deadline marks the device down
// (reason "timeout") without waiting for it; a hung device therefore costs one
// stuck thread and affects only its own series. That thread is remembered by
// the device's path: a poller created later for the same path (a reload, a
// rescan) starts no thread of its own until the stuck command returns, so
// reloads never pile up threads on a hung device.
//
// A drive is labelled by its serial; one that never identified (or has an
// empty serial) is reported only as nvme_up{path} and nvme_device_info{path}.
// Each publish of an identified drive carries its DriveSummary, made from the
// same decoded snapshot as its families.
//
// Thread-safety: every public method is called on the event loop's thread.
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/device.hpp"
#include "core/clock.hpp"
#include "drivelog/telemetry_capture.hpp"
#include "metrics/metric_set.hpp"
#include "polling/collection_stats.hpp"
#include "polling/cpu_gate.hpp"
#include "polling/published_metrics.hpp"
#include "services/config.hpp"

namespace nvmond {

struct PollWorker;   // polling/poll_worker.hpp
struct PollOutcome;  // polling/poll_worker.hpp

struct PollSettings {
  Duration interval = std::chrono::seconds(10);
  Duration timeout = std::chrono::seconds(5);
  // Controller-initiated telemetry: with capture off its log is never read.
  TelemetrySettings telemetry{};
  // What the observer goes through (polling/cpu_gate.hpp); null: the
  // process's CpuGate::polling().
  CpuGate* cpu_gate = nullptr;
};

// What an observer adds to a successful poll: extra families for the device
// (wear and thermal analytics) and whether the analytics see it throttling.
struct PollObservation {
  RenderedFamilies families;
  bool throttling = false;
  // The error count whose log entries the history has accounted for
  // (ErrorLogTracker::seen): the next poll reads the Error Information log
  // only when SMART's count differs. nullopt: not known, do not read.
  std::optional<std::uint64_t> error_log_seen;
  // Error log entries of the media and path classes counted for the drive
  // so far (what pages someone); nullopt while its log is unknown.
  std::optional<std::uint64_t> media_path_errors;
  // Conditions the analytics judge page-worthy (DriveSummary::conditions).
  std::vector<std::string> conditions;
  // What the telemetry recorder knows of the drive's saved captures: the
  // next poll decides from it whether to read the whole log. nullopt: not
  // known, capture nothing.
  std::optional<TelemetryMark> telemetry_mark;
};
// Runs on the worker thread after every successful poll of an identified
// drive (analytics, persistence).
using PollObserver = std::function<PollObservation(const DriveInfo&, const HealthSnapshot&)>;

class DevicePoller {
 public:
  DevicePoller(boost::asio::io_context& io, std::string path, std::unique_ptr<Device> device, PollSettings settings,
               const Clock& clock, PublishedMetrics& out, PollObserver observer);
  ~DevicePoller();
  DevicePoller(const DevicePoller&) = delete;
  DevicePoller& operator=(const DevicePoller&) = delete;

  void start();
  const std::string& path() const { return path_; }
  bool up() const { return up_; }
  ErrorReason last_error_reason() const { return last_error_.reason; }
  // Sends a Device Self-test to the drive from its poll thread, between two
  // polls: start `kind`, or abort when nullopt. Returns at once; `done` gets
  // the drive's answer on the event loop when the thread posts it, or an
  // error after the poll timeout (real time). A command the thread has not
  // taken by then is withdrawn, never sent late; one command waits at a
  // time (another is refused at once). A poller destroyed first (a reload)
  // answers its waiting command with an error. The next poll reads the
  // self-test log.
  void self_test(std::optional<SelfTestKind> kind, std::function<void(std::optional<Error>)> done);
  // Worker threads left behind, blocked in a device command, by destroyed
  // pollers. main() must not wait for them at exit.
  static int abandoned_threads();

 private:
  struct PendingSelfTest;
  void arm_tick(Duration delay);
  void on_tick();
  void on_outcome(std::shared_ptr<PollOutcome> outcome);
  void on_deadline();
  void record_failure(const Error& error);
  // Publishes the drive's families; with `observed` (a successful poll's
  // observations), its health and those too. Without: none (after a failed
  // poll, stale values would lie).
  void publish(const RenderedFamilies* observed = nullptr);
  void start_thread();
  bool identified() const { return info_ && !info_->serial.empty(); }

  boost::asio::io_context& io_;
  std::string path_;
  PollSettings settings_;
  const Clock& clock_;
  PublishedMetrics& out_;
  std::shared_ptr<int> token_ = std::make_shared<int>(0);
  std::shared_ptr<PollWorker> worker_;
  // The abandoned thread of an earlier poller of this path, still stuck in a
  // device command: this poller polls only once it has gone.
  std::weak_ptr<const void> stuck_predecessor_;
  std::unique_ptr<Timer> tick_;      // clock time
  std::unique_ptr<Timer> deadline_;  // real time
  // The self-test command whose answer the loop waits for; null: none.
  std::shared_ptr<PendingSelfTest> self_test_pending_;

  // Event-loop state.
  bool in_flight_ = false;
  bool deadline_passed_ = false;
  bool up_ = false;
  Error last_error_;
  std::optional<DriveInfo> info_;
  // From the last good poll; cleared by a failed one.
  std::optional<HealthSnapshot> snapshot_;
  bool throttling_ = false;
  std::optional<std::uint64_t> media_path_errors_;  // kept across failed polls: it is history, not health
  std::vector<std::string> observed_conditions_;    // the last poll's PollObservation::conditions
  CollectionStats stats_;
  // Rendering, kept between polls so that a poll reuses their buffers.
  LabelPrefix id_ = LabelPrefix::of({});  // serial="…" of info_
  MetricSet health_set_;                  // a successful poll's health
  MetricSet publish_set_;                 // what every publish has
  std::size_t published_bytes_ = 0;       // text size of the last publish
  std::size_t published_families_ = 0;
};

}  // namespace nvmond
