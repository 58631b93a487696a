#include "polling/poller.hpp"

#include <pthread.h>

#include <boost/asio/post.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "core/failure_state.hpp"
#include "core/log.hpp"
#include "drivelog/error_log_tracker.hpp"
#include "drivelog/event_log_tracker.hpp"
#include "drivelog/nvme_exports.hpp"
#include "drivelog/self_test_pacing.hpp"

namespace nvmond {
namespace {
std::atomic<int> g_abandoned{0};

// Threads abandoned in a device command, by device path. Event-loop thread
// only; an entry expires when its thread exits (the thread owns the Worker).
std::map<std::string, std::weak_ptr<const void>>& abandoned_by_path() {
  static std::map<std::string, std::weak_ptr<const void>> registry;
  return registry;
}

std::weak_ptr<const void> stuck_thread_of(const std::string& path) {
  auto& registry = abandoned_by_path();
  std::erase_if(registry, [](const auto& entry) { return entry.second.expired(); });
  auto it = registry.find(path);
  return it != registry.end() ? it->second : std::weak_ptr<const void>{};
}
}  // namespace

int DevicePoller::abandoned_threads() { return g_abandoned.load(); }

struct DevicePoller::Outcome {
  std::optional<Error> error;
  std::optional<DriveInfo> info;  // set when (re-)identified
  std::optional<HealthSnapshot> snapshot;
  PollObservation observed;
  double duration_s = 0;
};

// Shared between the poller and its thread so that a thread stuck in a device
// command can outlive the poller. Only the device commands may be abandoned:
// the observer (analytics, the store, sim state files) touches state the Fleet
// owns, so the poller's destructor waits for it, and a thread that comes back
// from a device command to find `alive` false exits without calling it.
struct DevicePoller::Worker {
  enum class Phase { idle, device, observing };

  std::mutex mu;
  std::condition_variable cv;  // requests for the thread; phase changes for the destructor
  bool requested = false;
  bool stopping = false;
  bool alive = true;
  Phase phase = Phase::idle;
  bool need_identify = true;
  std::optional<DriveInfo> info;
  // Worker-thread only: what the observer last said the history has seen,
  // and whether the device refused the log (not asked again).
  std::optional<std::uint64_t> error_log_seen;
  // Cleared when another drive identifies at this path.
  bool error_log_unsupported = false;
  bool self_test_unsupported = false;              // no Device Self-test: not asked again
  bool event_log_unsupported = false;              // no Persistent Event log: not asked again
  std::optional<EventLogReadMark> event_log_mark;  // the last attempt to read it
  std::optional<SelfTestPacing> self_test_pacing;
  std::optional<SelfTestLog> self_test;  // the last read, carried between reads
  TelemetrySettings telemetry_settings;
  bool telemetry_unsupported = false;           // no telemetry logs: not asked again
  std::optional<TelemetryMark> telemetry_mark;  // from the observer, for the next poll
  // The OCP panic (ID, count) of the last poll that read the C1 log.
  std::optional<std::pair<std::uint64_t, std::uint8_t>> ocp_panic;
  // When a panic last made a capture due: a drive panicking in a loop gets
  // one such capture per [telemetry] min_interval, not one per poll.
  std::optional<WallTime> panic_capture_at;
  // Worker-thread only: the optional logs failing now, by name.
  std::map<std::string, FailureState, std::less<>> optional_log_failures;
  // A self-test command waiting for the thread (DevicePoller::self_test).
  struct SelfTestCommand {
    std::optional<SelfTestKind> kind;                  // nullopt: abort
    std::uint64_t id = 0;                              // the PendingSelfTest it answers
    std::function<void(std::optional<Error>)> answer;  // posts to the loop
  };
  std::optional<SelfTestCommand> self_test_command;
  std::unique_ptr<Device> device;
  PollObserver observer;
  CpuGate* gate = nullptr;
  const Clock* clock = nullptr;
  std::function<void(std::shared_ptr<Outcome>)> deliver;  // posts to the event loop
  std::thread thread;

