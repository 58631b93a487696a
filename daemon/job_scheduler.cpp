#include "daemon/job_scheduler.hpp"

#include "core/log.hpp"
#include "metrics/metric_set.hpp"
#include "workloads/target_serial.hpp"
#include "workloads/workload_metrics.hpp"

namespace nvmond {

JobScheduler::JobScheduler(boost::asio::io_context& io, const Clock& clock, JobsConfig config, EngineFactory factory,
                           PublishedMetrics& out, Duration publish_interval, SystemRoots roots)
    : guard_(std::move(config.safety), std::move(roots)),
      factory_(std::move(factory)),
      out_(out),
      interval_(publish_interval),
      timer_(clock.real_timer(io)),
      clock_(&clock) {
  for (auto& spec : config.jobs) {
    auto job = std::make_unique<Job>();
    job->runner = std::make_unique<JobRunner>(std::move(spec), factory_, &guard_);
    jobs_.push_back(std::move(job));
  }
}

JobScheduler::~JobScheduler() {
  timer_->cancel();
  stop();
  for (auto& job : jobs_) {
    if (job->started && !job->collected) collect(*job);
  }
}

void JobScheduler::report_throughput(ThroughputSink& sink, const Clock& clock) {
  throughput_ = &sink;
  clock_ = &clock;
}

void JobScheduler::claim_drives(DriveClaims& claims, std::function<std::string(const std::string& target)> serial_of) {
  claims_ = &claims;
  serial_of_ = std::move(serial_of);
}

void JobScheduler::start() {
  for (auto& job : jobs_) {
    if (job->started) continue;
    Job* j = job.get();
    const JobSpec& spec = j->runner->spec();
    j->started = true;
    if (claims_ != nullptr) {
      const std::string serial = serial_of_ ? serial_of_(spec.target) : target_serial(spec.target);
      if (!serial.empty()) {
        auto claim = claims_->claim(serial, DriveUse{DriveUse::Kind::job, spec.name, clock_->wall()});
        if (!claim) {
          // Collected at the next tick like a job that ended: published as
          // failed, and logged there once.
          RunResult refused;
          refused.failure = claim.error();
          j->result = std::move(refused);
          j->done.store(true, std::memory_order_release);
          continue;
        }
        j->claim = std::move(*claim);
      }
    }
    log::info("job {}: starting {} on {} ({})", spec.name, spec.engine, spec.target,
              spec.writes() ? "writes" : "read-only");
    publish(*j);
    j->thread = std::thread([j] {
      RunResult r = j->runner->run();
      j->result = std::move(r);
      j->done.store(true, std::memory_order_release);
    });
  }
  arm();
}

void JobScheduler::stop() {
  stopping_ = true;
  for (auto& job : jobs_) job->runner->stop();
}

std::size_t JobScheduler::running() const {
  std::size_t n = 0;
  for (const auto& job : jobs_) n += job->started && !job->collected ? 1 : 0;
  return n;
}

const RunResult* JobScheduler::result(const std::string& name) const {
  for (const auto& job : jobs_) {
    if (job->collected && job->runner->spec().name == name && job->result) return &*job->result;
  }
  return nullptr;
}

void JobScheduler::arm() {
  timer_->arm(interval_, [this] { tick(); });
}

void JobScheduler::tick() {
  bool any = false;
  for (auto& job : jobs_) {
    if (!job->started || job->collected) continue;
    if (job->done.load(std::memory_order_acquire)) {
      collect(*job);
    } else {
      publish(*job);
      any = true;
    }
  }
  if (any) arm();
}

void JobScheduler::publish(Job& job) {
  RunSnapshot snap = job.runner->snapshot();
  const bool finished = job.collected;
  // Before the runner's first aggregation (about a second) its snapshot is empty.
  snap.job = job.runner->spec().name;
  snap.serial = target_serial(job.runner->spec().target);
  // Before `running` is overwritten: the runner's last snapshot (false) covers
  // the drain at the end, whose slower tail is no throttling.
  report(job, snap);
  snap.running = !finished;
  auto families = render_workload_metrics(std::span<const RunSnapshot>(&snap, 1));
  static constexpr Family kFailed{"nvmond_workload_failed", Family::gauge,
                                  "1 if the workload was refused by the safety guard or could not start."};
  MetricSet extra;
  extra.add(kFailed, workload_labels(snap), finished && job.result && job.result->failure ? 1.0 : 0.0);
  for (auto& f : extra.take()) families.push_back(std::move(f));
  out_.publish(metrics_key(snap.job), std::move(families));
}

void JobScheduler::report(Job& job, const RunSnapshot& snap) {
  if (throughput_ == nullptr || !snap.running || snap.serial.empty() || snap.intervals == job.reported_intervals) {
    return;
  }
  job.reported_intervals = snap.intervals;
  const JobSpec& spec = job.runner->spec();
  // The sim engine keeps the clock's own time (ns since the epoch); real
  // engines keep the monotonic clock, which runs at the system clock's pace.
  WallTime end = snap.time_base == EngineTime::clock
                     ? from_unix_ns(snap.interval_end_ns)
                     : clock_->wall() - (std::chrono::steady_clock::now().time_since_epoch() -
                                         std::chrono::nanoseconds(snap.interval_end_ns));
  WorkloadThroughput x;
  x.serial = snap.serial;
  x.workload = metrics_key(spec.name);
  x.interval_end = end;
  x.interval = snap.interval;
  for (const auto& op : snap.op) x.bytes_per_second += op.bytes_per_second;
  // A verify job writes, then reads: two workloads under one name.
  x.fixed = !spec.verify;
  throughput_->report(std::move(x));
}

void JobScheduler::collect(Job& job) {
  if (job.thread.joinable()) job.thread.join();
  job.claim.release();  // its I/O has ended
  job.collected = true;
  publish(job);
  const std::string& name = job.runner->spec().name;
  if (!job.result) return;
  const RunResult& r = *job.result;
  if (r.failure) {
    log::error("job {}: {} ({})", name, r.failure->message, to_text(r.failure->reason));
    return;
  }
  const double secs = seconds(r.elapsed);
  const auto& rd = r.op[static_cast<int>(IoOp::read)];
  const auto& wr = r.op[static_cast<int>(IoOp::write)];
  log::info("job {}: {} after {:.3g} s: read {} B in {} I/Os, wrote {} B in {} I/Os, {} errors", name,
            stopping_ ? "stopped" : "done", secs, rd.bytes, rd.ops, wr.bytes, wr.ops, r.total_errors());
  if (r.total_errors() > 0 || r.verify_failures > 0) {
    log::warn("job {}: {} I/O errors, {} verify mismatches", name, r.total_errors(), r.verify_failures);
  }
}

}  // namespace nvmond
