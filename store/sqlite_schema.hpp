#pragma once
// Versioned schema of the SQLite store. PRAGMA user_version holds the version
// of the last migration applied; migrations only ever move forward and each
// one runs in its own transaction, so an interrupted upgrade resumes cleanly.
#include <span>
#include <string>

#include "core/result.hpp"

struct sqlite3;

namespace nvmond {

struct Migration {
  int version;      // 1, 2, 3 … in order; user_version after it ran
  const char* sql;  // one or more statements
};

// The ordered list. Append only: never edit a migration that has shipped.
std::span<const Migration> sqlite_migrations();

// Brings `db` up to the newest version; refuses a database newer than this build.
Result<int> migrate_schema(sqlite3* db, const std::string& path);

}  // namespace nvmond
