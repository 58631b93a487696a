#include "store/sqlite_run_store.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "store/sqlite_schema.hpp"
#include "store/sqlite_util.hpp"

namespace nvmond {

using sqlite::Stmt;

namespace {

// PRAGMA quick_check: O(file size), a few milliseconds for years of soaks.
// SQLite reports damage as rows of text, or fails the pragma itself.
Result<std::monostate> check_integrity(sqlite3* db, const std::string& path) {
  const std::string context = "checking the integrity of " + path;
  Stmt st(db, "PRAGMA quick_check");
  if (!st.ok()) return st.error(context);
  const int rc = st.step();
  if (rc != SQLITE_ROW) return st.error(context);
  std::string verdict = st.text(0);
  std::replace(verdict.begin(), verdict.end(), '\n', ' ');  // one log line
  if (verdict != "ok") return Error{ErrorReason::corrupt, fmt::format("{}: {}", context, verdict)};
  return std::monostate{};
}

}  // namespace

Result<std::unique_ptr<SqliteRunStore>> SqliteRunStore::open_file(const std::string& path, std::int64_t id_floor) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<SqliteRunStore> store(new SqliteRunStore(db, path, id_floor));
  if (rc != SQLITE_OK) return sqlite::error(db, "opening " + path);
  sqlite3_busy_timeout(db, 5000);
  if (auto r = sqlite::limit_cache(db, "configuring " + path); !r) return r.error();
  if (auto r = sqlite::exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
                            "configuring " + path);
      !r) {
    return r.error();
  }
  if (auto r = check_integrity(db, path); !r) return r.error();
  if (auto r = migrate_schema(db, path); !r) return r.error();
  return store;
}

SqliteRunStore::~SqliteRunStore() { sqlite3_close_v2(db_); }

Result<std::int64_t> SqliteRunStore::create_run(const RunRow& run) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("recording {} run {} on {} in {}", run.test, run.name, run.target, path_);
  Stmt st(db_,
          "INSERT INTO pts_runs(id, name, test, target, serial, model, status, started_ns, header, checkpoint, "
          "definition) VALUES((SELECT max(coalesce(max(id), 0), ?10) + 1 FROM pts_runs), ?1, ?2, ?3, ?4, ?5, ?6, ?7, "
          "?8, ?9, ?11)");
  if (!st.ok()) return st.error(context);
  st.bind(1, run.name);
  st.bind(2, run.test);
  st.bind(3, run.target);
  st.bind(4, run.serial);
  st.bind(5, run.model);
  st.bind(6, to_text(run.status));
  st.bind(7, run.started_ns);
  st.bind(8, run.header);
  st.bind(9, run.checkpoint);
  st.bind(10, id_floor_);
  st.bind(11, run.definition);
  if (st.step() != SQLITE_DONE) return st.error(context);
  return static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<std::monostate> SqliteRunStore::commit_round(std::int64_t run, const RoundRow& round,
                                                    const std::string& checkpoint) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("recording round {} of run {} in {}", round.index, run, path_);
  sqlite::Transaction tx(db_);
  if (auto r = tx.begin(context); !r) return r.error();
  {
    Stmt st(db_, "INSERT INTO pts_rounds(run_id, idx, phase, iops, data) VALUES(?1, ?2, ?3, ?4, ?5)");
    if (!st.ok()) return st.error(context);
    st.bind(1, run);
    st.bind(2, round.index);
    st.bind(3, round.phase);
    st.bind(4, round.iops);
    st.bind(5, round.data);
    const int rc = st.step();
    if (rc == SQLITE_CONSTRAINT) return Error{ErrorReason::duplicate, context + ": this round is already recorded"};
    if (rc != SQLITE_DONE) return st.error(context);
  }
  if (!checkpoint.empty()) {
    Stmt st(db_, "UPDATE pts_runs SET checkpoint = ?2 WHERE id = ?1");
    if (!st.ok()) return st.error(context);
    st.bind(1, run);
    st.bind(2, checkpoint);
    if (st.step() != SQLITE_DONE) return st.error(context);
  }
  if (auto r = tx.commit(context); !r) return r.error();
  return std::monostate{};
}

Result<std::monostate> SqliteRunStore::update_run(std::int64_t run, RunStatus status,
                                                  std::optional<std::int64_t> ended_ns, const std::string& header) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("updating run {} in {}", run, path_);
  Stmt st(db_, "UPDATE pts_runs SET status = ?2, ended_ns = ?3, header = ?4 WHERE id = ?1");
  if (!st.ok()) return st.error(context);
  st.bind(1, run);
  st.bind(2, to_text(status));
  if (ended_ns) st.bind(3, *ended_ns);
  else st.bind_null(3);
  st.bind(4, header);
  if (st.step() != SQLITE_DONE) return st.error(context);
  return std::monostate{};
}

