#pragma once
// Store on SQLite: one file, WAL journal, synchronous=FULL (a committed poll is
// on disk before commit() returns), busy timeout so a concurrent reader
// (nvmonctl, sqlite3 shell) does not fail our writes.
//
// The schema is versioned with PRAGMA user_version and upgraded on open by an
// ordered list of forward migrations (see sqlite_schema.cpp). A database newer
// than this build is refused rather than guessed at.
//
// Thread-safety: all methods lock one mutex around one connection.
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "store/store.hpp"

struct sqlite3;

namespace nvmond {
namespace sqlite {
class StmtCache;
}
class SampleLog;

struct SqliteOptions {
  // FULL: fsync on every commit (the default; history must survive power
  // loss). Tests that bulk-load synthetic years may turn it off.
  bool synchronous_full = true;
  std::chrono::milliseconds busy_timeout{5000};
  // A reader's connection beside the writer's: opens an existing database
  // read-only and leaves its journal mode and schema to the writer.
  bool read_only = false;
  // New samples are logged in arrival order and folded into the per-drive
  // history once the log holds this many per drive (sample_log.hpp): each
  // fold then fills whole history pages. The log is held in memory by every
  // connection, packed (about 20 B a sample polled every second).
  std::size_t log_rows_per_drive = 256;
  // WAL size after which a commit checkpoints, whatever the page size. A
  // checkpoint copies the newest version of every page the WAL holds, and
  // the pages a tick rewrites (the log's last leaf, the tree above it, the
  // pages a fold frees and the log reuses) are the same ones again and again:
  // the fewer checkpoints, the fewer copies. 16 MiB: 555 → 496 B per
  // drive-poll at 32 drives, 424 → 342 at 256 (bench/history_write_cost.cpp,
  // 1 KiB pages); the WAL file then stays under ~16 MiB.
  int wal_autocheckpoint_bytes = 16 << 20;
  // Page size of a database this connection creates (an existing file keeps
  // its own). 512 B, SQLite's smallest: a tick's commit rewrites its partly
  // filled pages (the log's last leaf, the tree above it), and a fold each
  // drive's last history page; smaller pages make those rewrites cheaper
  // (bench/history_write_cost.cpp, 16 MiB checkpoints: 496 → 451 B per
  // drive-poll at 32 drives, 392 → 369 at 64, 342 → 328 at 256; 4 KiB → 1 KiB
  // pages had been 699 → 488 at 64). Rows above ~470 B (long event texts)
  // spill into overflow pages, which SQLite reads transparently.
  int page_size = 512;
};

class SqliteStore final : public Store {
 public:
  // The database file inside the daemon's state directory (created if missing).
  static constexpr const char* kFileName = "nvmond.db";

  // Opens (creating and migrating as needed) `state_dir`/nvmond.db.
  static Result<std::unique_ptr<SqliteStore>> open(const std::string& state_dir, const SqliteOptions& options = {});
  // Opens a database at an exact path.
  static Result<std::unique_ptr<SqliteStore>> open_file(const std::string& path, const SqliteOptions& options = {});
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  StoreStatus commit(const PollRecord& record) override;
  StoreStatus commit_all(const std::vector<PollRecord>& records) override;
  Result<std::optional<SampleRecord>> last_sample(const DriveKey& drive) override;
  Result<std::optional<WallTime>> latest_sample_time() override;
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey& drive, std::int64_t segment,
                                                                       std::span<const WallTime> since) override;
  Result<std::vector<SampleRecord>> samples(const DriveKey& drive, WallTime from, WallTime to) override;
  Result<std::vector<ThermalEventRecord>> events(const DriveKey& drive, WallTime since) override;
  Result<std::optional<std::string>> state(const DriveKey& drive, std::string_view key) override;
  Result<CompactionStats> compact(WallTime now, const RetentionPolicy& policy) override;
  Result<StoreStats> stats() override;

  const std::string& path() const { return path_; }

 private:
  SqliteStore(sqlite3* db, std::string path, const SqliteOptions& options);
  // Looks the drive up; nullopt if it has never been committed.
  Result<std::optional<std::int64_t>> find_drive(const DriveKey& drive);
  // Under mu_: the records in one transaction.
  StoreStatus write_all(std::span<const PollRecord> records, const std::string& context);
  // Under mu_, inside a transaction: the rows of one poll.
  StoreStatus write_record(const PollRecord& record, const std::string& context);
  StoreStatus write_samples(std::int64_t drive_id, const std::vector<SampleRecord>& samples,
                            const std::string& context);
  // Straight into the per-drive history (folding the log first if it holds
  // any of the drive's samples).
  StoreStatus write_history(std::int64_t drive_id, std::span<const SampleRecord> samples, const std::string& context);
  Result<std::optional<WallTime>> newest_in_history(std::int64_t drive_id, std::string_view context);
  // Under mu_: compact() in one transaction.
  Result<CompactionStats> compact_history(WallTime now, const RetentionPolicy& policy);
  // Under mu_: `op` inside a read transaction, the log in step with the file.
  template <typename T, typename Op>
  Result<T> read_snapshot(std::string_view context, Op op);

  std::mutex mu_;
  sqlite3* db_;
  std::string path_;
  SqliteOptions options_;
  // The statements every poll runs, prepared once (guarded by mu_; closing
  // the connection with close_v2 waits for them to be finalized).
  std::unique_ptr<sqlite::StmtCache> stmts_;
  std::unique_ptr<SampleLog> log_;  // uses stmts_
  // Per drive id: samples older than this were already downsampled, so each
  // compaction only scans what aged since the last one.
  std::vector<std::pair<std::int64_t, std::int64_t>> compacted_until_ns_;
};

// The schema version this build writes (the last migration's number).
int sqlite_schema_version();

}  // namespace nvmond
