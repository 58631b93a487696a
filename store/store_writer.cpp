#include "store/store_writer.hpp"

#include <fmt/core.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "core/log.hpp"

namespace nvmond {

struct StoreWriter::Shared {
  std::shared_ptr<Store> writes;
  std::shared_ptr<Store> reads;
  StoreWriterOptions options;

  mutable std::mutex mu;
  std::condition_variable wake;     // the writer: work, stop or abandon
  std::condition_variable drained;  // stop(): the queue emptied
  // Oldest first; the first `in_flight` are in the batch being committed
  // and stay here, visible to readers, until it is.
  std::deque<PollRecord> pending;
  std::size_t in_flight = 0;
  // When the first poll queued since the last batch started arrived.
  std::optional<std::chrono::steady_clock::time_point> first_queued;
  std::optional<std::pair<WallTime, RetentionPolicy>> compaction;
  // A read that failed on the readers' connection, to repeat on the
  // writer's: its owner then opens (creating the schema), counts, logs and
  // sets a corrupt file aside, as it would for a failed write.
  std::function<void(Store&)> probe;
  bool stopping = false;   // flush at once, take no more
  bool abandoned = false;  // stop() gave up: write nothing more
  bool busy = false;       // inside a Store call, outside the lock
  bool full_logged = false;
  StoreWriterCounters counts;
  std::thread thread;
};

namespace {

std::atomic<int> g_abandoned{0};

using Steady = std::chrono::steady_clock;

// The newest record of `drive` in the queue that `has` something, newest first.
template <typename Has>
const PollRecord* newest_with(const std::deque<PollRecord>& pending, const DriveKey& drive, Has has) {
  for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
    if (it->drive == drive && has(*it)) return &*it;
  }
  return nullptr;
}

const SampleRecord& newest_sample(const PollRecord& r) {
  return *std::max_element(r.samples.begin(), r.samples.end(),
                           [](const SampleRecord& a, const SampleRecord& b) { return a.time < b.time; });
}

// Runs one Store call of the writer thread outside the lock.
template <typename Op>
auto unlocked(std::unique_lock<std::mutex>& lock, bool& busy, Op op) {
  busy = true;
  lock.unlock();
  auto r = op();
  lock.lock();
  busy = false;
  return r;
}

void write_batch(StoreWriter::Shared& s, std::unique_lock<std::mutex>& lock) {
  s.in_flight = s.pending.size();
  std::vector<PollRecord> batch(s.pending.begin(), s.pending.end());
  // A failure is logged (once per state change) and counted by the store.
  const StoreStatus r = unlocked(lock, s.busy, [&] { return s.writes->commit_all(batch); });
  if (s.abandoned) return;  // stop() has counted the batch as dropped
  const std::size_t n = s.in_flight;
  s.in_flight = 0;
  if (!r) return;  // stays queued for the next try
  s.pending.erase(s.pending.begin(), s.pending.begin() + static_cast<std::ptrdiff_t>(n));
  s.counts.written += n;
  ++s.counts.batches;
  if (s.pending.empty()) s.drained.notify_all();
}

void run_compaction(StoreWriter::Shared& s, std::unique_lock<std::mutex>& lock) {
  const auto [now, policy] = *s.compaction;
  s.compaction.reset();
  auto r = unlocked(lock, s.busy, [&] { return s.writes->compact(now, policy); });
  if (!r) log::debug("compacting history: {}", r.error().message);
}

void run_probe(StoreWriter::Shared& s, std::unique_lock<std::mutex>& lock) {
  auto probe = std::move(s.probe);
  s.probe = nullptr;
  unlocked(lock, s.busy, [&] {
    probe(*s.writes);
    return 0;
  });
}

void writer_loop(const std::shared_ptr<StoreWriter::Shared>& shared) {
  // Named, so the history's own share of the process's I/O is measurable
  // (/proc/PID/task/TID/io: bench/store_cost.py).
  pthread_setname_np(pthread_self(), "nvmond-history");
  StoreWriter::Shared& s = *shared;
  std::unique_lock lock(s.mu);
  std::optional<Steady::time_point> last_batch;
  for (;;) {
    s.wake.wait(lock, [&] { return s.abandoned || s.stopping || !s.pending.empty() || s.compaction || s.probe; });
    if (s.abandoned) return;
    if (s.pending.empty()) {
      if (s.stopping) return;
      if (s.probe) run_probe(s, lock);
      else run_compaction(s, lock);
      continue;
    }
    // Group commit: the rest of the tick joins the first poll's transaction.
    // Polls left by a failed batch have no arrival of their own: due now.
    const Steady::time_point due = group_commit_due(s.first_queued.value_or(Steady::now() - s.options.group_interval),
                                                    last_batch, s.options.group_interval);
    if (!s.stopping && Steady::now() < due) {
      s.wake.wait_until(lock, due, [&] { return s.stopping || s.abandoned; });
      if (s.abandoned) return;
    }
    last_batch = Steady::now();
    s.first_queued.reset();
    const std::uint64_t before = s.counts.batches;
    write_batch(s, lock);
    if (s.abandoned) return;
    if (s.counts.batches == before) {
      s.wake.wait_for(lock, s.options.retry_interval, [&] { return s.abandoned; });
    }
  }
}

}  // namespace

