#pragma once
// Thin RAII over the SQLite C API, private to daemon/store. Errors become
// Error{reason, "<context>: <sqlite message>"}, reason one of corrupt,
// full, read_only, locked, io (what an operator can act on).
#include <sqlite3.h>

#include <cstdint>
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


class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql);
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
};

// BEGIN IMMEDIATE … COMMIT, rolled back unless commit() succeeded.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  ~Transaction();
  Result<std::monostate> begin(std::string_view context);
  Result<std::monostate> commit(std::string_view context);

 private:
  sqlite3* db_;
  bool open_ = false;
};

}  // namespace nvmond::sqlite