  void loop() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return requested || self_test_command || stopping; });
      if (stopping) return;
      if (self_test_command) {
        run_self_test_command(lock);
        continue;
      }
      requested = false;
      phase = Phase::device;
      bool identify = need_identify;
      lock.unlock();
      auto outcome = read_device(identify);
      lock.lock();
      if (!alive) return;  // abandoned while in a device command: touch nothing
      // History is keyed by serial: a drive without one has none.
      if (outcome->snapshot && observer && !info->serial.empty()) {
        phase = Phase::observing;
        lock.unlock();
        {
          CpuGate::Pass pass(*gate);
          outcome->observed = observer(*info, *outcome->snapshot);
        }
        lock.lock();
        error_log_seen = outcome->observed.error_log_seen;
        telemetry_mark = outcome->observed.telemetry_mark;
      }
      // A capture can be 32 MiB: the observer has saved it; the published
      // snapshot keeps none of it.
      if (outcome->snapshot) outcome->snapshot->telemetry.reset();
      phase = Phase::idle;
      cv.notify_all();
      if (!alive) return;
      need_identify = outcome->error.has_value();
      deliver(std::move(outcome));
    }
  }

  // A log page the drive may lack: a refusal as "unsupported" is logged once,
  // at info, and sets `unsupported` so it is not asked again; any other
  // failure is a warning, once per change (optional_log_failed). Returns
  // whether it was read. `absent` is "no <the log>".
  template <typename T>
  bool read_optional_log(Result<T> read, std::optional<T>& into, bool& unsupported, std::string_view absent) {
    const std::string_view name = absent.substr(absent.starts_with("no ") ? 3 : 0);
    if (read) {
      into = std::move(*read);
      optional_log_read(name);
      return true;
    }
    if (read.error().reason == ErrorReason::unsupported) {
      log::info("{}: {}: {}", info->path, absent, read.error().message);
      unsupported = true;
    } else {
      optional_log_failed(name, read.error());
    }
    return false;
  }

  // A log that fails poll after poll is one line when it starts failing or
  // its reason changes, and one when it reads again; the poll goes on
  // without it either way.
  void optional_log_failed(std::string_view name, const Error& error) {
    if (optional_log_failures[std::string(name)].failed(error.reason) == FailureState::Change::none) return;
    log::warn("{}: {} (not logged again until it reads or fails otherwise)", info->path, error.message);
  }
  void optional_log_read(std::string_view name) {
    auto it = optional_log_failures.find(name);
    if (it != optional_log_failures.end() && it->second.succeeded()) log::info("{}: {} read again", info->path, name);
  }

  // Called with the lock held; sends the command without it.
  void run_self_test_command(std::unique_lock<std::mutex>& lock) {
    SelfTestCommand command = std::move(*self_test_command);
    self_test_command.reset();
    phase = Phase::device;
    lock.unlock();
    std::optional<Error> answer = command.kind ? device->start_self_test(*command.kind) : device->abort_self_test();
    if (!answer) self_test_pacing->started();
    // Out of the device phase before the answer can reach anyone: a poller
    // destroyed as soon as it reads the answer must join this thread, not
    // abandon it as if it were still stuck in the drive.
    lock.lock();
    phase = Phase::idle;
    cv.notify_all();
    lock.unlock();
    command.answer(std::move(answer));
    lock.lock();
  }

  // A drive with another identity at this path (swapped, or new firmware)
  // may have the logs the last one lacked.
  void identified_as(const DriveInfo& id) {
    const bool same = info && info->serial == id.serial && info->model == id.model && info->firmware == id.firmware;
    if (!same) {
      error_log_unsupported = false;
      self_test_unsupported = false;
      event_log_unsupported = false;
      telemetry_unsupported = false;
      telemetry_mark.reset();
      ocp_panic.reset();
      self_test.reset();
      self_test_pacing->reset();
      optional_log_failures.clear();
      // A recovery of the same drive keeps the mark: a drive that fails
      // now and then would otherwise have its whole event log read again
      // at every recovery. The tracker's generation and fingerprint make a
      // new drive's log count from its own start.
      event_log_mark.reset();
    }
  }

  void read_self_test() {
    if (self_test_unsupported || !self_test_pacing->due()) return;
    if (read_optional_log(device->read_self_test_log(), self_test, self_test_unsupported, "no device self-test")) {
      self_test_pacing->read(*self_test);
    } else {
      self_test.reset();
      self_test_pacing->reset();  // read again at the next poll (an unsupported drive is not asked)
    }
  }

  // At start-up and when another drive identifies, then as should_read_event_log
  // says; a failed read waits as long as a good one, not retried each poll.
  void read_event_log(HealthSnapshot& snap) {
    if (event_log_unsupported || !should_read_event_log(event_log_mark, snap)) return;
    event_log_mark = event_log_read_mark(snap);
    std::optional<PersistentEventLog> log;
    read_optional_log(device->read_persistent_event_log(), log, event_log_unsupported, "no persistent event log");
    if (log) snap.event_log = std::make_shared<const PersistentEventLog>(std::move(*log));
  }

  // A panic in the C1 log that the last poll did not show (a standing one
  // at start-up counts: its telemetry may not be saved yet).
  bool new_ocp_panic(const HealthSnapshot& snap) {
    if (!snap.ocp_recovery) return false;
    std::optional<std::pair<std::uint64_t, std::uint8_t>> now;
    if (snap.ocp_recovery->panicked()) now = {snap.ocp_recovery->panic_id, snap.ocp_recovery->panic_count};
    const bool fresh = now && now != ocp_panic;
    ocp_panic = now;
    return fresh;
  }

  // The header every poll; the whole log when telemetry_capture_due says.
  void read_telemetry(HealthSnapshot& snap) {
    const TelemetrySettings& t = telemetry_settings;
    if (!t.capture || telemetry_unsupported) return;
    std::optional<TelemetryHeader> header;
    if (!read_optional_log(device->read_telemetry_header(), header, telemetry_unsupported,
                           "no controller-initiated telemetry")) {
      return;
    }
    auto poll = std::make_shared<TelemetryPoll>();
    poll->header = *header;
    const bool panic = new_ocp_panic(snap) && (!panic_capture_at || snap.taken < *panic_capture_at ||
                                               snap.taken - *panic_capture_at >= t.min_interval);
    const bool due =
        telemetry_mark && telemetry_capture_due(*header, *telemetry_mark, snap.taken, t.min_interval, panic);
    if (panic && telemetry_mark && !due) {
      log::warn(
          "{}: OCP panic {:#x}: the drive's controller-initiated telemetry has no new data to save "
          "(data available {}, generation {})",
          info->path, snap.ocp_recovery->panic_id, header->data_available() ? "yes" : "no",
          header->controller_generation);
    }
    if (due && panic) panic_capture_at = snap.taken;
    if (due) {
      if (auto area = telemetry_capture_area(*header, t.data_area, t.max_capture_bytes())) {
        if (auto log = device->read_telemetry_log(*area)) {
          poll->capture = std::move(*log);
        } else {
          poll->capture_error = log.error();
        }
      } else {
        poll->capture_error =
            Error{ErrorReason::full, fmt::format("{}: controller-initiated telemetry: data area 1 alone is {} bytes, "
                                                 "over the {}-byte cap ([telemetry] max_bytes_per_drive, max_bytes)",
                                                 info->path, header->bytes_through(1), t.max_capture_bytes())};
      }
    }
    snap.telemetry = std::move(poll);
  }

  // Device commands only; runs without the lock.
  std::shared_ptr<Outcome> read_device(bool identify) {
    auto out = std::make_shared<Outcome>();
    auto t0 = std::chrono::steady_clock::now();
    auto finish = [&] {
      out->duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return out;
    };
    if (identify || !info) {
      auto id = device->identify();
      if (!id) {
        out->error = id.error();
        return finish();
      }
      identified_as(*id);
      info = *id;
      out->info = *id;
    }
    auto smart = device->read_smart();
    if (!smart) {
      out->error = smart.error();
      return finish();
    }
    HealthSnapshot snap;
    snap.taken = clock->wall();
    snap.smart = *smart;
    // Optional logs: a failure keeps the rest of the poll.
    if (auto ocp = device->read_ocp()) {
      snap.ocp = *ocp;
      optional_log_read("OCP C0 log");
    } else {
      optional_log_failed("OCP C0 log", ocp.error());
    }
    if (auto latency = device->read_ocp_latency_monitor()) {
      snap.ocp_latency = *latency;
      optional_log_read("OCP C3 log");
    } else {
      optional_log_failed("OCP C3 log", latency.error());
    }
    if (auto recovery = device->read_ocp_error_recovery()) {
      snap.ocp_recovery = *recovery;
      optional_log_read("OCP C1 log");
    } else {
      optional_log_failed("OCP C1 log", recovery.error());
    }
    if (auto th = device->read_temperature_thresholds()) {
      snap.thresholds = *th;
    } else {
      log::debug("{}: {}", info->path, th.error().message);
    }
    if (auto hctm = device->read_host_thermal_management()) {
      snap.host_thermal = *hctm;
    } else {
      log::debug("{}: {}", info->path, hctm.error().message);
    }
    if (!error_log_unsupported && should_read_error_log(snap.smart.error_log_entries, error_log_seen)) {
      read_optional_log(device->read_error_log(), snap.error_log, error_log_unsupported, "no error information log");
    }
    read_event_log(snap);
    read_self_test();
    snap.self_test = self_test;
    read_telemetry(snap);
    if (auto link = device->read_pcie_link()) {
      snap.pcie = *link;
    } else {
      log::debug("{}: {}", info->path, link.error().message);
    }
    out->snapshot = std::move(snap);
    return finish();
  }
};

