#pragma once
// Runs the configured workloads inside the daemon and publishes their live
// numbers. Each job gets its own thread running a JobRunner (whose workers
// start their own threads); the event-loop side republishes every job's
// snapshot once per `publish_interval` under the key "job:<name>" and, once a
// job's thread is done, joins it, logs its result and publishes its final
// numbers (nvmond_workload_running 0), which stay published.
//
//   nvmond_workload_*{workload,...}          see workloads/workload_metrics.hpp
//   nvmond_workload_failed{workload}         gauge: 1 if the job was refused by the
//                                       safety guard or could not start
//
// All jobs start at start() and run once (to their runtime/bytes budget).
// A job on a drive (its target's serial, `serial_of`) claims it in the
// daemon's DriveClaims before its thread starts and holds it until it is
// collected, so a soak run or a self-test waits for it (or is refused) as it
// would for another run. A job whose drive is held already does not start: it
// fails at once, naming the holder (nvmond_workload_failed 1), since a job
// runs once and a second writer would spoil both measurements.
// Destruction stops every job (JobRunner::stop), joins, and publishes the final
// numbers: it returns within about one I/O's latency, so SIGTERM and reload
// never wait for a job's budget.
//
// The publish timer is the clock's real_timer: the runners merge their numbers
// once a second of real time whatever the clock's pace, and a test on a
// ManualClock publishes by advancing it.
//
// Thread-safety: the public methods are for the event-loop thread. `clock`,
// `factory` (and what it references: the simulated drives) and `out` must
// outlive the scheduler.
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/throughput_feed.hpp"
#include "schedule/drive_claims.hpp"
#include "workloads/jobs_config.hpp"
#include "polling/published_metrics.hpp"
#include "workloads/runner.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

class JobScheduler {
 public:
  // `factory`: make_engine_factory (engines/registry.hpp) over the daemon's drives.
  JobScheduler(boost::asio::io_context& io, const Clock& clock, JobsConfig config, EngineFactory factory,
               PublishedMetrics& out, Duration publish_interval = std::chrono::seconds(1), SystemRoots roots = {});
  ~JobScheduler();
  JobScheduler(const JobScheduler&) = delete;
  JobScheduler& operator=(const JobScheduler&) = delete;

  // Starts every job on its own thread and the publish timer. Once only.
  void start();
  // Asks every job to stop issuing I/O; returns at once. Their final numbers
  // are published when the event loop (or the destructor) collects them.
  void stop();

  // Before start(): report every running job's throughput, once per measured
  // interval, to `sink` (the drives' performance-inferred throttling), with
  // interval ends in `clock` time. Both must outlive the scheduler.
  void report_throughput(ThroughputSink& sink, const Clock& clock);

  // Before start(): the jobs claim their drives in `claims` (which must
  // outlive the scheduler), the drive of a target being `serial_of(target)`
  // ("" for none: a file); unset, target_serial.
  void claim_drives(DriveClaims& claims, std::function<std::string(const std::string& target)> serial_of = {});

  std::size_t size() const { return jobs_.size(); }
  // Jobs started and not yet collected.
  std::size_t running() const;
  // The result of a finished, collected job; nullopt while it runs or if unknown.
  const RunResult* result(const std::string& name) const;

  static std::string metrics_key(const std::string& job) { return "job:" + job; }

 private:
  struct Job {
    std::unique_ptr<JobRunner> runner;
    std::thread thread;
    std::atomic<bool> done{false};    // set by the job thread after `result`
    std::optional<RunResult> result;  // written by the job thread, read after done
    bool started = false;
    bool collected = false;
    std::uint64_t reported_intervals = 0;
    DriveClaim claim;  // its drive, from start() until collected
  };
  void tick();
  void arm();
  void publish(Job& job);
  void report(Job& job, const RunSnapshot& snap);
  void collect(Job& job);

  SafetyGuard guard_;
  EngineFactory factory_;
  PublishedMetrics& out_;
  Duration interval_;
  std::unique_ptr<Timer> timer_;
  std::vector<std::unique_ptr<Job>> jobs_;
  ThroughputSink* throughput_ = nullptr;
  const Clock* clock_ = nullptr;
  DriveClaims* claims_ = nullptr;
  std::function<std::string(const std::string& target)> serial_of_;
  bool stopping_ = false;
};

}  // namespace nvmond
