#pragma once
// The Store boundary: durable history that survives daemon restarts (SMART
// samples per drive, thermal events, small per-drive analytic state).
//
// Drives are keyed by identity (serial + model), never by /dev/nvmeN: a drive
// that moves slots continues its history.
//
// Thread-safety: implementations are safe to call from several poller threads
// (SqliteStore serialises on one connection). Every write method is one
// transaction: either all of a PollRecord lands or none of it.
//
// In the daemon the Store is a StoreWriter (store_writer.hpp): commit() only
// queues, and the writer commits every record queued during a tick (every
// drive's samples, events and state, whoever wrote them) in one transaction.
// A new writer of per-drive state needs nothing more than commit() of a
// PollRecord with `state` to share the tick's transaction and its fsync.
// Errors are values with the drive and the operation in the message. Reasons
// an operator can act on: "corrupt", "full", "read_only", "locked"; anything
// else is "io" (or "store" for a database this build refuses, e.g. a newer
// schema).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "core/u128.hpp"

namespace nvmond {

struct DriveKey {
  std::string serial;
  std::string model;
  bool operator==(const DriveKey&) const = default;
};

// One SMART poll, reduced to what history needs. Drive units (data units of
// kDataUnitBytes, hours, Kelvin), exactly as the drive reported them.
struct SampleRecord {
  WallTime time{};
  // Counters are continuous within a segment; a counter that went backwards
  // (firmware reset, drive swapped under the same serial) starts the next one,
  // so no rate is ever computed across a reset.
  std::int64_t segment = 0;
  u128 data_units_written = 0;
  u128 data_units_read = 0;
  u128 power_on_hours = 0;
  std::uint8_t percentage_used = 0;
  std::uint16_t composite_temperature_k = 0;
  std::optional<u128> media_bytes_written;  // OCP C0 physical media units written (bytes)
};

// A thermal throttle event. Open while `end` is nullopt. Upserted by
// (drive, start): the detector rewrites the open event on every poll.
struct ThermalEventRecord {
  WallTime start{};
  std::optional<WallTime> end;
  double peak_celsius = 0;
  std::vector<std::string> sources;  // stable labels, e.g. "tmt1", "ocp"
  int level = 0;                     // highest level reached, 1..3
};

// Raw samples are kept for `raw`, then one sample per hour (the last of each
// hour: counters are cumulative, so the last one keeps every delta exact)
// until `hourly`; older history is dropped. Zero `hourly` keeps it forever.
struct RetentionPolicy {
  Duration raw = std::chrono::hours(24 * 7);
  Duration hourly = std::chrono::hours(24 * 730);
};

struct CompactionStats {
  std::int64_t downsampled = 0;  // raw rows folded into their hour
  std::int64_t expired = 0;      // rows (samples and closed events) past retention
};

struct StoreStats {
  std::int64_t drives = 0;
  std::int64_t samples = 0;
  std::int64_t events = 0;
  std::int64_t state_entries = 0;
  std::int64_t used_bytes = 0;  // database pages in use (excludes free pages and the WAL)
};

// What one poll of one drive writes, in one transaction.
struct PollRecord {
  DriveKey drive;
  std::vector<SampleRecord> samples;                       // usually one
  std::vector<ThermalEventRecord> events;                  // upserted by start
  std::vector<std::pair<std::string, std::string>> state;  // upserted by key
};

using StoreStatus = Result<std::monostate>;

class Store {
 public:
  virtual ~Store() = default;

  virtual StoreStatus commit(const PollRecord& record) = 0;
  // Every record in one transaction where the implementation can (SqliteStore:
  // one fsync for a whole tick of drives); this default commits them one by
  // one and stops at the first failure. Writes are upserts, so committing a
  // record again after a failure is harmless.
  virtual StoreStatus commit_all(const std::vector<PollRecord>& records) {
    for (const auto& r : records) {
      if (auto s = commit(r); !s) return s;
    }
    return std::monostate{};
  }

  // The newest sample of the drive, any segment.
  virtual Result<std::optional<SampleRecord>> last_sample(const DriveKey& drive) = 0;
  // Time of the newest sample of any drive: where an accelerated clock
  // resumes after a restart, so history never runs backwards.
  virtual Result<std::optional<WallTime>> latest_sample_time() = 0;
  // For each of `since`, the oldest sample of `segment` taken at or after
  // it, all read from one snapshot: a DWPD publish asks for every wear
  // window's start at once.
  virtual Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey& drive,
                                                                               std::int64_t segment,
                                                                               std::span<const WallTime> since) = 0;
  // Samples with from <= time < to, oldest first.
  virtual Result<std::vector<SampleRecord>> samples(const DriveKey& drive, WallTime from, WallTime to) = 0;
  // Events that started at or after `since`, oldest first.
  virtual Result<std::vector<ThermalEventRecord>> events(const DriveKey& drive, WallTime since) = 0;
  virtual Result<std::optional<std::string>> state(const DriveKey& drive, std::string_view key) = 0;

  // Downsamples and expires history; the daemon calls it periodically (hourly
  // is plenty). Idempotent.
  virtual Result<CompactionStats> compact(WallTime now, const RetentionPolicy& policy) = 0;
  virtual Result<StoreStats> stats() = 0;
};

}  // namespace nvmond