// The loop's side of a self-test command: answered once, by the worker's
// post or by the deadline, whichever comes first.
struct DevicePoller::PendingSelfTest {
  std::uint64_t id = 0;
  std::string what;  // "abort", or the kind's name
  std::function<void(std::optional<Error>)> done;
  std::unique_ptr<Timer> deadline;
  bool answered = false;

  void answer(std::optional<Error> e) {
    if (answered) return;
    answered = true;
    if (deadline) deadline->cancel();
    auto d = std::move(done);
    d(std::move(e));
  }
};

DevicePoller::DevicePoller(boost::asio::io_context& io, std::string path, std::unique_ptr<Device> device,
                           PollSettings settings, const Clock& clock, PublishedMetrics& out, PollObserver observer)
    : io_(io),
      path_(std::move(path)),
      settings_(settings),
      clock_(clock),
      out_(out),
      worker_(std::make_shared<Worker>()),
      tick_(clock.timer(io)),
      deadline_(clock.real_timer(io)) {
  worker_->device = std::move(device);
  worker_->observer = std::move(observer);
  worker_->gate = settings_.cpu_gate ? settings_.cpu_gate : &CpuGate::polling();
  worker_->clock = &clock_;
  worker_->self_test_pacing.emplace(settings_.interval);
  worker_->telemetry_settings = settings_.telemetry;
  // The handler may run after this poller is gone (a reload destroys pollers
  // while the loop keeps running): the weak token tells.
  std::weak_ptr<int> token = token_;
  worker_->deliver = [this, &io, token](std::shared_ptr<Outcome> o) {
    boost::asio::post(io, [this, token, o = std::move(o)]() mutable {
      if (!token.expired()) on_outcome(std::move(o));
    });
  };
}

