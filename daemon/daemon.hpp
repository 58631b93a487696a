#pragma once
// Process lifecycle: event loop, signals (SIGTERM/SIGINT stop, SIGHUP reload),
// the HTTP metrics endpoint (daemon/http, on its own thread), and systemd notification (READY, STATUS, WATCHDOG).
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <prometheus/counter.h>
#include <prometheus/family.h>

#include <memory>

#include "daemon/config.hpp"
#include "daemon/fleet.hpp"
#include "daemon/job_scheduler.hpp"
#include "daemon/published_metrics.hpp"
#include "daemon/state_lock.hpp"
#include "daemon/store/store.hpp"

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

 private:
  void wait_signal();
  void reload();
  void notify_status();
  void arm_watchdog();
  void arm_compaction();
  void start_jobs();
  void stop_all();
  std::unique_ptr<Store> open_store(const std::string& dir);
  void use_security();

  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer watchdog_;
  boost::asio::steady_timer compaction_;
  DaemonConfig config_;
  std::shared_ptr<prometheus::Registry> self_;
  prometheus::Family<prometheus::Counter>& store_errors_;
  // Taken before the store opens, released after it closes.
  std::unique_ptr<StateDirLock> lock_;
  // Paces the store's retries: how long a disk stays full is real time.
  SystemClock retry_clock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Clock> clock_;
  std::shared_ptr<PublishedMetrics> published_;
  // Declared before the server that counts into it.
  std::unique_ptr<http::HttpMetrics> http_metrics_;
  std::unique_ptr<http::Server> server_;
  std::unique_ptr<Fleet> fleet_;
  // Sim jobs drive the Fleet's drive models: destroyed before the Fleet.
  std::unique_ptr<JobScheduler> jobs_;
  std::uint64_t watchdog_usec_ = 0;
};

// `resume_at`: for an accelerated clock, the newest recorded time, so that a
// restarted simulation continues its history instead of rewinding it.
std::unique_ptr<Clock> make_clock(const ClockSettings& s, std::optional<WallTime> resume_at);

}  // namespace nvmond
