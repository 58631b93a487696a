#include "polling/poller.hpp"

#include <pthread.h>

#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "drivelog/nvme_exports.hpp"
#include "polling/poll_worker.hpp"

namespace nvmond {
int DevicePoller::abandoned_threads() { return PollWorker::abandoned(); }

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
      worker_(std::make_shared<PollWorker>(std::move(device), settings_, clock, std::move(observer))),
      tick_(clock.timer(io)),
      deadline_(clock.real_timer(io)) {
  // The handler may run after this poller is gone (a reload destroys pollers
  // while the loop keeps running): the weak token tells.
  std::weak_ptr<int> token = token_;
  worker_->deliver = [this, &io, token](std::shared_ptr<PollOutcome> o) {
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
        Error{ErrorReason::stopped, fmt::format("{}: device self-test ({}): the drive's poller was replaced (a "
                                                "reload) before the drive "
                                                "answered; `nvmonctl selftest status` shows whether it started",
                                                path_, self_test_pending_->what)});
  }
  if (self_test_pending_ && self_test_pending_->deadline) self_test_pending_->deadline->cancel();
  out_.remove(path_);
  PollWorker::stop(worker_, path_);
}

void DevicePoller::self_test(std::optional<SelfTestKind> kind, std::function<void(std::optional<Error>)> done) {
  const char* what = kind ? self_test_kind_name(*kind) : "abort";
  if (self_test_pending_ && !self_test_pending_->answered) {
    return done(Error{ErrorReason::busy, fmt::format("{}: device self-test ({}): another "
                                                     "self-test command is waiting; not sent",
                                                     path_, what)});
  }
  static std::uint64_t next_id = 0;
  auto pending = std::make_shared<PendingSelfTest>();
  pending->id = ++next_id;
  pending->what = what;
  pending->done = std::move(done);
  {
    std::lock_guard lock(worker_->mu);
    if (!worker_->thread.joinable()) {
      return pending->answer(
          Error{ErrorReason::timeout, fmt::format("{}: device self-test ({}): an earlier command has "
                                                  "still not returned; not sent",
                                                  path_, what)});
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
      waiting->answer(Error{ErrorReason::timeout, fmt::format("{}: device self-test ({}): the drive was busy in "
                                                              "another command for {:.3g} s; not sent",
                                                              path_, waiting->what, seconds(settings_.timeout))});
    } else {
      waiting->answer(Error{ErrorReason::timeout, fmt::format("{}: device self-test ({}): no answer within {:.3g} s; "
                                                              "`nvmonctl selftest status` shows whether it started",
                                                              path_, waiting->what, seconds(settings_.timeout))});
    }
  });
}

void DevicePoller::start() {
  stuck_predecessor_ = PollWorker::stuck_at(path_);
  if (stuck_predecessor_.expired()) {
    start_thread();
  } else {
    log::warn(
        "{}: a command sent before the reload has not returned; polling "
        "resumes when it does",
        path_);
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

void DevicePoller::on_outcome(std::shared_ptr<PollOutcome> o) {
  bool late = deadline_passed_;
  in_flight_ = false;
  deadline_passed_ = false;
  deadline_->cancel();
  stats_.last_duration_s = o->duration_s;
  ++stats_.polls;
  if (o->info) {
    if (info_ && info_->serial != o->info->serial) media_path_errors_.reset();
    if (!info_ || info_->serial != o->info->serial) id_ = LabelPrefix::of({{"serial", o->info->serial}});
    info_ = *o->info;
    if (info_->serial.empty()) {
      log::error(
          "{}: identified without a serial number ({}); reported under "
          "its path only",
          path_, info_->model);
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
  stats_.last_success_unix = seconds(o->snapshot->taken.time_since_epoch());
  add_health(*o->snapshot, id_, health_set_);
  snapshot_ = std::move(o->snapshot);
  throttling_ = o->observed.throttling;
  if (o->observed.media_path_errors) media_path_errors_ = o->observed.media_path_errors;
  observed_conditions_ = std::move(o->observed.conditions);
  publish(&o->observed.families);
}

void DevicePoller::record_failure(const Error& error) {
  ++stats_.errors_by_reason[error.reason];
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
  stats_.add_to(id, set);
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
