#pragma once
// Process lifecycle: event loop, signals (SIGTERM/SIGINT stop, SIGHUP reload),
// the HTTP metrics endpoint (http/, on its own thread), and systemd
// notification (READY, STATUS, WATCHDOG).
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include <memory>

#include "core/throughput_feed.hpp"
#include "services/config.hpp"
#include "daemon/control/control_commands.hpp"
#include "selftest/self_test_scheduler.hpp"
#include "daemon/control/control_server.hpp"
#include "polling/fleet.hpp"
#include "daemon/history_compaction.hpp"
#include "daemon/job_scheduler.hpp"
#include "daemon/control/loop_worker.hpp"
#include "polling/published_metrics.hpp"
#include "daemon/state_lock.hpp"
#include "soak/soak_runner.hpp"
#include "schedule/drive_claims.hpp"
#include "store/store_writer.hpp"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace nvmond {

namespace http {
class HttpMetrics;
class Server;
}  // namespace http

class Daemon {
 public:
  explicit Daemon(DaemonConfig config);
  ~Daemon();
  // Serves until SIGTERM/SIGINT. Returns the process exit code.
  int run();
  // What a stop gives the history writer to flush, after the soak runs'
  // grace (SoakRunner::kShutdownGrace): both inside TimeoutStopSec=10s.
  static constexpr std::chrono::milliseconds kStoreStopTimeout{2000};

 private:
  void wait_signal();
  void reload();
  void notify_status();
  void arm_watchdog();
  void start_jobs();
  void start_control();
  void configure_soaks();
  void arm_soak_tick();
  void soak_tick();
  void configure_selftests();
  void send_self_test(const std::string& path, std::optional<SelfTestKind> kind,
                      std::function<void(std::optional<Error>)> done);
  // nvmonctl selftest start/abort: claims the drive for a start, sends the
  // command, and answers when the drive's poll thread posts back.
  void operator_self_test(const std::string& path, std::optional<SelfTestKind> kind,
                          std::function<void(std::optional<Error>)> done);
  // What a soak's thread opens its target with: the configuration of now.
  void publish_soak_targets();
  // What a self-test would compete with on this drive (a soak run or a
  // [[job]]): the claims' holder, put in words.
  std::optional<std::string> drive_user(const std::string& serial) const;
  // The serial of the drive a job's target is on ("" for none).
  std::string job_drive(const std::string& target) const;
  void stop_all();
  std::shared_ptr<RunStore> open_run_store(const std::string& dir);
  std::unique_ptr<StoreWriter> open_store(const std::string& dir);
  void arm_store_metrics();
  void publish_store_metrics();
  void publish_state_file_metrics();
  void remove_stale_temporaries();
  void use_security();

  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  DaemonConfig config_;
  std::shared_ptr<prometheus::Registry> self_;
  prometheus::Family<prometheus::Counter>& store_errors_;
  // Taken before the store opens, released after it closes.
  std::unique_ptr<StateDirLock> lock_;
  // Paces the store's retries: how long a disk stays full is real time.
  SystemClock retry_clock_;
  // Writes queue for the store's own thread: no poll, scrape or control
  // command waits on the database.
  std::unique_ptr<StoreWriter> store_;
  prometheus::Gauge& store_queued_;
  prometheus::Counter& store_dropped_;
  prometheus::Counter& store_batches_;
  StoreWriterCounters store_published_;  // what the counters above already hold
  // State files the simulated drives could not take (set aside at start,
  // rebuilt while running); the current Fleet's count already added.
  prometheus::Counter& state_files_set_aside_;
  std::uint64_t sim_set_aside_published_ = 0;
  std::unique_ptr<Clock> clock_;
  // Every timer comes from clock_: compaction counts clock hours; the
  // watchdog (systemd's) and the soak tick count real time.
  std::unique_ptr<Timer> watchdog_;
  std::unique_ptr<Timer> store_metrics_timer_;  // real time: copies the writer's counters
  std::unique_ptr<HistoryCompaction> compaction_;
  std::unique_ptr<Timer> soak_timer_;
  // What soak_tick() published last: republished only when it changes.
  std::string soak_text_;
  bool soak_published_ = false;
  std::shared_ptr<PublishedMetrics> published_;
  // Declared before the server that counts into it.
  std::unique_ptr<http::HttpMetrics> http_metrics_;
  std::unique_ptr<http::Server> server_;
  // Workloads (jobs, soaks) report their throughput here; the Fleet's drive
  // analytics read it. Outlives both, across reloads.
  ThroughputFeed throughput_;
  // Who uses each drive (soak runs, jobs, self-tests): every starter asks it,
  // on the event loop or (a soak run's claim) its own thread. Declared before
  // everything that holds a claim.
  DriveClaims claims_;
  std::unique_ptr<Fleet> fleet_;
  // Sim jobs drive the Fleet's drive models: destroyed before the Fleet.
  std::unique_ptr<JobScheduler> jobs_;
  // What approves soak targets; each run keeps the guard it was opened
  // with across reloads.
  std::shared_ptr<SafetyGuard> soak_guard_;
  // What a run's thread opens its target with (sims, guard, live sim
  // models), replaced whole on reload: the loop writes it, run threads read.
  struct SoakTargets;
  struct SoakTargetsHolder;
  std::shared_ptr<SoakTargetsHolder> soak_targets_;
  // PTS runs (a SoakRunner on a run store that retries until it opens),
  // what schedules them, and the socket nvmonctl asks them through. The
  // scheduler ticks on the loop. Runs outlive reloads and hold their sim
  // models themselves, so the Fleet can be replaced under them.
  std::unique_ptr<SoakControl> soak_control_;
  SoakRunner* soak_runner_ = nullptr;  // soak_control_
  std::unique_ptr<SoakScheduler> scheduler_;
  // [[selftest]] schedules; rebuilt on reload (what they started is in the store).
  std::unique_ptr<SelfTestScheduler> selftests_;
  std::unique_ptr<ControlContext> control_ctx_;
  // Run store reads for nvmonctl history/show, off the loop.
  std::unique_ptr<LoopWorker> control_worker_;
  std::unique_ptr<ControlServer> control_;
  std::uint64_t watchdog_usec_ = 0;
};

// `resume_at`: for an accelerated clock, the newest recorded time, so that a
// restarted simulation continues its history instead of rewinding it.
std::unique_ptr<Clock> make_clock(const ClockSettings& s, std::optional<WallTime> resume_at);

}  // namespace nvmond
