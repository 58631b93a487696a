#include "store/sqlite_util.hpp"

#include <array>
#include <cerrno>
#include <utility>
#include <fmt/core.h>

namespace nvmond::sqlite {

ErrorReason reason_of_errno(int err) {
  switch (err) {
    case EROFS:
    case EACCES:
    case EPERM: return ErrorReason::read_only;
    case ENOSPC:
    case EDQUOT: return ErrorReason::full;
    default: return ErrorReason::io;
  }
}

namespace {
ErrorReason reason_of(sqlite3* db) {
  if (db == nullptr) return ErrorReason::io;
  switch (sqlite3_errcode(db)) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return ErrorReason::corrupt;
    case SQLITE_FULL: return ErrorReason::full;
    case SQLITE_READONLY: return ErrorReason::read_only;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return ErrorReason::locked;
    default: break;
  }
  // SQLite reports a file it may not create or write as CANTOPEN or IOERR;
  // the system errno says why.
  return reason_of_errno(sqlite3_system_errno(db));
}

}  // namespace

Error error(sqlite3* db, std::string_view context) {
  return Error{reason_of(db),
               fmt::format("{}: {} (sqlite error {})", context, sqlite3_errmsg(db), sqlite3_extended_errcode(db))};
}

Result<std::monostate> exec(sqlite3* db, const char* sql, std::string_view context) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg != nullptr ? msg : "unknown error";
    sqlite3_free(msg);
    return Error{reason_of(db), fmt::format("{}: {}", context, text)};
  }
  return std::monostate{};
}

Result<std::monostate> limit_cache(sqlite3* db, std::string_view context) {
  const std::string pragma = fmt::format("PRAGMA cache_size=-{}", kCacheKib);  // negative: KiB, not pages
  return exec(db, pragma.c_str(), context);
}

Stmt::Stmt(sqlite3* db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
}

Stmt::Stmt(StmtCache& cache, std::string_view sql) : db_(cache.db_), cache_(&cache) { stmt_ = cache.take(sql, key_); }

Stmt::~Stmt() {
  if (cache_ == nullptr || stmt_ == nullptr) {
    sqlite3_finalize(stmt_);
    return;
  }
  // Reset ends a read left mid-rows, which would otherwise hold its WAL
  // snapshot (and hold back checkpoints) while the statement sits idle.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  cache_->give_back(*key_, stmt_);
}

StmtCache::~StmtCache() {
  for (auto& [sql, stmt] : idle_) sqlite3_finalize(stmt);
}

sqlite3_stmt* StmtCache::take(std::string_view sql, const std::string*& key) {
  auto it = idle_.find(sql);
  if (it == idle_.end()) it = idle_.emplace(std::string(sql), nullptr).first;
  key = &it->first;
  if (it->second != nullptr) return std::exchange(it->second, nullptr);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, key->data(), static_cast<int>(key->size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(stmt);
    return nullptr;
  }
  return stmt;
}

void StmtCache::give_back(const std::string& key, sqlite3_stmt* stmt) {
  auto it = idle_.find(key);
  if (it != idle_.end() && it->second == nullptr) {
    it->second = stmt;
  } else {
    sqlite3_finalize(stmt);
  }
}

void Stmt::bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
void Stmt::bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
void Stmt::bind(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}
void Stmt::bind_null(int i) { sqlite3_bind_null(stmt_, i); }

void Stmt::bind_u128(int i, u128 v) {
  std::array<unsigned char, 16> be{};
  int n = 0;
  for (u128 x = v; x != 0; x >>= 8) ++n;
  if (n == 0) n = 1;  // zero is one 0x00 byte, never an empty (NULL-like) blob
  for (int k = 0; k < n; ++k) {
    be[static_cast<std::size_t>(n - 1 - k)] = static_cast<unsigned char>(v >> (8 * k));
  }
  sqlite3_bind_blob(stmt_, i, be.data(), n, SQLITE_TRANSIENT);
}

int Stmt::step() { return sqlite3_step(stmt_); }
void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p != nullptr
             ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
}
bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

u128 Stmt::u128_at(int col) const {
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, col));
  int n = sqlite3_column_bytes(stmt_, col);
  u128 v = 0;
  for (int k = 0; k < n && k < 16; ++k) v = (v << 8) | p[k];
  return v;
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

Result<std::monostate> Transaction::begin(std::string_view context) {
  auto r = exec(db_, kind_ == Kind::write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED", context);
  open_ = r.ok();
  return r;
}

Result<std::monostate> Transaction::commit(std::string_view context) {
  auto r = exec(db_, "COMMIT", context);
  if (r.ok()) open_ = false;
  return r;
}

}  // namespace nvmond::sqlite
