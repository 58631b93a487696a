#pragma once
// RunStore on an SQLite database of its own (tables pts_runs, pts_rounds of
// schema version 4; the daemon's is STATE_DIR/runs.db, apart from the
// history, so a corrupt history never takes the runs with it). WAL and
// synchronous=FULL: a committed round is on disk before commit_round()
// returns. Opening checks the file's integrity (quick_check): a damaged one
// is refused as "corrupt" rather than found half-way through a soak.
#include <memory>
#include <mutex>
#include <string>

#include "store/run_store.hpp"

struct sqlite3;

namespace nvmond {

// Reads run `id` from the database at `path` without writing to it: opened
// read-only, one short read transaction (WAL: the daemon's writes neither
// wait for it nor are changed by it), so a snapshot of a run in progress is
// consistent; with no -wal file (no connection open) read as immutable,
// creating nothing. Reasons: "absent" (no database at `path`), "unknown" (no
// run with that id), else the store's ("read_only" for a file it may not read).
Result<StoredRun> read_stored_run(const std::string& path, std::int64_t id);

// The highest run id the database at `path` names, read read-only; 0 when
// it holds none or cannot be read (a corrupt file may still give its ids).
std::int64_t highest_run_id(const std::string& path);

class SqliteRunStore final : public RunStore {
 public:
  // Opens (creating and migrating) the database at `path`. New runs get ids
  // above `id_floor` as well as above every run in the file: ids another
  // file or a runs/ directory already used are never handed out again.
  static Result<std::unique_ptr<SqliteRunStore>> open_file(const std::string& path, std::int64_t id_floor = 0);
  ~SqliteRunStore() override;
  SqliteRunStore(const SqliteRunStore&) = delete;
  SqliteRunStore& operator=(const SqliteRunStore&) = delete;

  Result<std::int64_t> create_run(const RunRow& run) override;
  Result<std::monostate> commit_round(std::int64_t run, const RoundRow& round, const std::string& checkpoint) override;
  Result<std::monostate> update_run(std::int64_t run, RunStatus status, std::optional<std::int64_t> ended_ns,
                                    const std::string& header) override;
  Result<std::optional<RunRow>> unfinished_run(const std::string& name) override;
  Result<std::optional<RunRow>> latest_run(const std::string& name) override;
  Result<std::vector<RoundRow>> rounds(std::int64_t run) override;
  Result<std::vector<RoundRow>> rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) override;
  Result<std::optional<RunRow>> run(std::int64_t id) override;
  Result<std::vector<RunRow>> runs(const std::optional<std::string>& serial, int limit) override;

  // Copies the runs and rounds of the database at `path` (one that held them
  // beside the history before runs had a file of their own) that this one
  // lacks, in one transaction; `path` is only read. Returns how many runs.
  Result<std::int64_t> import_runs(const std::string& path);

 private:
  SqliteRunStore(sqlite3* db, std::string path, std::int64_t id_floor)
      : db_(db), path_(std::move(path)), id_floor_(id_floor) {}
  std::mutex mu_;
  sqlite3* db_;
  std::string path_;
  std::int64_t id_floor_;
};

}  // namespace nvmond