Steady::time_point group_commit_due(Steady::time_point first_queued, std::optional<Steady::time_point> last_batch,
                                    std::chrono::milliseconds group_interval) {
  const Steady::time_point gathered = first_queued + group_interval / 2;
  return last_batch ? std::max(gathered, *last_batch + group_interval / 2) : gathered;
}

StoreWriter::StoreWriter(std::shared_ptr<Store> writes, std::shared_ptr<Store> reads, StoreWriterOptions options)
    : shared_(std::make_shared<Shared>()) {
  shared_->writes = std::move(writes);
  shared_->reads = std::move(reads);
  shared_->options = options;
  shared_->thread = std::thread([s = shared_] { writer_loop(s); });
}

StoreWriter::~StoreWriter() { stop(kDefaultStopTimeout); }

StoreStatus StoreWriter::commit(const PollRecord& record) { return commit_all({record}); }

StoreStatus StoreWriter::commit_all(const std::vector<PollRecord>& records) {
  if (records.empty()) return std::monostate{};
  Shared& s = *shared_;
  std::lock_guard lock(s.mu);
  if (s.stopping)
    return Error{ErrorReason::stopped,
                 "history writer stopped: poll of " + records.front().drive.serial + " not recorded"};
  if (s.pending.size() + records.size() > s.options.max_queued) {
    s.counts.dropped += records.size();
    if (!s.full_logged) {
      log::error(
          "history store: {} poll(s) queued, not yet written; dropping new polls (counted in "
          "nvmond_store_dropped_writes_total) until the store accepts writes again",
          s.pending.size());
      s.full_logged = true;
    }
    return Error{ErrorReason::full, fmt::format("history write queue full ({} polls): poll dropped", s.pending.size())};
  }
  if (s.full_logged) {
    log::info("history store: the write queue has room again");
    s.full_logged = false;
  }
  // Only the first poll of a batch wakes the writer: it then waits for the
  // batch's deadline whatever else arrives, and a wake per later poll cost
  // every drive-poll a futex call and a context switch for nothing. With
  // polls already queued the writer is waiting for that deadline, retrying
  // a failed batch, or writing; each looks at the queue when it ends.
  const bool was_empty = s.pending.empty();
  s.pending.insert(s.pending.end(), records.begin(), records.end());
  if (!s.first_queued) s.first_queued = Steady::now();
  if (was_empty) s.wake.notify_one();
  return std::monostate{};
}

Result<std::optional<SampleRecord>> StoreWriter::last_sample(const DriveKey& drive) {
  {
    std::lock_guard lock(shared_->mu);
    if (auto* r = newest_with(shared_->pending, drive, [](const PollRecord& p) { return !p.samples.empty(); })) {
      return std::optional<SampleRecord>{newest_sample(*r)};
    }
  }
  return read<std::optional<SampleRecord>>([drive](Store& s) { return s.last_sample(drive); });
}

Result<std::optional<WallTime>> StoreWriter::latest_sample_time() {
  std::optional<WallTime> queued;
  {
    std::lock_guard lock(shared_->mu);
    for (const auto& r : shared_->pending) {
      for (const auto& s : r.samples) queued = std::max(queued.value_or(s.time), s.time);
    }
  }
  auto stored = read<std::optional<WallTime>>([](Store& s) { return s.latest_sample_time(); });
  if (!stored) return queued ? Result<std::optional<WallTime>>{queued} : stored;
  if (!*stored) return queued;
  return queued ? std::max(*queued, **stored) : *stored;
}

Result<std::vector<std::optional<SampleRecord>>> StoreWriter::first_samples_since(const DriveKey& drive,
                                                                                  std::int64_t segment,
                                                                                  std::span<const WallTime> since) {
  // The op may be kept as the reconnect probe, so it owns its times.
  auto stored = read<std::vector<std::optional<SampleRecord>>>(
      [drive, segment, times = std::vector<WallTime>(since.begin(), since.end())](Store& s) {
        return s.first_samples_since(drive, segment, times);
      });
  if (!stored) return stored;
  auto& found = *stored;
  if (std::all_of(found.begin(), found.end(), [](const auto& f) { return f.has_value(); })) return stored;
  // Anything stored is older than anything queued.
  std::lock_guard lock(shared_->mu);
  auto first_queued = [&](WallTime from) -> std::optional<SampleRecord> {
    for (const auto& r : shared_->pending) {
      if (!(r.drive == drive)) continue;
      for (const auto& s : r.samples) {
        if (s.segment == segment && s.time >= from) return s;
      }
    }
    return std::nullopt;
  };
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (!found[i]) found[i] = first_queued(since[i]);
  }
  return stored;
}

