#pragma once
// Another program holding the write lock of a SQLite database: a second,
// real connection inside BEGIN EXCLUSIVE (what `sqlite3 nvmond.db` with an
// open transaction, or a backup tool, does). Released by release() or at
// destruction.
#include <sqlite3.h>

#include <stdexcept>
#include <string>

namespace nvmond::test {

class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("opening " + path);
    // The daemon's writer may be mid-commit (its queue drains on its own
    // thread): wait for it as another program would, instead of failing.
    sqlite3_busy_timeout(db_, 10000);
    if (sqlite3_exec(db_, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      throw std::runtime_error("BEGIN EXCLUSIVE on " + path + ": " + sqlite3_errmsg(db_));
    }
  }
  ~WriteLockHolder() {
    release();
    sqlite3_close(db_);
  }
  WriteLockHolder(const WriteLockHolder&) = delete;
  WriteLockHolder& operator=(const WriteLockHolder&) = delete;

  void release() {
    if (held_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    held_ = false;
  }

 private:
  sqlite3* db_ = nullptr;
  bool held_ = true;
};

// Rows of `sql` (one integer) through a fresh connection: what is on disk.
inline long long count_rows(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  long long n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

}  // namespace nvmond::test
