#pragma once
// A Store whose writes never wait on the database: commit() queues the poll
// and returns; one writer thread commits everything queued in one
// transaction (group commit: one fsync per batch, however many drives were
// polled), one batch per tick. A database locked by another
// program, slow or full therefore delays history, never a poll, a scrape or
// the event loop.
//
// Every drive is polled at the same moment of each tick, so a tick's polls
// arrive together: a batch is committed half an interval after the first
// poll queued since the last batch (see group_commit_due), and the whole
// tick (samples, events, analytic state of every drive) shares its
// transaction. No poll waits longer than that half interval for its batch
// to start, so with a healthy database (a commit shorter than half an
// interval) every poll is on disk before its drive's next one is made, and
// a kill -9 loses at most one poll per drive. A host too loaded to finish a
// tick's polls within half an interval gets up to two batches per interval
// rather than polls that wait longer.
//
// Reads see queued writes (read-your-writes): the newest sample and state of
// a drive come from the queue when it holds them, the rest from `reads`, a
// connection of its own, so a reader never waits behind the writer (SQLite's
// WAL lets readers go on while another connection holds the write lock).
//
// A read that fails is repeated once on the writer's connection, so the
// store's owner (a ResilientStore) opens a database not yet created, and
// counts and sets aside one found corrupt, as it does for writes.
//
// Nothing acknowledged is silently lost: a failed batch stays queued and is
// retried; a poll that finds the queue full (max_queued) is dropped and
// counted; stop() waits a bounded time for the queue and counts what it
// leaves unwritten as dropped. Compaction runs on the writer thread too.
//
// Thread-safety: every method may be called from any thread. The writer
// thread owns `writes` for its whole life; a writer stop() gives up on (stuck
// in a commit past its timeout) is abandoned, never freed under it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "store/store.hpp"

namespace nvmond {

struct StoreWriterOptions {
  // Polls queued at most; one more is dropped and counted. A store that
  // stays unwritable fills it in about 6.5 minutes at 256 drives polled
  // every second, 65 minutes at 10 s polls, 4.3 hours for 64 drives at 10 s.
  std::size_t max_queued = 100000;
  // The poll interval in real time: a batch waits half of it after its
  // first poll, for the rest of that poll's tick, and starts no sooner than
  // half of it after the last batch: one fsync per tick whatever the drive
  // count, at most two per interval.
  std::chrono::milliseconds group_interval{1000};
  // Real time before a failed batch is tried again.
  std::chrono::milliseconds retry_interval{1000};
};

struct StoreWriterCounters {
  std::uint64_t queued = 0;   // polls waiting to be written (including a batch in flight)
  std::uint64_t written = 0;  // polls committed
  std::uint64_t dropped = 0;  // polls never written: the queue was full, or stop() gave up on them
  std::uint64_t batches = 0;  // transactions committed
};

// When the batch holding the polls queued since the last one is due (steady
// clock): half an interval after the first of them arrived, and never sooner
// than half an interval after the last batch started (none yet: no such
// bound). Not a whole interval: when a loaded host's polls arrive all
// through the interval, a batch spaced an interval from the last starts
// just after some poll arrived, and that poll would wait a whole interval,
// long enough for its drive's next poll to be acknowledged before it is on
// disk.
std::chrono::steady_clock::time_point group_commit_due(std::chrono::steady_clock::time_point first_queued,
                                                       std::optional<std::chrono::steady_clock::time_point> last_batch,
                                                       std::chrono::milliseconds group_interval);

class StoreWriter final : public Store {
 public:
  // `writes` is used only by the writer thread, `reads` only by readers; two
  // connections to the same database (or the same Store in tests that
  // do not need the separation).
  StoreWriter(std::shared_ptr<Store> writes, std::shared_ptr<Store> reads, StoreWriterOptions options = {});
  ~StoreWriter() override;  // stop(kDefaultStopTimeout) unless stopped
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  static constexpr std::chrono::milliseconds kDefaultStopTimeout{2000};

  // Queues the poll; fails only when the queue is full (reason "full",
  // counted as dropped) or the writer has stopped (reason "stopped").
  StoreStatus commit(const PollRecord& record) override;
  StoreStatus commit_all(const std::vector<PollRecord>& records) override;

  Result<std::optional<SampleRecord>> last_sample(const DriveKey& drive) override;
  Result<std::optional<WallTime>> latest_sample_time() override;
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey& drive, std::int64_t segment,
                                                                       std::span<const WallTime> since) override;
  Result<std::vector<SampleRecord>> samples(const DriveKey& drive, WallTime from, WallTime to) override;
  Result<std::vector<ThermalEventRecord>> events(const DriveKey& drive, WallTime since) override;
  Result<std::optional<std::string>> state(const DriveKey& drive, std::string_view key) override;
  // Asks the writer thread to compact once the queue is written and returns
  // at once with zero stats; requests made meanwhile are folded into one.
  Result<CompactionStats> compact(WallTime now, const RetentionPolicy& policy) override;
  // The database's stats (queued polls not included).
  Result<StoreStats> stats() override;

  // Flushes what is queued, waiting at most `timeout` of real time; then the
  // writer stops (abandoned if it is still inside a commit). Returns the
  // polls left unwritten, counted as dropped and logged. Later commits fail.
  std::uint64_t stop(std::chrono::milliseconds timeout);

  StoreWriterCounters counters() const;
  // Writers stop() left inside a commit, in this process. main() must not
  // wait for them (nor run destructors under them) at exit.
  static int abandoned_writers();

  // The queue and the writer thread's state: shared with the thread, which
  // may outlive this object.
  struct Shared;

 private:
  // Runs `op` on the readers' connection; a failure is repeated on the
  // writer thread (see Shared::probe).
  template <typename T, typename Op>
  Result<T> read(Op op);

  std::shared_ptr<Shared> shared_;
};

}  // namespace nvmond
