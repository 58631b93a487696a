#include "polling/poll_worker.hpp"

#include <atomic>
#include <chrono>

#include "core/log.hpp"

namespace nvmond {
namespace {
std::atomic<int> g_abandoned{0};

// Threads abandoned in a device command, by device path. Event-loop thread
// only; an entry expires when its thread exits (the thread owns the worker).
std::map<std::string, std::weak_ptr<const void>>& abandoned_by_path() {
  static std::map<std::string, std::weak_ptr<const void>> registry;
  return registry;
}
}  // namespace

void PollWorker::stop(std::shared_ptr<PollWorker> worker, const std::string& path) {
  bool detach = false;
  {
    std::unique_lock lock(worker->mu);
    worker->alive = false;
    worker->stopping = true;
    worker->cv.notify_all();
    worker->cv.wait(lock, [&] { return worker->phase != Phase::observing; });
    detach = worker->phase == Phase::device;
  }
  if (!worker->thread.joinable()) return;
  if (!detach) {
    worker->thread.join();
    return;
  }
  // The thread keeps the shared worker alive.
  log::warn("{}: device command still running at shutdown; not waiting for it", path);
  worker->thread.detach();
  ++g_abandoned;
  abandoned_by_path()[path] = std::move(worker);
}

std::weak_ptr<const void> PollWorker::stuck_at(const std::string& path) {
  auto& registry = abandoned_by_path();
  std::erase_if(registry, [](const auto& entry) { return entry.second.expired(); });
  auto it = registry.find(path);
  return it != registry.end() ? it->second : std::weak_ptr<const void>{};
}

int PollWorker::abandoned() { return g_abandoned.load(); }

PollWorker::PollWorker(std::unique_ptr<Device> device, const PollSettings& settings, const Clock& clock,
                       PollObserver observer, std::span<const LogSource> sources)
    : device_(std::move(device)),
      observer_(std::move(observer)),
      gate_(settings.cpu_gate ? settings.cpu_gate : &CpuGate::polling()),
      clock_(clock),
      sources_(sources),
      unsupported_(sources.size(), false),
      marks_(settings.interval,
             TelemetryCapturePolicy{settings.telemetry.capture, settings.telemetry.min_interval,
                                    settings.telemetry.data_area, settings.telemetry.max_capture_bytes()}) {}

void PollWorker::loop() {
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
    bool identify = need_identify_;
    lock.unlock();
    auto outcome = read_device(identify);
    lock.lock();
    if (!alive) return;  // abandoned while in a device command: touch nothing
    // History is keyed by serial: a drive without one has none.
    if (outcome->snapshot && observer_ && !info_->serial.empty()) {
      phase = Phase::observing;
      lock.unlock();
      {
        CpuGate::Pass pass(*gate_);
        outcome->observed = observer_(*info_, *outcome->snapshot);
      }
      lock.lock();
      marks_.error_log_seen = outcome->observed.error_log_seen;
      marks_.telemetry_mark = outcome->observed.telemetry_mark;
    }
    // A capture can be 32 MiB: the observer has saved it; the published
    // snapshot keeps none of it.
    if (outcome->snapshot) outcome->snapshot->telemetry.reset();
    phase = Phase::idle;
    cv.notify_all();
    if (!alive) return;
    need_identify_ = outcome->error.has_value();
    deliver(std::move(outcome));
  }
}

void PollWorker::run_self_test_command(std::unique_lock<std::mutex>& lock) {
  SelfTestCommand command = std::move(*self_test_command);
  self_test_command.reset();
  phase = Phase::device;
  lock.unlock();
  DeviceAdmin& admin = *device_;
  std::optional<Error> answer = command.kind ? admin.start_self_test(*command.kind) : admin.abort_self_test();
  if (!answer) marks_.self_test_pacing.started();
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

void PollWorker::identified_as(const DriveInfo& id) {
  const bool same = info_ && info_->serial == id.serial && info_->model == id.model && info_->firmware == id.firmware;
  if (same) return;
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    unsupported_[i] = false;
    if (sources_[i].reset) sources_[i].reset(marks_);
  }
  optional_log_failures_.clear();
}

std::optional<Error> PollWorker::poll_source(std::size_t row, HealthSnapshot& snap) {
  const LogSource& source = sources_[row];
  const bool read = !unsupported_[row] && (!source.due || source.due(marks_, snap));
  if (!read) {
    if (source.carry) source.carry(marks_, snap);
    return std::nullopt;
  }
  auto error = source.read(LogRead{*device_, *info_, clock_, marks_}, snap);
  if (!error) {
    if (source.need != LogSource::Need::best_effort) optional_log_read(source.name);
    return std::nullopt;
  }
  switch (source.need) {
    case LogSource::Need::required: return error;
    case LogSource::Need::best_effort: log::debug("{}: {}", info_->path, error->message); break;
    case LogSource::Need::learned:
      if (error->reason == ErrorReason::unsupported) {
        log::info("{}: no {}: {}", info_->path, source.name, error->message);
        unsupported_[row] = true;
        break;
      }
      [[fallthrough]];
    case LogSource::Need::optional: optional_log_failed(source.name, *error); break;
  }
  return std::nullopt;
}

std::shared_ptr<PollOutcome> PollWorker::read_device(bool identify) {
  auto out = std::make_shared<PollOutcome>();
  auto t0 = std::chrono::steady_clock::now();
  auto finish = [&] {
    out->duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
  if (identify || !info_) {
    auto id = device_->identify();
    if (!id) {
      out->error = id.error();
      return finish();
    }
    identified_as(*id);
    info_ = *id;
    out->info = *id;
  }
  HealthSnapshot snap;
  for (std::size_t row = 0; row < sources_.size(); ++row) {
    if (auto error = poll_source(row, snap)) {
      out->error = std::move(*error);
      return finish();
    }
  }
  out->snapshot = std::move(snap);
  return finish();
}

void PollWorker::optional_log_failed(std::string_view name, const Error& error) {
  if (optional_log_failures_[std::string(name)].failed(error.reason) == FailureState::Change::none) return;
  log::warn("{}: {} (not logged again until it reads or fails otherwise)", info_->path, error.message);
}

void PollWorker::optional_log_read(std::string_view name) {
  auto it = optional_log_failures_.find(name);
  if (it != optional_log_failures_.end() && it->second.succeeded()) log::info("{}: {} read again", info_->path, name);
}

}  // namespace nvmond
