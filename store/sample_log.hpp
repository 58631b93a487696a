#pragma once
// The newest samples of every drive, appended in arrival order to one table
// (sample_log) and folded into the per-drive history (sample_history, keyed
// by drive then time) in large batches.
//
// Why: the history clusters each drive's rows together, so a tick that
// writes one sample per drive dirties one 4 KiB page per drive, written to
// the WAL and again at the checkpoint. In the log a tick's rows of every
// drive share pages. A fold moves everything at once and SQLite frees the
// log's pages without writing them.
//
// Invariant that keeps reads exact and cheap: every logged sample of a drive
// is newer than every sample of it in the history, and the log holds at most
// one sample per (drive, time) (SqliteStore writes anything else straight to
// the history, folding first). So a drive's history is its sample_history
// rows followed by its logged rows.
//
// Each connection keeps the log's rows in memory, packed (the log has no
// index by drive: one would dirty a page per drive again), brought up to date by
// sync() at the start of every transaction from what other connections
// appended or folded, so a reader's connection sees exactly what is on disk.
//
// Thread-safety: none; SqliteStore calls it under its lock.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/packed_samples.hpp"
#include "store/sqlite_util.hpp"
#include "store/store.hpp"

namespace nvmond {

// The sample columns every sample query reads, in read_sample's order.
inline constexpr const char* kSampleColumns =
    "time_ns, segment, data_units_written, data_units_read, power_on_hours, percentage_used, "
    "composite_temperature_k, media_bytes_written";
// The sample whose columns (kSampleColumns) start at `first`.
SampleRecord read_sample(const sqlite::Stmt& st, int first = 0);
// Binds kSampleColumns' values to parameters first, first + 1, …
void bind_sample(sqlite::Stmt& st, int first, const SampleRecord& s);

class SampleLog {
 public:
  explicit SampleLog(sqlite::StmtCache& stmts) : stmts_(stmts) {}

  // Inside a transaction: catches up with what was appended or folded since
  // the last call, by this connection or another.
  StoreStatus sync(std::string_view context);
  // Forgets everything (after a rollback): the next sync reads the whole log.
  void forget();

  // The drive's logged samples, oldest first; all newer than its history.
  const PackedSamples& of(std::int64_t drive_id) const;
  std::optional<WallTime> newest() const;
  std::size_t rows() const { return rows_; }
  std::size_t drives() const { return by_drive_.size(); }

  // Inside a write transaction, after sync(): logs a sample newer than every
  // other of the drive (the caller checks).
  StoreStatus append(std::int64_t drive_id, const SampleRecord& s, std::string_view context);
  // Inside a write transaction, after sync(): moves every logged sample into
  // the history. Returns how many.
  Result<std::int64_t> fold(std::string_view context);

 private:
  void clear();

  sqlite::StmtCache& stmts_;
  std::unordered_map<std::int64_t, PackedSamples> by_drive_;
  std::size_t rows_ = 0;
  std::optional<std::int64_t> folded_seq_;  // sample_log_folded.seq as last read
  std::int64_t last_seq_ = 0;               // the newest row held (or folded)
};

}  // namespace nvmond