Result<std::vector<SampleRecord>> StoreWriter::samples(const DriveKey& drive, WallTime from, WallTime to) {
  auto stored = read<std::vector<SampleRecord>>([drive, from, to](Store& s) { return s.samples(drive, from, to); });
  if (!stored) return stored;
  std::vector<SampleRecord> out = std::move(*stored);
  {
    std::lock_guard lock(shared_->mu);
    for (const auto& r : shared_->pending) {
      if (!(r.drive == drive)) continue;
      for (const auto& s : r.samples) {
        if (s.time < from || s.time >= to) continue;
        // Samples are keyed by time: a queued one replaces a stored one.
        std::erase_if(out, [&](const SampleRecord& o) { return o.time == s.time; });
        out.push_back(s);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  return out;
}

Result<std::vector<ThermalEventRecord>> StoreWriter::events(const DriveKey& drive, WallTime since) {
  auto stored = read<std::vector<ThermalEventRecord>>([drive, since](Store& s) { return s.events(drive, since); });
  if (!stored) return stored;
  std::vector<ThermalEventRecord> out = std::move(*stored);
  {
    std::lock_guard lock(shared_->mu);
    for (const auto& r : shared_->pending) {
      if (!(r.drive == drive)) continue;
      for (const auto& e : r.events) {
        if (e.start < since) continue;
        // Events are upserted by start.
        std::erase_if(out, [&](const ThermalEventRecord& o) { return o.start == e.start; });
        out.push_back(e);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return out;
}

Result<std::optional<std::string>> StoreWriter::state(const DriveKey& drive, std::string_view key) {
  {
    std::lock_guard lock(shared_->mu);
    for (auto it = shared_->pending.rbegin(); it != shared_->pending.rend(); ++it) {
      if (!(it->drive == drive)) continue;
      for (auto e = it->state.rbegin(); e != it->state.rend(); ++e) {
        if (e->first == key) return std::optional<std::string>{e->second};
      }
    }
  }
  return read<std::optional<std::string>>([drive, key = std::string(key)](Store& s) { return s.state(drive, key); });
}

Result<CompactionStats> StoreWriter::compact(WallTime now, const RetentionPolicy& policy) {
  std::lock_guard lock(shared_->mu);
  shared_->compaction.emplace(now, policy);
  shared_->wake.notify_one();
  return CompactionStats{};
}

Result<StoreStats> StoreWriter::stats() {
  return read<StoreStats>([](Store& s) { return s.stats(); });
}

template <typename T, typename Op>
Result<T> StoreWriter::read(Op op) {
  Result<T> r = op(*shared_->reads);
  if (!r) {
    std::lock_guard lock(shared_->mu);
    if (!shared_->stopping) {
      shared_->probe = [op](Store& s) { (void)op(s); };
      shared_->wake.notify_one();
    }
  }
  return r;
}

std::uint64_t StoreWriter::stop(std::chrono::milliseconds timeout) {
  Shared& s = *shared_;
  std::unique_lock lock(s.mu);
  if (!s.thread.joinable()) return 0;
  s.stopping = true;
  s.wake.notify_all();
  s.drained.wait_for(lock, timeout, [&] { return s.pending.empty(); });
  const std::uint64_t left = s.pending.size();
  if (left > 0) {
    s.counts.dropped += left;
    log::error("history store: {} queued poll(s) not written within {} ms of stopping; dropped", left, timeout.count());
    s.pending.clear();
    s.in_flight = 0;
  }
  s.abandoned = true;
  s.wake.notify_all();
  const bool stuck = s.busy;
  lock.unlock();
  // A writer stuck in a commit keeps its stores alive through `shared_`; it
  // writes nothing more once the commit returns.
  if (stuck) {
    log::warn("history store: the writer is still inside a commit; leaving it behind");
    s.thread.detach();
    ++g_abandoned;
  } else {
    s.thread.join();
  }
  return left;
}

int StoreWriter::abandoned_writers() { return g_abandoned.load(); }

StoreWriterCounters StoreWriter::counters() const {
  std::lock_guard lock(shared_->mu);
  StoreWriterCounters c = shared_->counts;
  c.queued = shared_->pending.size();
  return c;
}

}  // namespace nvmond