DevicePoller::~DevicePoller() {
  tick_->cancel();
  deadline_->cancel();
  if (self_test_pending_ && !self_test_pending_->answered) {
    self_test_pending_->answer(
        Error{ErrorReason::stopped,
              fmt::format("{}: device self-test ({}): the drive's poller was replaced (a reload) before the drive "
                          "answered; `nvmonctl selftest status` shows whether it started",
                          path_, self_test_pending_->what)});
  }
  if (self_test_pending_ && self_test_pending_->deadline) self_test_pending_->deadline->cancel();
  out_.remove(path_);
  bool detach = false;
  {
    std::unique_lock lock(worker_->mu);
    worker_->alive = false;
    worker_->stopping = true;
    worker_->cv.notify_all();
    worker_->cv.wait(lock, [&] { return worker_->phase != Worker::Phase::observing; });
    detach = worker_->phase == Worker::Phase::device;
  }
  if (!worker_->thread.joinable()) return;
  if (detach) {
    // Stuck in a device command: the thread keeps the shared Worker alive and
    // exits when (if) the command returns.
    log::warn("{}: device command still running at shutdown; not waiting for it", path_);
    worker_->thread.detach();
    ++g_abandoned;
    abandoned_by_path()[path_] = worker_;
  } else {
    worker_->thread.join();
  }
}

