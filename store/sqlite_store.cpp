#include "store/sqlite_store.hpp"

#include <fmt/core.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "store/sample_log.hpp"
#include "store/sqlite_schema.hpp"
#include "store/sqlite_util.hpp"

namespace nvmond {
namespace {

using sqlite::Stmt;

constexpr std::int64_t kHourNs = 3'600'000'000'000;

std::string describe(const DriveKey& d) { return fmt::format("drive {} ({})", d.serial, d.model); }

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    if (comma > pos) out.push_back(s.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

Result<std::optional<SampleRecord>> one_sample(Stmt& st, std::string_view context) {
  if (!st.ok()) return st.error(context);
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<SampleRecord>{};
  if (rc != SQLITE_ROW) return st.error(context);
  return std::optional<SampleRecord>{read_sample(st)};
}

Result<std::int64_t> scalar(sqlite3* db, const char* sql, std::string_view context) {
  Stmt st(db, sql);
  if (!st.ok() || st.step() != SQLITE_ROW) return st.error(context);
  return st.int64(0);
}

// Every per-drive statement names the drive as `?1` serial, `?2` model.
void bind_drive(Stmt& st, const DriveKey& drive) {
  st.bind(1, drive.serial);
  st.bind(2, drive.model);
}

// What commit() writes per item: each statement's `?1` is the drive's id; the
// binder binds the rest and says what writing the item does, for its error.
// A sample goes here only when it cannot be logged (sample_log.hpp).
constexpr const char* kInsertSample =
    "INSERT OR REPLACE INTO sample_history(drive_id, time_ns, segment, data_units_written, "
    "data_units_read, power_on_hours, percentage_used, composite_temperature_k, "
    "media_bytes_written) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

constexpr const char* kUpsertEvent =
    "INSERT INTO thermal_events(drive_id, start_ns, end_ns, peak_celsius, sources, level) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(drive_id, start_ns) DO UPDATE SET "
    "end_ns = excluded.end_ns, peak_celsius = excluded.peak_celsius, "
    "sources = excluded.sources, level = excluded.level";

std::string bind_event(Stmt& ins, const ThermalEventRecord& e) {
  ins.bind(2, to_unix_ns(e.start));
  if (e.end) ins.bind(3, to_unix_ns(*e.end));
  else ins.bind_null(3);
  ins.bind(4, e.peak_celsius);
  ins.bind(5, join(e.sources));
  ins.bind(6, std::int64_t{e.level});
  return "recording thermal event";
}

constexpr const char* kSaveState = "INSERT OR REPLACE INTO drive_state(drive_id, key, value) VALUES(?1, ?2, ?3)";

std::string bind_state(Stmt& ins, const std::pair<std::string, std::string>& entry) {
  ins.bind(2, entry.first);
  ins.bind(3, entry.second);
  return "saving state " + entry.first;
}

// Runs `sql` once per item (none: not even prepared), `?1` the drive's id.
template <typename Item, typename Bind>
StoreStatus write_each(sqlite::StmtCache& stmts, const char* sql, std::int64_t drive_id, const std::vector<Item>& items,
                       const std::string& context, Bind bind) {
  if (items.empty()) return std::monostate{};
  Stmt ins(stmts, sql);
  if (!ins.ok()) return ins.error(context);
  for (const auto& item : items) {
    ins.bind(1, drive_id);
    const std::string doing = bind(ins, item);
    if (ins.step() != SQLITE_DONE) return ins.error(context + ": " + doing);
    ins.reset();
  }
  return std::monostate{};
}

}  // namespace

int sqlite_schema_version() { return sqlite_migrations().back().version; }

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const std::string& state_dir, const SqliteOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    return Error{ErrorReason::store, fmt::format("creating state directory {}: {}", state_dir, ec.message())};
  }
  return open_file((std::filesystem::path(state_dir) / kFileName).string(), options);
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::open_file(const std::string& path, const SqliteOptions& options) {
  sqlite3* db = nullptr;
  const int mode = options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db, mode | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<SqliteStore> store(new SqliteStore(db, path, options));  // closes db on every early return
  if (rc != SQLITE_OK) return sqlite::error(db, "opening " + path);
  sqlite3_busy_timeout(db, static_cast<int>(options.busy_timeout.count()));
  if (auto r = sqlite::limit_cache(db, "configuring " + path); !r) return r.error();
  if (options.read_only) return store;

  // Before WAL: a page size applies to a file not yet written.
  const std::string page = fmt::format("PRAGMA page_size={}", options.page_size);
  if (auto r = sqlite::exec(db, page.c_str(), "configuring " + path); !r) return r.error();
  {
    Stmt wal(db, "PRAGMA journal_mode=WAL");
    if (!wal.ok() || wal.step() != SQLITE_ROW) return wal.error("enabling WAL on " + path);
    if (wal.text(0) != "wal") {
      return Error{ErrorReason::store, fmt::format("enabling WAL on {}: journal mode stayed {}", path, wal.text(0))};
    }
  }
  const char* pragmas = options.synchronous_full ? "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"
                                                 : "PRAGMA synchronous=OFF; PRAGMA foreign_keys=ON;";
  if (auto r = sqlite::exec(db, pragmas, "configuring " + path); !r) return r.error();
  auto page_size = scalar(db, "PRAGMA page_size", "configuring " + path);
  if (!page_size) return page_size.error();
  const std::string checkpoint = fmt::format("PRAGMA wal_autocheckpoint={}",
                                             std::max<std::int64_t>(1, options.wal_autocheckpoint_bytes / *page_size));
  if (auto r = sqlite::exec(db, checkpoint.c_str(), "configuring " + path); !r) return r.error();
  if (auto r = migrate_schema(db, path); !r) return r.error();
  return store;
}

SqliteStore::SqliteStore(sqlite3* db, std::string path, const SqliteOptions& options)
    : db_(db),
      path_(std::move(path)),
      options_(options),
      stmts_(std::make_unique<sqlite::StmtCache>(db)),
      log_(std::make_unique<SampleLog>(*stmts_)) {}

SqliteStore::~SqliteStore() {
  log_.reset();
  stmts_.reset();  // finalized before the connection closes
  sqlite3_close_v2(db_);
}

Result<std::optional<std::int64_t>> SqliteStore::find_drive(const DriveKey& drive) {
  Stmt st(*stmts_, "SELECT id FROM drives WHERE serial = ?1 AND model = ?2");
  std::string context = "looking up " + describe(drive);
  if (!st.ok()) return st.error(context);
  bind_drive(st, drive);
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<std::int64_t>{};
  if (rc != SQLITE_ROW) return st.error(context);
  return std::optional<std::int64_t>{st.int64(0)};
}

Result<std::optional<WallTime>> SqliteStore::newest_in_history(std::int64_t drive_id, std::string_view context) {
  Stmt st(*stmts_, "SELECT time_ns FROM sample_history WHERE drive_id = ?1 ORDER BY time_ns DESC LIMIT 1");
  if (!st.ok()) return st.error(context);
  st.bind(1, drive_id);
  const int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<WallTime>{};
  if (rc != SQLITE_ROW) return st.error(context);
  return std::optional<WallTime>{from_unix_ns(st.int64(0))};
}

StoreStatus SqliteStore::write_samples(std::int64_t drive_id, const std::vector<SampleRecord>& samples,
                                       const std::string& context) {
  // A batch as large as a fold (an import, a test's synthetic history)
  // gains nothing from the log: it goes to the history whole.
  const bool bulk = samples.size() >= options_.log_rows_per_drive;
  for (std::size_t i = 0; i < samples.size() && !bulk; ++i) {
    const SampleRecord& s = samples[i];
    std::optional<WallTime> newest;
    if (const auto& logged = log_->of(drive_id); !logged.empty()) {
      newest = logged.back().time;
    } else {
      auto stored = newest_in_history(drive_id, context);
      if (!stored) return stored.error();
      newest = *stored;
    }
    if (newest && s.time <= *newest) {
      // Older than the drive's newest, or a replacement: the history takes
      // it and the rest, after the log (whose samples must stay the newest).
      return write_history(drive_id, std::span(samples).subspan(i), context);
    }
    if (auto r = log_->append(drive_id, s, context); !r) return r;
  }
  if (bulk) return write_history(drive_id, samples, context);
  return std::monostate{};
}

StoreStatus SqliteStore::write_history(std::int64_t drive_id, std::span<const SampleRecord> samples,
                                       const std::string& context) {
  if (!log_->of(drive_id).empty()) {
    if (auto r = log_->fold(context); !r) return r.error();
  }
  Stmt ins(*stmts_, kInsertSample);
  if (!ins.ok()) return ins.error(context);
  for (const auto& s : samples) {
    ins.bind(1, drive_id);
    bind_sample(ins, 2, s);
    if (ins.step() != SQLITE_DONE) return ins.error(context + ": inserting sample");
    ins.reset();
  }
  return std::monostate{};
}

StoreStatus SqliteStore::write_record(const PollRecord& record, const std::string& context) {
  Stmt add_drive(*stmts_, "INSERT INTO drives(serial, model) VALUES(?1, ?2) ON CONFLICT DO NOTHING");
  if (!add_drive.ok()) return add_drive.error(context);
  bind_drive(add_drive, record.drive);
  if (add_drive.step() != SQLITE_DONE) return add_drive.error(context);
  auto id = find_drive(record.drive);
  if (!id) return id.error();
  if (!*id) return Error{ErrorReason::store, context + ": drive row vanished"};
  const std::int64_t drive_id = **id;

  if (auto r = write_samples(drive_id, record.samples, context); !r) return r.error();
  if (auto r = write_each(*stmts_, kUpsertEvent, drive_id, record.events, context, bind_event); !r) return r.error();
  if (auto r = write_each(*stmts_, kSaveState, drive_id, record.state, context, bind_state); !r) return r.error();
  return std::monostate{};
}

StoreStatus SqliteStore::write_all(std::span<const PollRecord> records, const std::string& context) {
  sqlite::Transaction tx(db_);
  auto written = [&]() -> StoreStatus {
    if (auto r = tx.begin(context); !r) return r;
    if (auto r = log_->sync(context); !r) return r;
    for (const auto& record : records) {
      if (auto r = write_record(record, "recording poll of " + describe(record.drive)); !r) return r;
    }
    // Each drive's share of a fold fills whole history pages.
    if (log_->rows() >= options_.log_rows_per_drive * std::max<std::size_t>(1, log_->drives())) {
      if (auto r = log_->fold(context); !r) return r.error();
    }
    return tx.commit(context);
  }();
  if (!written) log_->forget();  // rolled back: what it holds may not be on disk
  return written;
}

StoreStatus SqliteStore::commit(const PollRecord& record) {
  std::lock_guard lock(mu_);
  return write_all(std::span(&record, 1), "recording poll of " + describe(record.drive));
}

StoreStatus SqliteStore::commit_all(const std::vector<PollRecord>& records) {
  if (records.empty()) return std::monostate{};
  std::lock_guard lock(mu_);
  return write_all(records, fmt::format("recording {} poll(s)", records.size()));
}

template <typename T, typename Op>
Result<T> SqliteStore::read_snapshot(std::string_view context, Op op) {
  sqlite::Transaction tx(db_, sqlite::Transaction::Kind::read);
  if (auto r = tx.begin(context); !r) return r.error();
  if (auto r = log_->sync(context); !r) {
    log_->forget();
    return r.error();
  }
  Result<T> out = op();
  if (!out) return out;
  if (auto r = tx.commit(context); !r) return r.error();
  return out;
}

Result<std::optional<SampleRecord>> SqliteStore::last_sample(const DriveKey& drive) {
  std::lock_guard lock(mu_);
  const std::string context = "reading last sample of " + describe(drive);
  return read_snapshot<std::optional<SampleRecord>>(context, [&]() -> Result<std::optional<SampleRecord>> {
    auto id = find_drive(drive);
    if (!id || !*id) return id ? Result<std::optional<SampleRecord>>{std::nullopt} : id.error();
    if (const auto& logged = log_->of(**id); !logged.empty()) return std::optional<SampleRecord>{logged.back()};
    static const std::string kSql =
        fmt::format("SELECT {} FROM sample_history WHERE drive_id = ?1 ORDER BY time_ns DESC LIMIT 1", kSampleColumns);
    Stmt st(*stmts_, kSql);
    st.bind(1, **id);
    return one_sample(st, context);
  });
}

Result<std::optional<WallTime>> SqliteStore::latest_sample_time() {
  std::lock_guard lock(mu_);
  const std::string context = "reading the newest sample time";
  return read_snapshot<std::optional<WallTime>>(context, [&]() -> Result<std::optional<WallTime>> {
    Stmt st(*stmts_, "SELECT MAX(time_ns) FROM sample_history");
    if (!st.ok() || st.step() != SQLITE_ROW) return st.error(context);
    std::optional<WallTime> newest = log_->newest();
    if (st.is_null(0)) return newest;
    const WallTime stored = from_unix_ns(st.int64(0));
    return std::optional<WallTime>{newest ? std::max(*newest, stored) : stored};
  });
}

Result<std::vector<std::optional<SampleRecord>>> SqliteStore::first_samples_since(const DriveKey& drive,
                                                                                  std::int64_t segment,
                                                                                  std::span<const WallTime> since) {
  using Found = std::vector<std::optional<SampleRecord>>;
  std::lock_guard lock(mu_);
  const std::string context = "reading window starts of " + describe(drive);
  return read_snapshot<Found>(context, [&]() -> Result<Found> {
    Found found(since.size());
    auto id = find_drive(drive);
    if (!id) return id.error();
    if (!*id) return found;
    static const std::string kSql = fmt::format(
        "SELECT {} FROM sample_history WHERE drive_id = ?1 AND time_ns >= ?2 AND segment = ?3 "
        "ORDER BY time_ns LIMIT 1",
        kSampleColumns);
    for (std::size_t i = 0; i < since.size(); ++i) {
      Stmt st(*stmts_, kSql);
      st.bind(1, **id);
      st.bind(2, to_unix_ns(since[i]));
      st.bind(3, segment);
      auto stored = one_sample(st, context);
      if (!stored) return stored.error();
      found[i] = std::move(*stored);
      if (found[i]) continue;  // every logged sample is newer
      for (const auto& s : log_->of(**id)) {
        if (s.time >= since[i] && s.segment == segment) {
          found[i] = s;
          break;
        }
      }
    }
    return found;
  });
}

Result<std::vector<SampleRecord>> SqliteStore::samples(const DriveKey& drive, WallTime from, WallTime to) {
  std::lock_guard lock(mu_);
  const std::string context = "reading samples of " + describe(drive);
  return read_snapshot<std::vector<SampleRecord>>(context, [&]() -> Result<std::vector<SampleRecord>> {
    std::vector<SampleRecord> out;
    auto id = find_drive(drive);
    if (!id) return id.error();
    if (!*id) return out;
    static const std::string kSql = fmt::format(
        "SELECT {} FROM sample_history WHERE drive_id = ?1 AND time_ns >= ?2 AND time_ns < ?3 ORDER BY time_ns",
        kSampleColumns);
    Stmt st(*stmts_, kSql);
    if (!st.ok()) return st.error(context);
    st.bind(1, **id);
    st.bind(2, to_unix_ns(from));
    st.bind(3, to_unix_ns(to));
    int rc;
    while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_sample(st));
    if (rc != SQLITE_DONE) return st.error(context);
    for (const auto& s : log_->of(**id)) {  // newer than the history, in time order
      if (s.time >= from && s.time < to) out.push_back(s);
    }
    return out;
  });
}

