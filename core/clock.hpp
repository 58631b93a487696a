#pragma once
// Every timer, round and rate in nvmond reads time through a Clock, so tests
// can run days of drive life in seconds.
//
// wall(): calendar time, stored in history and used for rates across restarts.
// to_real(): how long the process must really wait for `d` of clock time
// (identity for the system clock, d/factor for an accelerated one). Timers in
// the daemon are armed with to_real(interval).
#include <chrono>
#include <cstdint>
#include <mutex>

namespace nvmond {

using WallTime = std::chrono::system_clock::time_point;
using Duration = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual WallTime wall() const = 0;
  virtual Duration to_real(Duration d) const { return d; }
};

class SystemClock final : public Clock {
 public:
  WallTime wall() const override { return std::chrono::system_clock::now(); }
};

// Runs `factor` times faster than real time from `start`. Used by demos and
// long-horizon integration tests (30 days of wear in seconds).
class AcceleratedClock final : public Clock {
 public:
  AcceleratedClock(WallTime start, double factor);
  WallTime wall() const override;
  Duration to_real(Duration d) const override;
  double factor() const { return factor_; }

 private:
  WallTime start_;
  std::chrono::steady_clock::time_point real_start_;
  double factor_;
};

// Moves only when told to. Thread-safe: tests advance it from the test thread
// while pollers read it.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(WallTime start = WallTime{} + std::chrono::hours(24 * 365 * 56));
  WallTime wall() const override;
  Duration to_real(Duration) const override { return Duration::zero(); }
  void advance(Duration d);
  void set(WallTime t);

 private:
  mutable std::mutex mu_;
  WallTime now_;
};

// Nanoseconds since the Unix epoch: how clock times are stored (the SQLite
// history, state files) and how simulated engines keep integer time.
inline std::int64_t to_unix_ns(WallTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
inline WallTime from_unix_ns(std::int64_t ns) {
  return WallTime{} + std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(ns));
}

// Seconds as double: the unit of every rate and exported duration.
inline double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
inline Duration from_seconds(double s) {
  return std::chrono::round<Duration>(std::chrono::duration<double>(s));
}

}  // namespace nvmond