void DevicePoller::self_test(std::optional<SelfTestKind> kind, std::function<void(std::optional<Error>)> done) {
  const char* what = kind ? self_test_kind_name(*kind) : "abort";
  if (self_test_pending_ && !self_test_pending_->answered) {
    return done(
        Error{ErrorReason::busy,
              fmt::format("{}: device self-test ({}): another self-test command is waiting; not sent", path_, what)});
  }
  static std::uint64_t next_id = 0;
  auto pending = std::make_shared<PendingSelfTest>();
  pending->id = ++next_id;
  pending->what = what;
  pending->done = std::move(done);
  {
    std::lock_guard lock(worker_->mu);
    if (!worker_->thread.joinable()) {
      return pending->answer(Error{
          ErrorReason::timeout,
          fmt::format("{}: device self-test ({}): an earlier command has still not returned; not sent", path_, what)});
    }
    worker_->self_test_command.emplace();
    worker_->self_test_command->kind = kind;
    worker_->self_test_command->id = pending->id;
    // From the worker thread: the answer travels to the loop as a poll's does.
    std::weak_ptr<int> token = token_;
    worker_->self_test_command->answer = [&io = io_, token, pending](std::optional<Error> e) {
      boost::asio::post(io, [token, pending, e = std::move(e)]() mutable {
        if (!token.expired()) pending->answer(std::move(e));
      });
    };
  }
  self_test_pending_ = pending;
  worker_->cv.notify_all();
  pending->deadline = clock_.real_timer(io_);
  pending->deadline->arm(settings_.timeout, [this, token = std::weak_ptr<int>(token_), weak = std::weak_ptr(pending)] {
    auto waiting = weak.lock();
    if (token.expired() || !waiting || waiting->answered) return;
    bool withdrawn = false;
    {
      std::lock_guard lock(worker_->mu);
      if (worker_->self_test_command && worker_->self_test_command->id == waiting->id) {
        worker_->self_test_command.reset();
        withdrawn = true;
      }
    }
    if (withdrawn) {
      waiting->answer(
          Error{ErrorReason::timeout,
                fmt::format("{}: device self-test ({}): the drive was busy in another command for {:.3g} s; not sent",
                            path_, waiting->what, seconds(settings_.timeout))});
    } else {
      waiting->answer(Error{ErrorReason::timeout, fmt::format("{}: device self-test ({}): no answer within {:.3g} s; "
                                                              "`nvmonctl selftest status` shows whether it started",
                                                              path_, waiting->what, seconds(settings_.timeout))});
    }
  });
}

void DevicePoller::start() {
  stuck_predecessor_ = stuck_thread_of(path_);
  if (stuck_predecessor_.expired()) {
    start_thread();
  } else {
    log::warn("{}: a command sent before the reload has not returned; polling resumes when it does", path_);
  }
  publish();
  arm_tick(Duration::zero());
}

void DevicePoller::start_thread() {
  auto w = worker_;
  worker_->thread = std::thread([w] {
    pthread_setname_np(pthread_self(), "nvmond-poll");
    w->loop();
  });
}

void DevicePoller::arm_tick(Duration delay) {
  tick_->arm(delay, [this] { on_tick(); });
}

void DevicePoller::on_tick() {
  arm_tick(settings_.interval);
  if (!worker_->thread.joinable()) {
    if (!stuck_predecessor_.expired()) {
      record_failure(Error{ErrorReason::timeout, fmt::format("{}: an earlier command has still not returned", path_)});
      return;
    }
    start_thread();
  }
  if (in_flight_) {
    log::debug("{}: previous poll still running, skipping this one", path_);
    return;
  }
  in_flight_ = true;
  deadline_passed_ = false;
  {
    std::lock_guard lock(worker_->mu);
    worker_->requested = true;
  }
  worker_->cv.notify_one();
  // The deadline is real time: a command timeout is about the device, not
  // about simulated drive time.
  deadline_->arm(settings_.timeout, [this] { on_deadline(); });
}

void DevicePoller::on_deadline() {
  if (!in_flight_) return;
  deadline_passed_ = true;
  record_failure(
      Error{ErrorReason::timeout, fmt::format("{}: no answer within {:.3g} s", path_, seconds(settings_.timeout))});
}