Result<std::vector<ThermalEventRecord>> SqliteStore::events(const DriveKey& drive, WallTime since) {
  std::lock_guard lock(mu_);
  std::string context = "reading thermal events of " + describe(drive);
  Stmt st(*stmts_,
          "SELECT start_ns, end_ns, peak_celsius, sources, level FROM thermal_events WHERE "
          "drive_id = (SELECT id FROM drives WHERE serial = ?1 AND model = ?2) AND start_ns >= ?3 "
          "ORDER BY start_ns");
  if (!st.ok()) return st.error(context);
  bind_drive(st, drive);
  st.bind(3, to_unix_ns(since));
  std::vector<ThermalEventRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    ThermalEventRecord e;
    e.start = from_unix_ns(st.int64(0));
    if (!st.is_null(1)) e.end = from_unix_ns(st.int64(1));
    e.peak_celsius = st.real(2);
    e.sources = split(st.text(3));
    e.level = static_cast<int>(st.int64(4));
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return st.error(context);
  return out;
}

Result<std::optional<std::string>> SqliteStore::state(const DriveKey& drive, std::string_view key) {
  std::lock_guard lock(mu_);
  std::string context = fmt::format("reading state {} of {}", key, describe(drive));
  Stmt st(*stmts_,
          "SELECT value FROM drive_state WHERE drive_id = (SELECT id FROM drives WHERE serial = ?1 "
          "AND model = ?2) AND key = ?3");
  if (!st.ok()) return st.error(context);
  bind_drive(st, drive);
  st.bind(3, key);
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<std::string>{};
  if (rc != SQLITE_ROW) return st.error(context);
  return std::optional<std::string>{st.text(0)};
}

