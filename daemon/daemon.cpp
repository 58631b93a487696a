#include "daemon/daemon.hpp"

#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <systemd/sd-daemon.h>

#include <boost/asio/post.hpp>

#include <csignal>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>

#include "collectors/sim_name.hpp"
#include "sim/sim_device.hpp"
#include "engines/registry.hpp"
#include "core/build_info.hpp"
#include "core/config_reader.hpp"
#include "core/log.hpp"
#include "soak/soak_metrics.hpp"
#include "workloads/target_serial.hpp"
#include "store/history_store.hpp"
#include "store/resilient_store.hpp"
#include "store/resilient_run_store.hpp"
#include "store/sqlite_run_backend.hpp"
#include "services/targets.hpp"
#include "store/sqlite_backend.hpp"
#include "http/server.hpp"
#include "daemon/metrics_endpoint.hpp"
#include "daemon/reload.hpp"
#include "daemon/stale_temporaries.hpp"

namespace nvmond {

std::unique_ptr<Clock> make_clock(const ClockSettings& s, std::optional<WallTime> resume_at) {
  if (!s.accelerated) return std::make_unique<SystemClock>();
  WallTime start = s.start.value_or(std::chrono::system_clock::now());
  if (resume_at && *resume_at > start) start = *resume_at;
  return std::make_unique<AcceleratedClock>(start, s.factor);
}

namespace {
std::mt19937_64& random_engine() {
  static std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

std::optional<WallTime> newest_record(Store& store) {
  auto t = store.latest_sample_time();
  if (!t) {
    log::debug("{}", t.error().message);  // the store logged why
    return std::nullopt;
  }
  return *t;
}
}  // namespace

Daemon::Daemon(DaemonConfig config)
    : signals_(io_, SIGINT, SIGTERM, SIGHUP),
      config_(std::move(config)),
      self_(std::make_shared<prometheus::Registry>()),
      store_errors_(prometheus::BuildCounter()
                        .Name("nvmond_store_errors_total")
                        .Help("Failed attempts to open or use the history store, by reason.")
                        .Register(*self_)),
      lock_(std::make_unique<StateDirLock>(config_.state_dir)),
      store_(open_store(config_.state_dir)),
      store_queued_(prometheus::BuildGauge()
                        .Name("nvmond_store_queued_writes")
                        .Help("Polls waiting for the history store's writer thread.")
                        .Register(*self_)
                        .Add({})),
      store_dropped_(prometheus::BuildCounter()
                         .Name("nvmond_store_dropped_writes_total")
                         .Help("Polls never written to the history store: its write queue was full, or the "
                               "daemon stopped before the store took them.")
                         .Register(*self_)
                         .Add({})),
      store_batches_(prometheus::BuildCounter()
                         .Name("nvmond_store_commits_total")
                         .Help("Transactions the history store's writer committed (each holds every poll "
                               "queued since the last).")
                         .Register(*self_)
                         .Add({})),
      state_files_set_aside_(prometheus::BuildCounter()
                                 .Name("nvmond_state_files_set_aside_total")
                                 .Help("Simulated drives' state files that were damaged, truncated or not the "
                                       "daemon's own (a hard link, another user's): set aside at start, or "
                                       "rebuilt from the drive's state while it ran.")
                                 .Register(*self_)
                                 .Add({})),
      clock_(make_clock(config_.clock, newest_record(*store_))),
      watchdog_(clock_->real_timer(io_)),
      store_metrics_timer_(clock_->real_timer(io_)),
      compaction_(std::make_unique<HistoryCompaction>(io_, *clock_, *store_, config_.analytics.retention)),
      soak_timer_(clock_->real_timer(io_)),
      published_(std::make_shared<PublishedMetrics>()) {
  log::set_level(config_.log_level);
  for (ErrorReason reason : kStoreErrorReasons) store_errors_.Add({{"reason", std::string(to_text(reason))}});
  prometheus::BuildGauge()
      .Name("nvmond_build_info")
      .Help("nvmond version; always 1.")
      .Register(*self_)
      .Add({{"version", build::kVersion}})
      .Set(1);
  http_metrics_ = std::make_unique<http::HttpMetrics>(*self_);
  // Throws if the address cannot be bound: a start-up error, reported by main.
  server_ = std::make_unique<http::Server>(config_.listen, MetricsEndpoint(self_, published_), *http_metrics_,
                                           config_.security ? config_.security : http::open_security());
  use_security();
  remove_stale_temporaries();
  fleet_ = std::make_unique<Fleet>(io_, config_, *clock_, *published_, *store_);
  fleet_->read_throughput(throughput_);
  publish_state_file_metrics();
}

// Before anything of this daemon writes: a temporary still there is one a
// killed or crashed process left. A minute's margin spares the one an
// `nvmonctl report` may be writing into a run's directory right now.
void Daemon::remove_stale_temporaries() {
  const auto removed =
      remove_stale_temporaries_in(config_.state_dir, std::chrono::system_clock::now() - std::chrono::minutes(1));
  auto& counter = prometheus::BuildCounter()
                      .Name("nvmond_stale_temporaries_removed_total")
                      .Help(
                          "Temporary files of writes cut short (by a kill or a crash) that the daemon "
                          "removed from its state directory when it started.")
                      .Register(*self_)
                      .Add({});
  counter.Increment(static_cast<double>(removed.size()));
  if (removed.empty()) return;
  log::warn("state_dir {}: removed {} temporary file(s) left by writes cut short, the first {}", config_.state_dir,
            removed.size(), removed.front());
}

// A Fleet's simulated drives count from zero: a reload's new Fleet starts
// the published count over (publish before dropping the old one).
void Daemon::publish_state_file_metrics() {
  const SimDeviceSource* sims = fleet_ ? fleet_->sim_source() : nullptr;
  const std::uint64_t now = sims ? sims->state_files_set_aside() : 0;
  if (now > sim_set_aside_published_)
    state_files_set_aside_.Increment(static_cast<double>(now - sim_set_aside_published_));
  sim_set_aside_published_ = now;
}

// A corrupt, full, read-only, locked or slow database never stops the
// monitoring (store/history_store.hpp).
std::unique_ptr<StoreWriter> Daemon::open_store(const std::string& dir) {
  HistoryStoreOptions options;
  // A kill -9 loses what is queued: on an accelerated clock no more than a
  // poll's worth of clock time, as on a real one.
  if (config_.clock.accelerated && config_.clock.factor > 1) {
    const auto poll_real =
        std::chrono::duration_cast<std::chrono::milliseconds>(config_.collection.poll_interval / config_.clock.factor);
    options.writer.group_interval = std::min(options.writer.group_interval, poll_real);
  }
  return open_history_store(
      dir, retry_clock_,
      [this](ErrorReason reason) {
        store_errors_.Add({{"reason", std::string(to_text(reason))}}).Increment();
      },
      options);
}

// The writer counts on its own thread; the scrape reads what this copied.
void Daemon::publish_store_metrics() {
  const StoreWriterCounters now = store_->counters();
  store_queued_.Set(static_cast<double>(now.queued));
  store_dropped_.Increment(static_cast<double>(now.dropped - store_published_.dropped));
  store_batches_.Increment(static_cast<double>(now.batches - store_published_.batches));
  store_published_ = now;
}

void Daemon::arm_store_metrics() {
  store_metrics_timer_->arm(std::chrono::seconds(1), [this] {
    publish_store_metrics();
    publish_state_file_metrics();
    arm_store_metrics();
  });
}

// The runs in a file of their own (STATE_DIR/runs.db), behind the same
// resilience as the history: a run store that cannot open now is retried,
// so soaks start once it can; its errors count in the same family.
std::shared_ptr<RunStore> Daemon::open_run_store(const std::string& dir) {
  return std::make_shared<ResilientRunStore>(
      std::make_unique<SqliteRunBackend>(dir), retry_clock_, StoreRetry{}, [this](ErrorReason reason) {
        store_errors_.Add({{"reason", std::string(to_text(reason))}}).Increment();
      });
}

namespace {
std::string scheme_of(const DaemonConfig& c) { return c.security && c.security->tls ? "https" : "http"; }
}  // namespace

Daemon::~Daemon() {
  control_.reset();
  control_worker_.reset();  // its reads use the runner
  soak_control_.reset();
  stop_all();
  server_->stop();
}

// Hands the current web config to the server and says in the log what an
// operator exposing the endpoint should know.
void Daemon::use_security() {
  auto security = config_.security ? config_.security : http::open_security();
  server_->set_security(security);
  bool tls = security->tls != nullptr;
  bool auth = security->auth->enabled();
  if (!config_.web_config.empty()) {
    log::info("web config {}: TLS {}, basic auth {} ({} user(s))", config_.web_config, tls ? "on" : "off",
              auth ? "on" : "off", security->config.users.size());
  }
  if (!http::all_loopback(server_->endpoints()) && (!tls || !auth)) {
    log::warn(
        "metrics endpoint {} accepts connections from other hosts without {}; "
        "set [daemon] web_config (tls_server_config, basic_auth_users)",
        config_.listen,
        !tls && !auth ? "TLS or authentication"
        : !tls        ? "TLS"
                      : "authentication");
  }
}

// Jobs before the drives they write to, pollers before the loop they post to.
void Daemon::stop_all() {
  jobs_.reset();
  fleet_.reset();
}

void Daemon::start_jobs() {
  jobs_ = std::make_unique<JobScheduler>(io_, *clock_, config_.jobs, make_engine_factory(fleet_->sim_source()),
                                         *published_);
  jobs_->report_throughput(throughput_, *clock_);
  jobs_->claim_drives(claims_, [this](const std::string& target) { return job_drive(target); });
  jobs_->start();
}

struct Daemon::SoakTargets {
  std::vector<SimSettings> sims;
  std::shared_ptr<SafetyGuard> guard;
  std::vector<std::shared_ptr<DriveModel>> models;  // the Fleet's live sim drives
};

struct Daemon::SoakTargetsHolder {
  std::mutex mu;
  std::shared_ptr<const SoakTargets> now;
  std::shared_ptr<const SoakTargets> get() {
    std::lock_guard lock(mu);
    return now;
  }
};

void Daemon::publish_soak_targets() {
  auto t = std::make_shared<SoakTargets>();
  t->sims = config_.sims;
  t->guard = soak_guard_;
  if (fleet_ && fleet_->sim_source()) t->models = fleet_->sim_source()->models();
  std::lock_guard lock(soak_targets_->mu);
  soak_targets_->now = std::move(t);
}

void Daemon::start_control() {
  soak_guard_ = std::make_shared<SafetyGuard>(config_.jobs.safety);
  soak_targets_ = std::make_shared<SoakTargetsHolder>();
  publish_soak_targets();
  // Runs on a run's own thread: it reads only the snapshot (and the clock).
  TargetOpener open = [holder = soak_targets_,
                       clock = clock_.get()](const std::string& target) -> Result<OpenedTarget> {
    std::shared_ptr<const SoakTargets> t = holder->get();
    SimModelLookup models = [t](const std::string& serial) -> std::shared_ptr<DriveModel> {
      for (const auto& m : t->models) {
        if (m->spec().serial == serial) return m;
      }
      return nullptr;
    };
    auto opened = open_test_target(target, t->sims, *t->guard, models, clock);
    if (!opened) return opened.error();
    return OpenedTarget{std::move(*opened), t};  // the snapshot keeps the guard that approved it
  };
  auto runner = std::make_unique<SoakRunner>(
      open_run_store(config_.state_dir), config_.state_dir, std::move(open), *clock_, &throughput_,
      [this](std::function<void()> f) { boost::asio::post(io_, std::move(f)); }, &claims_);
  soak_runner_ = runner.get();
  soak_control_ = std::move(runner);
  scheduler_ = std::make_unique<SoakScheduler>(
      *soak_control_,
      [](Duration max) {
        return Duration(std::uniform_int_distribution<Duration::rep>(0, max.count() - 1)(random_engine()));
      },
      &claims_);
  configure_soaks();
  configure_selftests();
  std::set<std::string> names;
  for (const auto& s : config_.soaks) names.insert(s.name);
  soak_runner_->close_orphans(names);
  control_worker_ = std::make_unique<LoopWorker>(io_);
  control_ctx_ = std::make_unique<ControlContext>(ControlContext{
      *soak_control_, *scheduler_, *clock_, [this] { return published_->drives(); }, [this] { soak_tick(); },
      [this](const std::string& serial) { return drive_user(serial); },
      [this](const std::string& path, std::optional<SelfTestKind> kind,
             std::function<void(std::optional<Error>)> done) { operator_self_test(path, kind, std::move(done)); },
      [this](std::function<control::AnyReply()> work, std::function<void(control::AnyReply)> done) {
        control_worker_->submit([work = std::move(work), done = std::move(done)]() -> std::function<void()> {
          return [reply = work(), done]() mutable { done(std::move(reply)); };
        });
      }});
  try {
    control_ = std::make_unique<ControlServer>(
        io_, *clock_, config_.control,
        AsyncControlHandler([this](const control::Request& req, const ControlReply& reply) {
          handle_control(req, *control_ctx_, reply);
        }));
  } catch (const std::exception& e) {
    if (config_.control_explicit) throw;
    log::warn("{}; nvmonctl cannot reach this daemon (set [control] socket)", e.what());
  }
  arm_soak_tick();
}

// Unchanged [[soak]] tables keep their runs (schedule/soak_scheduler.hpp).
void Daemon::configure_soaks() {
  std::vector<SoakEntry> entries;
  for (const auto& s : config_.soaks) entries.push_back(s.entry());
  scheduler_->configure(entries, clock_->wall());
}

// What the scheduler knows of the drives comes from the published
// snapshots; a tick never waits on a device.
void Daemon::soak_tick() {
  // Every second, with no soak scheduled most of the time: the drives are
  // copied, and the sim names mapped, only when a target is looked up.
  std::optional<std::map<std::string, std::string>> sim_serials;
  std::optional<std::vector<DriveSummary>> drives;
  scheduler_->tick(clock_->wall(), [&](const std::string& target) {
    if (!drives) {
      drives = published_->drives();
      sim_serials.emplace();
      for (const auto& s : config_.sims) (*sim_serials)[s.spec.name] = s.spec.serial;
    }
    return drive_for_target(*drives, target, *sim_serials);
  });
  RenderedFamilies soak;
  for (const auto& family : render_soak_metrics(soak_control_->active(), scheduler_->list())) soak.append(family);
  if (!soak_published_ || soak.text() != soak_text_) {
    soak_text_ = soak.text();
    soak_published_ = true;
    published_->publish("soak", std::move(soak));
  }
  if (selftests_) selftests_->tick(clock_->wall());
}

void Daemon::configure_selftests() {
  std::vector<SelfTestPlan> plans;
  for (const auto& s : config_.selftests) plans.push_back({s.name, s.drives, s.kind, s.schedule});
  // The tests in progress keep their drives across the rebuild.
  std::map<std::string, DriveClaim> held;
  if (selftests_) held = selftests_->take_claims();
  selftests_ = std::make_unique<SelfTestScheduler>(
      std::move(plans), config_.max_concurrent_selftests, *store_,
      SelfTestHooks{[this] { return published_->drives(); },
                    [this](const std::string& path, SelfTestKind kind, std::function<void(std::optional<Error>)> done) {
                      send_self_test(path, kind, std::move(done));
                    }},
      &claims_);
  selftests_->adopt(std::move(held));
}

void Daemon::send_self_test(const std::string& path, std::optional<SelfTestKind> kind,
                            std::function<void(std::optional<Error>)> done) {
  if (!fleet_) return done(Error{ErrorReason::absent, path + ": no drives are polled"});
  fleet_->self_test(path, kind, std::move(done));
}

void Daemon::operator_self_test(const std::string& path, std::optional<SelfTestKind> kind,
                                std::function<void(std::optional<Error>)> done) {
  std::optional<DriveSummary> drive;
  for (const auto& d : published_->drives()) {
    if (d.path == path) drive = d;
  }
  // A start holds the drive from before its command until the test ends:
  // a run that opens meanwhile is refused, naming the test.
  auto claim = std::make_shared<DriveClaim>();
  if (kind && drive && selftests_) {
    auto c = selftests_->claim(*drive, *kind, clock_->wall());
    if (!c) return done(c.error());
    *claim = std::move(*c);
  }
  send_self_test(path, kind, [this, kind, drive, claim, done = std::move(done)](std::optional<Error> failed) {
    // An operator's start is remembered beside the schedules' ones, and
    // counts towards max_concurrent_selftests.
    if (!failed && kind && drive && selftests_) {
      selftests_->started_by_operator(*drive, *kind, clock_->wall(), std::move(*claim));
    }
    done(std::move(failed));
  });
}

std::optional<std::string> Daemon::drive_user(const std::string& serial) const {
  // A self-test's own claim refuses another start with its own sentence
  // (SelfTestScheduler::claim): here only what a self-test competes with.
  if (auto use = claims_.holder(serial); use && use->kind != DriveUse::Kind::self_test) return holder_text(*use);
  return std::nullopt;
}

// Jobs start before the first poll has published a drive, so a sim target
// is resolved from the configuration, as the engine factory resolves it.
std::string Daemon::job_drive(const std::string& target) const {
  if (auto key = sim_key(target)) {
    for (const auto& s : config_.sims) {
      if (s.spec.name == *key) return s.spec.serial;
    }
    return *key;
  }
  return target_serial(target);
}

void Daemon::arm_soak_tick() {
  soak_timer_->arm(std::chrono::seconds(1), [this] {
    soak_tick();
    arm_soak_tick();
  });
}

int Daemon::run() {
  fleet_->start();
  start_jobs();
  start_control();
  wait_signal();
  log::info("serving metrics on {}://{}/metrics", scheme_of(config_), config_.listen);
  sd_notify(0, "READY=1");
  notify_status();
  if (sd_watchdog_enabled(0, &watchdog_usec_) > 0) arm_watchdog();
  compaction_->start();
  arm_store_metrics();
  io_.run();
  sd_notify(0, "STOPPING=1");
  log::info("stopped");
  return 0;
}

void Daemon::wait_signal() {
  signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    if (sig == SIGHUP) {
      reload();
      wait_signal();
      return;
    }
    log::info("received {}, stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    watchdog_->cancel();
    compaction_->stop();
    soak_timer_->cancel();
    store_metrics_timer_->cancel();
    control_.reset();
    if (soak_runner_) soak_runner_->shutdown(SoakRunner::kShutdownGrace);
    stop_all();
    // The pollers are gone: flush their last polls, but within the unit's
    // stop timeout whatever the database does.
    store_->stop(kStoreStopTimeout);
    io_.stop();
  });
}

void Daemon::reload() {
  sd_notify(0, "RELOADING=1");
  log::info("reloading {}", config_.file);
  try {
    DaemonConfig next = reloaded_config(config_);
    // Reload restarts every job from zero; the old pollers save their state
    // first. The old jobs' series go: the new run republishes its own. Soak
    // runs go on, on the same simulated drives the new Fleet adopts.
    std::vector<std::shared_ptr<DriveModel>> models;
    if (fleet_ && fleet_->sim_source()) models = fleet_->sim_source()->models();
    publish_state_file_metrics();
    stop_all();
    sim_set_aside_published_ = 0;
    for (const auto& job : config_.jobs.jobs) published_->remove(JobScheduler::metrics_key(job.name));
    config_ = std::move(next);
    log::set_level(config_.log_level);
    use_security();
    fleet_ = std::make_unique<Fleet>(io_, config_, *clock_, *published_, *store_,
                                     std::vector<std::unique_ptr<DeviceSource>>{}, models);
    fleet_->read_throughput(throughput_);
    fleet_->start();
    start_jobs();
    soak_guard_ = std::make_shared<SafetyGuard>(config_.jobs.safety);
    publish_soak_targets();
    configure_soaks();
    configure_selftests();
    log::info("reloaded {}", config_.file);
  } catch (const std::exception& e) {
    log::error("reload rejected, keeping the running configuration: {}", e.what());
  }
  sd_notify(0, "READY=1");
  notify_status();
}

void Daemon::notify_status() {
  sd_notifyf(0, "STATUS=monitoring %zu drive(s) (%zu up), serving %s://%s/metrics", fleet_ ? fleet_->size() : 0,
             fleet_ ? fleet_->up_count() : 0, scheme_of(config_).c_str(), config_.listen.c_str());
}

void Daemon::arm_watchdog() {
  watchdog_->arm(std::chrono::microseconds(watchdog_usec_ / 2), [this] {
    sd_notify(0, "WATCHDOG=1");
    notify_status();
    arm_watchdog();
  });
}

}  // namespace nvmond