namespace {
constexpr const char* kRunColumns =
    "SELECT id, name, test, target, serial, model, status, started_ns, ended_ns, header, checkpoint, "
    "(SELECT COUNT(*) FROM pts_rounds WHERE run_id = pts_runs.id) FROM pts_runs ";

// Reason "decode" when the status column names no RunStatus.
Result<RunRow> read_run(Stmt& st, const std::string& context) {
  auto status = run_status_from_text(st.text(6));
  if (!status)
    return Error{ErrorReason::decode, fmt::format("{}: run {}: {}", context, st.int64(0), status.error().message)};
  RunRow r;
  r.id = st.int64(0);
  r.name = st.text(1);
  r.test = st.text(2);
  r.target = st.text(3);
  r.serial = st.text(4);
  r.model = st.text(5);
  r.status = *status;
  r.started_ns = st.int64(7);
  if (!st.is_null(8)) r.ended_ns = st.int64(8);
  r.header = st.text(9);
  r.checkpoint = st.text(10);
  r.rounds = st.int64(11);
  return r;
}

// The first run `where` selects, `key` bound to its ?1; nullopt when there is none.
template <typename Key>
Result<std::optional<RunRow>> select_one_run(sqlite3* db, const char* where, const Key& key,
                                             const std::string& context) {
  const std::string sql = std::string(kRunColumns) + where;
  Stmt st(db, sql.c_str());
  if (!st.ok()) return st.error(context);
  st.bind(1, key);
  const int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<RunRow>{};
  if (rc != SQLITE_ROW) return st.error(context);
  auto row = read_run(st, context);
  if (!row) return row.error();
  return std::optional<RunRow>{std::move(*row)};
}

// The run with this id; nullopt when there is none.
Result<std::optional<RunRow>> select_run(sqlite3* db, std::int64_t id, const std::string& context) {
  return select_one_run(db, "WHERE id = ?1", id, context);
}

}  // namespace

// Only the newest run of a name counts: a completed run is not followed by
// the resumption of an older one. A run closed by a stopping daemon is
// marked resumable in its header.
Result<std::optional<RunRow>> SqliteRunStore::unfinished_run(const std::string& name) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("looking up the unfinished run {} in {}", name, path_);
  return select_one_run(db_,
                        "WHERE name = ?1 AND (status = 'running' OR (status = 'interrupted' AND "
                        "json_extract(header, '$.resumable') = 1)) AND "
                        "id = (SELECT MAX(id) FROM pts_runs WHERE name = ?1)",
                        name, context);
}

Result<std::optional<RunRow>> SqliteRunStore::latest_run(const std::string& name) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("looking up the newest run {} in {}", name, path_);
  auto row = select_one_run(db_, "WHERE name = ?1 ORDER BY id DESC LIMIT 1", name, context);
  if (!row || !*row) return row;
  (*row)->checkpoint.clear();
  // Not among the common columns: read_stored_run also reads databases it
  // never migrates, which lack this one.
  Stmt st(db_, "SELECT definition FROM pts_runs WHERE id = ?1");
  if (!st.ok()) return st.error(context);
  st.bind(1, (*row)->id);
  if (st.step() != SQLITE_ROW) return st.error(context);
  (*row)->definition = st.text(0);
  return row;
}

Result<std::optional<RunRow>> SqliteRunStore::run(std::int64_t id) {
  std::lock_guard lock(mu_);
  return select_run(db_, id, fmt::format("reading run {} from {}", id, path_));
}

Result<std::vector<RunRow>> SqliteRunStore::runs(const std::optional<std::string>& serial, int limit) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("listing runs in {}", path_);
  const std::string sql = std::string(kRunColumns) + "WHERE ?1 IS NULL OR serial = ?1 ORDER BY id DESC LIMIT ?2";
  Stmt st(db_, sql.c_str());
  if (!st.ok()) return st.error(context);
  if (serial) st.bind(1, *serial);
  st.bind(2, static_cast<std::int64_t>(limit));
  std::vector<RunRow> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    auto r = read_run(st, context);
    if (!r) return r.error();
    r->checkpoint.clear();  // a listing never needs the drive state
    out.push_back(std::move(*r));
  }
  if (rc != SQLITE_DONE) return st.error(context);
  return out;
}

namespace {

// Rounds of `run` from index `from`, at most `limit` of them (-1: all, as
// SQLite reads a negative LIMIT).
Result<std::vector<RoundRow>> select_rounds(sqlite3* db, std::int64_t run, const std::string& context,
                                            std::int64_t from = 0, std::int64_t limit = -1) {
  Stmt st(db, "SELECT idx, phase, iops, data FROM pts_rounds WHERE run_id = ?1 AND idx >= ?2 ORDER BY idx LIMIT ?3");
  if (!st.ok()) return st.error(context);
  st.bind(1, run);
  st.bind(2, from);
  st.bind(3, limit);
  std::vector<RoundRow> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(RoundRow{st.int64(0), st.text(1), st.real(2), st.text(3)});
  if (rc != SQLITE_DONE) return st.error(context);
  return out;
}

// `path` for a file: URI (percent-encoding what would end or escape it).
std::string uri_path(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else out += c;
  }
  return out;
}

struct ReadOnlyDb {
  sqlite3* db = nullptr;
  ~ReadOnlyDb() { sqlite3_close_v2(db); }
};

}  // namespace

