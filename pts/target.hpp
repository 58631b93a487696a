#pragma once
// The boundary a PTS run works through: one target (a simulated drive, or a
// block device or file through io_uring) that can run one element of a round,
// purge itself, and report its identity, health and time. The executor above
// it is the same for both, so the daemon and `nvmonctl test run` share it.
//
// Thread-safety: one run uses a target from one thread; stop() may be called
// from any thread and makes the running element end at its next I/O.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "pts/plan.hpp"
#include "runmodel/run_header.hpp"
#include "workloads/run_result.hpp"

namespace nvmond {

// What the target can tell about its volatile write cache.
struct WriteCacheState {
  std::optional<bool> enabled;  // nullopt: the target cannot tell
  std::string source;           // how it was learnt, or why it cannot be
};

// What one element of one round measured.
struct Measurement {
  Duration elapsed{};
  std::array<OpTotals, kIoOpCount> op{};
  std::optional<double> temp_min_c, temp_max_c;
  double throttled_seconds = 0;
  bool stopped = false;  // stop() cut it short: not a finished round
  // A sequential element: where its streams stopped, the cursor its next run
  // starts from (empty: the target does not track one).
  SequentialCursor cursor;
  // A sequential element: the bytes each of its streams wrote (empty: the
  // target does not tell them apart).
  std::vector<std::uint64_t> written_by_stream;
};

class TestTarget {
 public:
  virtual ~TestTarget() = default;
  // Who the drive is and its limits; its tested range is the plan's to set.
  virtual TargetRecord identity() const = 0;
  virtual bool simulated() const = 0;
  // nullopt: destructive tests may write here; else the refusal, before any I/O.
  virtual std::optional<Error> check_destructive() const = 0;
  virtual Result<PurgeRecord> purge() = 0;
  // Runs `e` on the first `range_bytes` of the target, at most `max_bytes`
  // written when given. A sequential element starts at `from`, the cursor
  // its previous run returned (empty: at the start of the range), so that
  // runs of one element together sweep the whole range, wrapping at its end.
  virtual Result<Measurement> run(const Element& e, std::uint64_t range_bytes, std::optional<std::uint64_t> max_bytes,
                                  const SequentialCursor& from) = 0;
  // The host leaves the target alone for `d`: no I/O at all (PTS HIR's wait
  // states, when a drive may collect garbage in the background). Returns at
  // once after stop(); the error when the target cannot be left idle.
  virtual std::optional<Error> idle(Duration /*d*/) {
    return Error{ErrorReason::unsupported, "the target cannot be left idle"};
  }
  // The drive's health log as it reads now; nullopt when the target has none
  // (a file, a block device that is no NVMe namespace).
  virtual std::optional<SmartRecord> health() = 0;
  virtual WriteCacheState write_cache() { return {std::nullopt, "the target cannot tell"}; }
  // Enables or disables the volatile write cache for the run; "unsupported"
  // where the target has none to set or cannot.
  virtual std::optional<Error> set_write_cache(bool /*enabled*/) {
    return Error{ErrorReason::unsupported, "the target's write cache cannot be set"};
  }
  // The target's time: simulated time for a simulated drive.
  virtual WallTime now() const = 0;
  virtual void stop() = 0;
  // Undoes stop(): a paused run resuming on the same target.
  virtual void restart() = 0;
  // Simulated targets: the drive's state after the last finished round,
  // stored with it so that a resumed run continues from exactly there.
  virtual std::string checkpoint() const { return {}; }
  virtual std::optional<Error> restore(const std::string&) { return std::nullopt; }
};

}  // namespace nvmond