void DevicePoller::on_outcome(std::shared_ptr<Outcome> o) {
  bool late = deadline_passed_;
  in_flight_ = false;
  deadline_passed_ = false;
  deadline_->cancel();
  last_duration_s_ = o->duration_s;
  ++polls_;
  if (o->info) {
    if (info_ && info_->serial != o->info->serial) media_path_errors_.reset();
    if (!info_ || info_->serial != o->info->serial) id_ = LabelPrefix::of({{"serial", o->info->serial}});
    info_ = *o->info;
    if (info_->serial.empty()) {
      log::error("{}: identified without a serial number ({}); reported under its path only", path_, info_->model);
    }
  }
  if (o->error) {
    if (!late) record_failure(*o->error);
    return;
  }
  if (late) log::info("{}: answered again after {:.3g} s", path_, o->duration_s);
  if (!up_) log::info("{}: up ({} {})", path_, info_->model, info_->serial);
  up_ = true;
  last_error_ = {};
  if (!identified()) {
    publish();
    return;
  }
  last_success_unix_ = seconds(o->snapshot->taken.time_since_epoch());
  add_health(*o->snapshot, id_, health_set_);
  snapshot_ = std::move(o->snapshot);
  throttling_ = o->observed.throttling;
  if (o->observed.media_path_errors) media_path_errors_ = o->observed.media_path_errors;
  observed_conditions_ = std::move(o->observed.conditions);
  publish(&o->observed.families);
}

void DevicePoller::record_failure(const Error& error) {
  ++errors_by_reason_[error.reason];
  if (up_ || last_error_.message != error.message) log::error("{}", error.message);
  up_ = false;
  last_error_ = error;
  // Stale values would lie: the series and the summary's health go away
  // until it answers.
  snapshot_.reset();
  throttling_ = false;
  observed_conditions_.clear();
  publish();
}

void DevicePoller::publish(const RenderedFamilies* observed) {
  MetricSet& set = publish_set_;
  RenderedFamilies text;
  // The last publish's size and an eighth: one allocation each, not a
  // growth series. A value one digit longer than last time must not double
  // the string's capacity, as an exact reserve did for about half the
  // drives at every poll (some 3 MB of heap at 256 drives).
  text.reserve(published_bytes_ + published_bytes_ / 8, published_families_);
  if (!identified()) {
    // No serial to key series by: the path only, and nothing that could be
    // mistaken for another drive's history.
    add_unidentified_drive(path_, up_, set);
    set.render_to(text);
    out_.publish(path_, std::move(text));
    return;
  }
  const LabelPrefix& id = id_;
  add_drive_info(*info_, id, set, snapshot_ ? snapshot_->host_thermal : std::nullopt);
  add_up(id, up_, set);
  set.add({"nvmond_collections_total", Family::counter, "Polls of a drive that completed (ok or not)."}, id,
          static_cast<double>(polls_));
  set.add({"nvmond_collection_duration_seconds", Family::gauge, "Duration of the last poll of a drive."}, id,
          last_duration_s_);
  if (last_success_unix_ > 0) {
    set.add({"nvmond_last_collection_timestamp_seconds", Family::gauge,
             "Clock time of the last successful poll of a drive (Unix seconds)."},
            id, last_success_unix_);
  }
  for (const auto& [reason, n] : errors_by_reason_) {
    set.add({"nvmond_collection_errors_total", Family::counter, "Failed polls of a drive, by reason."}, id,
            {{"reason", to_text(reason)}}, static_cast<double>(n));
  }
  set.render_to(text);
  // Rendered straight into what is published: the poller keeps no copy of
  // a drive's text (at 256 drives such copies were some 8 MB of heap).
  if (observed) {
    health_set_.render_to(text);
    text.append(*observed);
  }
  published_bytes_ = text.text().size();
  published_families_ = text.families().size();
  DriveSummary summary = summarize_drive(*info_, up_, snapshot_ ? &*snapshot_ : nullptr, throttling_);
  summary.media_path_errors = media_path_errors_;
  summary.conditions.insert(summary.conditions.end(), observed_conditions_.begin(), observed_conditions_.end());
  out_.publish(path_, std::move(text), std::move(summary));
}

}  // namespace nvmond
