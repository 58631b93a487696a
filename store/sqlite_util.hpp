#pragma once
// Thin RAII over the SQLite C API, private to daemon/store. Errors become
// Error{reason, "<context>: <sqlite message>"}, reason one of corrupt,
// full, read_only, locked, io (what an operator can act on).
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/clock.hpp"
#include "core/result.hpp"
#include "core/u128.hpp"

namespace nvmond::sqlite {

Error error(sqlite3* db, std::string_view context);
// The reason for a failed file operation's errno: read_only, full or io.
ErrorReason reason_of_errno(int err);

// Runs one or more statements with no results.
Result<std::monostate> exec(sqlite3* db, const char* sql, std::string_view context);

// The most page cache one of the daemon's connections keeps. SQLite's
// default (2000 KiB a connection) fills only as fast as the file grows, so a
// daemon's RSS crept up for hours (bench/long_soak.py: +2.3 MiB/h, the growth
// heaptrack put in SQLite's caches) before it would have levelled off. The
// kernel's page cache holds the same file anyway; SQLite's own copy saves
// little once the B-tree's upper pages are in it, which 256 KiB holds.
inline constexpr int kCacheKib = 256;
// Caps this connection's page cache at kCacheKib.
Result<std::monostate> limit_cache(sqlite3* db, std::string_view context);

class StmtCache;

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql);
  // Borrowed from `cache`: prepared the first time the connection runs this
  // SQL text, then reset and given back when this Stmt ends.
  Stmt(StmtCache& cache, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // False when preparation failed; error() then explains why.
  bool ok() const { return stmt_ != nullptr; }
  Error error(std::string_view context) const { return sqlite::error(db_, context); }

  // Binders take 1-based indices, as SQLite does.
  void bind(int i, std::int64_t v);
  void bind(int i, double v);
  void bind(int i, std::string_view v);
  void bind_null(int i);
  // Minimal big-endian bytes: small counters stay small on disk, 128-bit
  // values stay exact.
  void bind_u128(int i, u128 v);

  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step();
  void reset();

  std::int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  bool is_null(int col) const;
  u128 u128_at(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  StmtCache* cache_ = nullptr;
  const std::string* key_ = nullptr;  // the cache's own copy of the SQL text
};

// A connection's prepared statements, one idle statement per SQL text.
// Statements run on every poll are parsed once: parsing a windowed read
// cost more than running it. Not thread-safe (its owner's lock guards it);
// it must end before its connection closes.
class StmtCache {
 public:
  explicit StmtCache(sqlite3* db) : db_(db) {}
  ~StmtCache();
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  sqlite3* db() const { return db_; }

 private:
  friend class Stmt;
  // An idle statement for `sql`, or a new one (nullptr when it does not
  // prepare); `key` is set to the cache's copy of the text.
  sqlite3_stmt* take(std::string_view sql, const std::string*& key);
  // Back to idle; a second statement of the same text (a nested use) is
  // finalized instead.
  void give_back(const std::string& key, sqlite3_stmt* stmt);

  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*, std::less<>> idle_;
};

// BEGIN IMMEDIATE … COMMIT, rolled back unless commit() succeeded. A read
// transaction (BEGIN DEFERRED) gives several reads one snapshot.
class Transaction {
 public:
  enum class Kind { write, read };
  explicit Transaction(sqlite3* db, Kind kind = Kind::write) : db_(db), kind_(kind) {}
  ~Transaction();
  Result<std::monostate> begin(std::string_view context);
  Result<std::monostate> commit(std::string_view context);

 private:
  sqlite3* db_;
  Kind kind_;
  bool open_ = false;
};

}  // namespace nvmond::sqlite
