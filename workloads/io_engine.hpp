#pragma once
// The IoEngine boundary: submit and reap block I/O against one target, in the
// style of fio's engines (prepare/queue/commit/reap). Engines are thin: the
// runner owns the I/O units and buffers and does all accounting (latency,
// counters, short-I/O resubmission, verification).
//
// Thread-safety: one engine instance per worker thread, used only by that
// thread from setup() on (io_uring rings are created single-issuer).
#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/io_op.hpp"
#include "core/result.hpp"

namespace nvmond {

// Which time an engine's now_ns() counts, so whoever turns a run's interval
// ends into calendar time asks the engine instead of guessing from its name.
enum class EngineTime {
  monotonic,  // the real monotonic clock (real devices and files)
  clock,      // the daemon's Clock, ns since the Unix epoch (simulated time)
};

// One I/O in flight. Owned by the runner (a fixed array per worker, so no
// allocation per I/O); its address is the completion token.
struct IoUnit {
  // What the engine submits.
  IoOp op = IoOp::read;
  std::uint16_t buffer = 0;   // index into the buffers given to setup()
  std::uint32_t length = 0;   // bytes of this submission
  std::uint64_t offset = 0;   // bytes into the target
  std::byte* data = nullptr;  // inside buffers[buffer]
  // Runner bookkeeping (engines leave these alone).
  std::uint32_t total = 0;  // bytes of the whole I/O (differs from length after a short I/O)
  std::uint32_t done = 0;
  std::uint64_t start_offset = 0;
  std::int64_t issue_ns = 0;  // engine time just before queue() of its first submission
  bool verify_read = false;
};

struct IoCompletion {
  IoUnit* unit = nullptr;
  std::int32_t result = 0;  // bytes transferred, or -errno
  // Engine time (now_ns()) at which the engine saw this completion: each one
  // is stamped on its own, never once per batch, so an I/O's latency is
  // done_ns - issue_ns however many others were reaped with it.
  std::int64_t done_ns = 0;
};

struct EngineSetup {
  std::string target;  // for messages only: engines never open it
  // The target as the safety guard opened and approved it (read-only or
  // read-write, O_DIRECT as the job asked), borrowed for setup(): an engine
  // that does I/O on it keeps its own dup. -1 for engines that touch no real
  // media.
  int fd = -1;
  unsigned queue_depth = 1;
  // Aligned buffers owned by the runner, valid until the engine is destroyed.
  std::span<const iovec> buffers;
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  virtual std::string_view name() const = 0;
  // false only for engines whose I/O reaches no device or file (the simulated
  // drive): the safety guard is skipped for them, and only for them.
  virtual bool touches_real_media() const { return true; }
  virtual EngineTime time_base() const { return EngineTime::monotonic; }
  // Takes the target's descriptor, creates queues, registers buffers. Error
  // names the target.
  virtual std::optional<Error> setup(const EngineSetup& setup) = 0;
  // Bytes addressable on the target (valid after setup()).
  virtual std::uint64_t target_size() const = 0;
  // Adds one I/O to the next submission batch; false when the queue is full
  // (reap first). Never blocks.
  virtual bool queue(IoUnit& unit) = 0;
  // Hands the batch to the device. reap() also commits whatever is queued, so
  // the hot loop calls queue()… reap() with one system call per batch.
  virtual std::optional<Error> commit() = 0;
  // Waits until at least `min` I/Os completed or `max_wait` passed (negative:
  // no limit), then returns up to out.size() completions. A per-I/O failure is
  // a completion with a negative result, never an Error; Error means the
  // engine itself is broken.
  virtual Result<std::size_t> reap(std::size_t min, Duration max_wait, std::span<IoCompletion> out) = 0;
  // Nanoseconds in the engine's time domain (time_base()): the real monotonic
  // clock for real devices, simulated time for the sim engine. Latencies, runtime and
  // rate limits are measured in it.
  virtual std::int64_t now_ns() const = 0;
  // Sleeps for `d` of engine time (rate limiting with nothing in flight).
  virtual void idle(Duration d) = 0;
};

}  // namespace nvmond
