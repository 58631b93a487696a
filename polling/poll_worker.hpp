#pragma once
// The thread that polls one drive for its DevicePoller: identifies it,
// walks the log-source table (drivelog/log_sources) into a HealthSnapshot,
// hands that to the observer and posts the outcome to the event loop; and,
// between polls, sends the self-test commands the poller queues.
//
// Shared between the poller and its thread so that a thread stuck in a
// device command can outlive the poller. Only the device commands may be
// abandoned: the observer (analytics, the store, sim state files) touches
// state the Fleet owns, so the poller's destructor waits for it, and a
// thread that comes back from a device command to find `alive` false exits
// without calling it.
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "collectors/device.hpp"
#include "core/failure_state.hpp"
#include "drivelog/log_sources.hpp"
#include "polling/cpu_gate.hpp"
#include "polling/poller.hpp"

namespace nvmond {

// What one poll produced, for the event loop.
struct PollOutcome {
  std::optional<Error> error;
  std::optional<DriveInfo> info;  // set when (re-)identified
  std::optional<HealthSnapshot> snapshot;
  PollObservation observed;
  double duration_s = 0;
};

struct PollWorker {
  enum class Phase { idle, device, observing };
  // A self-test command waiting for the thread (DevicePoller::self_test).
  struct SelfTestCommand {
    std::optional<SelfTestKind> kind;                  // nullopt: abort
    std::uint64_t id = 0;                              // the PendingSelfTest it answers
    std::function<void(std::optional<Error>)> answer;  // posts to the loop
  };

  PollWorker(std::unique_ptr<Device> device, const PollSettings& settings, const Clock& clock, PollObserver observer,
             std::span<const LogSource> sources = log_sources());

  std::mutex mu;
  std::condition_variable cv;  // requests for the thread; phase changes for the destructor
  bool requested = false;
  bool stopping = false;
  bool alive = true;
  Phase phase = Phase::idle;
  std::optional<SelfTestCommand> self_test_command;
  std::function<void(std::shared_ptr<PollOutcome>)> deliver;  // posts to the event loop
  std::thread thread;

  // The thread's body: polls when requested, until stopping.
  void loop();
  // Ends the thread of `worker` (polling `path`) once an observer running
  // now returns: joins it, or, stuck in a device command, leaves it behind
  // (detached; it exits when, if, the command returns) and remembers it by
  // path. Event-loop thread only.
  static void stop(std::shared_ptr<PollWorker> worker, const std::string& path);
  // The thread left stuck at `path` by stop(); expired when none.
  static std::weak_ptr<const void> stuck_at(const std::string& path);
  // Threads stop() has left behind, over the process's life.
  static int abandoned();

 private:
  // Called with the lock held; sends the command without it.
  void run_self_test_command(std::unique_lock<std::mutex>& lock);
  // Device commands only; runs without the lock.
  std::shared_ptr<PollOutcome> read_device(bool identify);
  // One row: read when supported and due, its failure taken as its Need
  // says. Returns the error of a required row that failed.
  std::optional<Error> poll_source(std::size_t row, HealthSnapshot& snap);
  // A drive with another identity at this path (swapped, or new firmware)
  // may have the logs the last one lacked.
  void identified_as(const DriveInfo& id);
  // A log that fails poll after poll is one line when it starts failing or
  // its reason changes, and one when it reads again; the poll goes on
  // without it either way.
  void optional_log_failed(std::string_view name, const Error& error);
  void optional_log_read(std::string_view name);

  // Worker-thread only from here on.
  std::unique_ptr<Device> device_;
  PollObserver observer_;
  CpuGate* gate_;
  const Clock& clock_;
  std::span<const LogSource> sources_;
  std::vector<bool> unsupported_;  // by row: the drive refused it, not asked again
  LogMarks marks_;
  bool need_identify_ = true;
  std::optional<DriveInfo> info_;
  std::map<std::string, FailureState, std::less<>> optional_log_failures_;  // the optional logs failing now
};

}  // namespace nvmond
