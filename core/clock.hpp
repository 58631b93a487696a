#pragma once
// Every timer, round and rate in nvmond reads time through a Clock, so tests
// can run days of drive life in seconds.
//
// wall(): calendar time, stored in history and used for rates across restarts.
// to_real(): how long the process must really wait for `d` of clock time
// (identity for the system clock, d/factor for an accelerated one).
// timer() / real_timer(): the daemon's timers come from its Clock, so a test
// on a ManualClock fires them by advancing it, without sleeping.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <mutex>
#include <vector>

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace nvmond {

using WallTime = std::chrono::system_clock::time_point;
using Duration = std::chrono::nanoseconds;

// One pending call on an io_context. Arming again replaces the pending call;
// cancel() and destruction drop it (the call never runs afterwards). The call
// runs on a thread running the io_context, never inside arm() or cancel().
//
// Thread-safety: use one Timer from one thread (its io_context's). The
// io_context and the Clock must outlive the Timer, as with an Asio timer.
class Timer {
 public:
  virtual ~Timer() = default;
  virtual void arm(Duration after, std::function<void()> call) = 0;
  virtual void cancel() = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual WallTime wall() const = 0;
  virtual Duration to_real(Duration d) const { return d; }
  // A timer counting clock time: an accelerated clock fires it `factor`
  // times sooner than real time (poll ticks, compaction).
  virtual std::unique_ptr<Timer> timer(boost::asio::io_context& io) const;
  // A timer counting real time whatever the clock's pace: waits that are about
  // the hardware, not about simulated drive life (command deadlines, rescans).
  // A ManualClock drives these too: a test has no other time.
  virtual std::unique_ptr<Timer> real_timer(boost::asio::io_context& io) const;
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
//
// Its timers (both kinds) fire only when the clock reaches them, the way
// Envoy's simulated time does: advance() and set() post every due call to
// its io_context in due order, and the test runs them with io.poll() or
// io.run_one(). A timer armed with a zero or negative delay is due at once.
// A call that re-arms its timer counts from the time it runs at, so one
// advance() fires each timer at most once. An armed timer keeps its
// io_context busy, as a real one would: io.run() does not return while one is
// armed.
class ManualClock final : public Clock {
 public:
  // The clock must outlive its timers and the calls they posted.
  explicit ManualClock(WallTime start = WallTime{} + std::chrono::hours(24 * 365 * 56));
  WallTime wall() const override;
  Duration to_real(Duration) const override { return Duration::zero(); }
  std::unique_ptr<Timer> timer(boost::asio::io_context& io) const override;
  std::unique_ptr<Timer> real_timer(boost::asio::io_context& io) const override { return timer(io); }
  void advance(Duration d);
  void set(WallTime t);
  // Timers armed and not yet fired or cancelled.
  std::size_t armed_timers() const;

 private:
  struct Pending;  // one timer's state, shared with its posted call
  class ManualTimer;
  void fire_due(std::unique_lock<std::mutex>& lock) const;

  mutable std::mutex mu_;
  WallTime now_;
  mutable std::vector<std::weak_ptr<Pending>> timers_;
};

// Nanoseconds since the Unix epoch: how clock times are stored (the SQLite
// history, state files) and how simulated engines keep integer time.
inline std::int64_t to_unix_ns(WallTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
inline WallTime from_unix_ns(std::int64_t ns) {
  return WallTime{} + std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(ns));
}

// "20261201T041800Z": the UTC second of `t`, compact, for names a person
// reads and that sort by time (operator runs, a set-aside database).
std::string utc_stamp(WallTime t);

// Seconds as double: the unit of every rate and exported duration.
inline constexpr double kSecondsPerDay = 86'400;  // a drive-writes-per-day day
inline double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
inline Duration from_seconds(double s) { return std::chrono::round<Duration>(std::chrono::duration<double>(s)); }

}  // namespace nvmond
