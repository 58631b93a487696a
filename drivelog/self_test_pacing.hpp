#pragma once
// When a poller reads a drive's Device Self-test log (06h): every poll while
// a test runs (its progress moves) and at the poll after nvmond starts one,
// otherwise once per kIdleSelfTestRead of clock time, rounded to whole
// polls, so a test someone else started (nvme-cli, the drive's own schedule)
// shows up within that time without asking an idle drive on every poll.
// Between reads the poller carries the last log it read.
//
// Thread-safety: none; the poller's worker thread owns it.
#include <cstdint>

#include "collectors/health.hpp"
#include "core/clock.hpp"

namespace nvmond {

inline constexpr Duration kIdleSelfTestRead = std::chrono::minutes(10);

class SelfTestPacing {
 public:
  explicit SelfTestPacing(Duration poll_interval);
  // Asked once per poll: read the log now?
  bool due();
  // What the read found.
  void read(const SelfTestLog& log);
  // A test was started (or aborted): read at the next poll.
  void started() { due_now_ = true; }
  // Another drive may be behind the path: read at the next poll.
  void reset() { due_now_ = true; }
  // Polls between two reads of an idle drive's log.
  std::uint64_t idle_polls() const { return idle_polls_; }

 private:
  std::uint64_t idle_polls_;
  std::uint64_t since_read_ = 0;
  bool due_now_ = true;  // the first poll reads
  bool running_ = false;
};

}  // namespace nvmond
