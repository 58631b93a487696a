#include "store/sqlite_schema.hpp"

#include <fmt/core.h>

#include <string>

#include "store/sqlite_util.hpp"

namespace nvmond {
namespace {

// Counters are BLOBs of minimal big-endian bytes (exact u128); times are
// nanoseconds since the Unix epoch. WITHOUT ROWID tables clustered on
// (drive_id, time) keep a sample row to ~30 bytes and make window look-ups
// one seek.
constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE drives(
  id INTEGER PRIMARY KEY,
  serial TEXT NOT NULL,
  model TEXT NOT NULL,
  UNIQUE(serial, model));
CREATE TABLE samples(
  drive_id INTEGER NOT NULL REFERENCES drives(id),
  time_ns INTEGER NOT NULL,
  segment INTEGER NOT NULL,
  data_units_written BLOB NOT NULL,
  data_units_read BLOB NOT NULL,
  power_on_hours BLOB NOT NULL,
  percentage_used INTEGER NOT NULL,
  composite_temperature_k INTEGER NOT NULL,
  PRIMARY KEY(drive_id, time_ns)) WITHOUT ROWID;
)sql"},
    // OCP physical media writes (write amplification) and thermal events.
    {2, R"sql(
ALTER TABLE samples ADD COLUMN media_bytes_written BLOB;
CREATE TABLE thermal_events(
  drive_id INTEGER NOT NULL REFERENCES drives(id),
  start_ns INTEGER NOT NULL,
  end_ns INTEGER,                -- NULL while the event is open
  peak_celsius REAL NOT NULL,
  sources TEXT NOT NULL,         -- comma-separated stable labels
  level INTEGER NOT NULL,
  PRIMARY KEY(drive_id, start_ns)) WITHOUT ROWID;
CREATE INDEX thermal_events_open ON thermal_events(drive_id) WHERE end_ns IS NULL;
)sql"},
    // Analytic state that must survive restarts (detector counters, open event).
    {3, R"sql(
CREATE TABLE drive_state(
  drive_id INTEGER NOT NULL REFERENCES drives(id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(drive_id, key)) WITHOUT ROWID;
)sql"},
    // PTS runs and their rounds (pts/). A round is committed before the next
    // starts; (run_id, idx) is unique, so a resumed run can neither lose nor
    // repeat one. JSON columns hold the run.json objects as written.
    {4, R"sql(
CREATE TABLE pts_runs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,            -- [[soak]] name, or the foreground run's label
  test TEXT NOT NULL,
  target TEXT NOT NULL,          -- as given (/dev/nvme1n1, sim:dc0)
  serial TEXT NOT NULL,
  model TEXT NOT NULL,
  status TEXT NOT NULL,          -- running | completed | interrupted | failed
  started_ns INTEGER NOT NULL,
  ended_ns INTEGER,
  header TEXT NOT NULL,          -- JSON: parameters, target, purge, SMART before/after
  checkpoint TEXT NOT NULL DEFAULT '');  -- simulated drive state after the last round
CREATE INDEX pts_runs_open ON pts_runs(name) WHERE status = 'running';
CREATE TABLE pts_rounds(
  run_id INTEGER NOT NULL REFERENCES pts_runs(id),
  idx INTEGER NOT NULL,
  phase TEXT NOT NULL,
  iops REAL NOT NULL,
  data TEXT NOT NULL,            -- JSON: the run.json round object
  PRIMARY KEY(run_id, idx)) WITHOUT ROWID;
)sql"},
    // Newest samples first land in sample_log, in arrival order, so one tick
    // of every drive fills shared pages instead of dirtying a page per drive;
    // they are folded into the per-drive history in large batches
    // (sample_log.hpp). No foreign key on the log: a child table loses
    // SQLite's whole-table delete, which frees the folded pages unwritten.
    // `samples` stays the name readers (sqlite3 shell, scripts) query.
    {5, R"sql(
ALTER TABLE samples RENAME TO sample_history;
CREATE TABLE sample_log(
  seq INTEGER PRIMARY KEY,       -- arrival order; never reused (see sample_log_folded)
  drive_id INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  segment INTEGER NOT NULL,
  data_units_written BLOB NOT NULL,
  data_units_read BLOB NOT NULL,
  power_on_hours BLOB NOT NULL,
  percentage_used INTEGER NOT NULL,
  composite_temperature_k INTEGER NOT NULL,
  media_bytes_written BLOB);
CREATE TABLE sample_log_folded(
  id INTEGER PRIMARY KEY CHECK(id = 1),
  seq INTEGER NOT NULL);         -- every log row up to here is in sample_history
INSERT INTO sample_log_folded(id, seq) VALUES(1, 0);
CREATE VIEW samples AS
  SELECT drive_id, time_ns, segment, data_units_written, data_units_read, power_on_hours, percentage_used,
         composite_temperature_k, media_bytes_written FROM sample_history
  UNION ALL
  SELECT drive_id, time_ns, segment, data_units_written, data_units_read, power_on_hours, percentage_used,
         composite_temperature_k, media_bytes_written FROM sample_log;
)sql"},
    // What a [[soak]] run was started from: the fingerprint of its test,
    // profile, target and parameters ('' for an operator's run, or one
    // recorded before this column), so a finished `schedule = "once"` soak is
    // known as finished across restarts. The index finds a name's newest run.
    {6, R"sql(
ALTER TABLE pts_runs ADD COLUMN definition TEXT NOT NULL DEFAULT '';
CREATE INDEX pts_runs_name ON pts_runs(name, id);
)sql"},
};

Result<int> user_version(sqlite3* db, const std::string& path) {
  sqlite::Stmt st(db, "PRAGMA user_version");
  if (!st.ok() || st.step() != SQLITE_ROW) return st.error("reading schema version of " + path);
  return static_cast<int>(st.int64(0));
}

}  // namespace

std::span<const Migration> sqlite_migrations() { return kMigrations; }

Result<int> migrate_schema(sqlite3* db, const std::string& path) {
  auto current = user_version(db, path);
  if (!current) return current.error();
  const int newest = kMigrations[std::size(kMigrations) - 1].version;
  if (*current > newest) {
    return Error{ErrorReason::store, fmt::format("{}: schema version {} is newer than this nvmond understands "
                                                 "({}); refusing to touch it",
                                                 path, *current, newest)};
  }
  for (const auto& m : kMigrations) {
    if (m.version <= *current) continue;
    std::string context = fmt::format("migrating {} to schema version {}", path, m.version);
    sqlite::Transaction tx(db);
    if (auto r = tx.begin(context); !r) return r.error();
    if (auto r = sqlite::exec(db, m.sql, context); !r) return r.error();
    // PRAGMA takes no bound parameters; the version is our own constant.
    std::string set = fmt::format("PRAGMA user_version = {}", m.version);
    if (auto r = sqlite::exec(db, set.c_str(), context); !r) return r.error();
    if (auto r = tx.commit(context); !r) return r.error();
  }
  return newest;
}

}  // namespace nvmond