Result<std::vector<RoundRow>> SqliteRunStore::rounds(std::int64_t run) {
  std::lock_guard lock(mu_);
  return select_rounds(db_, run, fmt::format("reading the rounds of run {} from {}", run, path_));
}

Result<std::int64_t> SqliteRunStore::import_runs(const std::string& path) {
  std::lock_guard lock(mu_);
  const std::string context = fmt::format("importing the runs of {} into {}", path, path_);
  {
    Stmt attach(db_, "ATTACH DATABASE ?1 AS legacy");
    if (!attach.ok()) return attach.error(context);
    attach.bind(1, path);
    if (attach.step() != SQLITE_DONE) return attach.error(context);
  }
  struct Detach {
    sqlite3* db;
    ~Detach() { sqlite3_exec(db, "DETACH DATABASE legacy", nullptr, nullptr, nullptr); }
  } detach{db_};
  {
    Stmt has(db_, "SELECT count(*) FROM legacy.sqlite_master WHERE type = 'table' AND name = 'pts_rounds'");
    if (!has.ok() || has.step() != SQLITE_ROW) return has.error(context);
    if (has.int64(0) == 0) return std::int64_t{0};  // older than runs: nothing to import
  }
  sqlite::Transaction tx(db_);
  if (auto r = tx.begin(context); !r) return r.error();
  if (auto r = sqlite::exec(db_,
                            "INSERT OR IGNORE INTO main.pts_runs(id, name, test, target, serial, model, status, "
                            "started_ns, ended_ns, header, checkpoint) SELECT id, name, test, target, serial, model, "
                            "status, started_ns, ended_ns, header, checkpoint FROM legacy.pts_runs",
                            context);
      !r) {
    return r.error();
  }
  const std::int64_t runs = sqlite3_changes(db_);
  if (auto r = sqlite::exec(db_,
                            "INSERT OR IGNORE INTO main.pts_rounds(run_id, idx, phase, iops, data) "
                            "SELECT run_id, idx, phase, iops, data FROM legacy.pts_rounds "
                            "WHERE run_id IN (SELECT l.id FROM legacy.pts_runs AS l JOIN main.pts_runs AS m "
                            "ON m.id = l.id AND m.name = l.name AND m.started_ns = l.started_ns)",
                            context);
      !r) {
    return r.error();
  }
  if (auto r = tx.commit(context); !r) return r.error();
  return runs;
}

std::int64_t highest_run_id(const std::string& path) {
  ReadOnlyDb ro;
  if (sqlite3_open_v2(("file:" + uri_path(path)).c_str(), &ro.db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    return 0;
  }
  Stmt st(ro.db, "SELECT coalesce(max(id), 0) FROM pts_runs");
  if (!st.ok() || st.step() != SQLITE_ROW) return 0;
  return st.int64(0);
}

Result<std::vector<RoundRow>> SqliteRunStore::rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) {
  std::lock_guard lock(mu_);
  return select_rounds(db_, run, fmt::format("reading rounds {}.. of run {} from {}", from, run, path_), from,
                       static_cast<std::int64_t>(limit));
}

Result<StoredRun> read_stored_run(const std::string& path, std::int64_t id) {
  const std::string context = fmt::format("reading run {} from {}", id, path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Error{ErrorReason::absent, fmt::format("{}: no database: no such file", path)};
  if (::access(path.c_str(), R_OK) != 0) {
    const int err = errno;
    return Error{sqlite::reason_of_errno(err),
                 fmt::format("{}: cannot read the database: {}", path, std::strerror(err))};
  }
  ReadOnlyDb ro;
  // READONLY never migrates or checkpoints; a daemon mid-write holds no lock
  // a WAL reader waits on, the timeout covers its recovery. Without a -wal
  // file no connection has the database open: reading it as immutable then
  // leaves no -wal/-shm behind and needs no write access to the directory.
  const bool in_use = std::filesystem::exists(path + "-wal", ec);
  const std::string uri = "file:" + uri_path(path) + (in_use ? "" : "?immutable=1");
  if (sqlite3_open_v2(uri.c_str(), &ro.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    return sqlite::error(ro.db, "opening " + path + " read-only");
  }
  sqlite3_busy_timeout(ro.db, 5000);
  if (auto r = sqlite::exec(ro.db, "BEGIN", context); !r) return r.error();
  StoredRun out;
  auto run = select_run(ro.db, id, context);
  if (!run) {
    // An old database (schema before version 4) has no runs at all.
    if (std::string_view(sqlite3_errmsg(ro.db)).find("no such table") != std::string_view::npos) {
      return Error{ErrorReason::unknown, fmt::format("{}: no run {}: this database holds no PTS runs", path, id)};
    }
    return run.error();
  }
  if (!*run) return Error{ErrorReason::unknown, fmt::format("{}: no run with id {}", path, id)};
  out.run = std::move(**run);
  auto rounds = select_rounds(ro.db, id, context);
  if (!rounds) return rounds.error();
  out.rounds = std::move(*rounds);
  (void)sqlite::exec(ro.db, "COMMIT", context);  // a read: nothing to lose if it fails
  return out;
}

}  // namespace nvmond
