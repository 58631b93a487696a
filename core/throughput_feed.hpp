#pragma once
// Running workloads tell the drives' analytics how fast they go: one sample
// per interval (a [[job]]'s second, a PTS round), per drive serial. The
// analytics take them on the drive's poll, where the composite temperature
// and WCTEMP are known, and infer throttling from a throughput drop
// (analytics/performance_throttle.hpp).
//
// Writers see only ThroughputSink; the daemon owns one ThroughputFeed for
// its whole life (reloads included) and hands it to both sides. A PTS soak
// reports once per finished round, on the daemon's clock (the one the
// pollers stamp snapshots with; a sample dated later waits for a poll that
// reaches it):
//
//   sink.report({.serial = serial, .workload = "soak:" + run_name,
//                .interval_end = clock.wall(), .interval = round_length,
//                .bytes_per_second = round_bytes / seconds(round_length), .fixed = true});
//
// `workload` names what stays the same: a test whose rounds change block
// size or mix names each round's parameters (or says fixed = false), so a
// change starts a fresh baseline instead of reading as throttling.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace nvmond {

struct WorkloadThroughput {
  std::string serial;  // the drive the workload runs on ("" : not a drive, ignored)
  // Names one workload; another name on the same drive is another workload,
  // and the analytics start a fresh baseline for it.
  std::string workload;
  WallTime interval_end{};      // clock time (Clock::wall) at the end of the interval
  Duration interval{};          // its length, clock time
  double bytes_per_second = 0;  // host bytes read + written over the interval
  // True when the workload issued the same I/O (pattern, block size, queue
  // depth, rate caps) all through: only then is a drop the drive's doing.
  // A false sample ends the current baseline.
  bool fixed = false;
};

class ThroughputSink {
 public:
  virtual ~ThroughputSink() = default;
  // Any thread; never blocks on I/O.
  virtual void report(WorkloadThroughput sample) = 0;
};

// Thread-safe: report() from workload threads, take() from pollers.
class ThroughputFeed final : public ThroughputSink {
 public:
  // A drive nobody polls (or a poller that stalls) keeps at most
  // `per_drive_limit` samples: the oldest go first and are counted.
  explicit ThroughputFeed(std::size_t per_drive_limit = 4096) : limit_(per_drive_limit) {}
  void report(WorkloadThroughput sample) override;
  // Removes and returns the samples of `serial` whose interval ended at or
  // before `upto`, oldest first; later ones wait for the next poll.
  std::vector<WorkloadThroughput> take(const std::string& serial, WallTime upto);
  std::uint64_t dropped() const;

 private:
  const std::size_t limit_;
  mutable std::mutex mu_;
  std::map<std::string, std::deque<WorkloadThroughput>> by_serial_;
  std::uint64_t dropped_ = 0;
};

}  // namespace nvmond