Result<CompactionStats> SqliteStore::compact(WallTime now, const RetentionPolicy& policy) {
  std::lock_guard lock(mu_);
  auto r = compact_history(now, policy);
  if (!r) log_->forget();  // rolled back: a fold it made is not on disk
  return r;
}

Result<CompactionStats> SqliteStore::compact_history(WallTime now, const RetentionPolicy& policy) {
  const std::string context = "compacting " + path_;
  const std::int64_t raw_cutoff = to_unix_ns(now) - policy.raw.count();
  const bool expire = policy.hourly.count() > 0;
  const std::int64_t expire_cutoff = to_unix_ns(now) - policy.hourly.count();

  std::vector<std::int64_t> ids;
  {
    Stmt st(db_, "SELECT id FROM drives");
    if (!st.ok()) return st.error(context);
    int rc;
    while ((rc = st.step()) == SQLITE_ROW) ids.push_back(st.int64(0));
    if (rc != SQLITE_DONE) return st.error(context);
  }

  sqlite::Transaction tx(db_);
  if (auto r = tx.begin(context); !r) return r.error();
  // The hours being downsampled may still have samples in the log.
  if (auto r = log_->sync(context); !r) return r.error();
  if (auto r = log_->fold(context); !r) return r.error();
  // Keep the last sample of each (segment, hour): the hours of the range, to
  // the end of the cutoff's (a later sample of that hour may be raw still),
  // in one scan of the (drive_id, time_ns) primary key.
  Stmt fold(db_,
            "DELETE FROM sample_history WHERE drive_id = ?1 AND time_ns >= ?2 AND time_ns < ?3 AND "
            "time_ns NOT IN (SELECT max(time_ns) FROM sample_history WHERE drive_id = ?1 AND time_ns >= ?2 AND "
            "time_ns < (?3 / ?4 + 1) * ?4 GROUP BY time_ns / ?4, segment)");
  Stmt drop(db_, "DELETE FROM sample_history WHERE drive_id = ?1 AND time_ns < ?2");
  Stmt drop_events(db_,
                   "DELETE FROM thermal_events WHERE drive_id = ?1 AND end_ns IS NOT NULL AND "
                   "end_ns < ?2");
  if (!fold.ok()) return fold.error(context);
  if (!drop.ok()) return drop.error(context);
  if (!drop_events.ok()) return drop_events.error(context);

  CompactionStats stats;
  std::vector<std::pair<std::int64_t, std::int64_t>> done;
  for (std::int64_t id : ids) {
    std::int64_t from = 0;
    for (const auto& [d, until] : compacted_until_ns_) {
      if (d == id) from = until - kHourNs;  // the boundary hour may have gained rows
    }
    fold.bind(1, id);
    fold.bind(2, from);
    fold.bind(3, raw_cutoff);
    fold.bind(4, kHourNs);
    if (fold.step() != SQLITE_DONE) return fold.error(context + ": downsampling");
    stats.downsampled += sqlite3_changes(db_);
    fold.reset();
    if (expire) {
      drop.bind(1, id);
      drop.bind(2, expire_cutoff);
      if (drop.step() != SQLITE_DONE) return drop.error(context + ": expiring samples");
      stats.expired += sqlite3_changes(db_);
      drop.reset();
      drop_events.bind(1, id);
      drop_events.bind(2, expire_cutoff);
      if (drop_events.step() != SQLITE_DONE) return drop_events.error(context + ": expiring events");
      stats.expired += sqlite3_changes(db_);
      drop_events.reset();
    }
    done.emplace_back(id, raw_cutoff);
  }
  if (auto r = tx.commit(context); !r) return r.error();
  compacted_until_ns_ = std::move(done);
  return stats;
}

Result<StoreStats> SqliteStore::stats() {
  std::lock_guard lock(mu_);
  const std::string context = "reading statistics of " + path_;
  StoreStats s;
  struct Query {
    std::int64_t StoreStats::*field;
    const char* sql;
  };
  static constexpr Query kQueries[] = {
      {&StoreStats::drives, "SELECT count(*) FROM drives"},
      {&StoreStats::samples, "SELECT count(*) FROM samples"},
      {&StoreStats::events, "SELECT count(*) FROM thermal_events"},
      {&StoreStats::state_entries, "SELECT count(*) FROM drive_state"},
      {&StoreStats::used_bytes,
       "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), "
       "pragma_freelist_count(), pragma_page_size()"},
  };
  for (const auto& q : kQueries) {
    auto v = scalar(db_, q.sql, context);
    if (!v) return v.error();
    s.*q.field = *v;
  }
  return s;
}

}  // namespace nvmond
