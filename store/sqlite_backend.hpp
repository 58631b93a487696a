#pragma once
// The SQLite history as a StoreBackend: <state_dir>/nvmond.db, opened (and
// created) on demand; a corrupt one is renamed nvmond.db.corrupt-<UTC time>
// (with its -wal and -shm files, so it can still be opened and inspected).
#include <filesystem>
#include <string>

#include "store/resilient_store.hpp"
#include "store/sqlite_store.hpp"

namespace nvmond {

// Renames the database file `db` (with its -wal and -shm) to
// `db`.corrupt-<UTC time>[.N]; never deletes. Returns where it went.
Result<std::string> set_aside_database(const std::filesystem::path& db);

class SqliteBackend final : public StoreBackend {
 public:
  explicit SqliteBackend(std::string state_dir, SqliteOptions options = {})
      : state_dir_(std::move(state_dir)), options_(options) {}
  Result<std::unique_ptr<Store>> open() override;
  Result<std::string> set_aside() override;

 private:
  std::string state_dir_;
  SqliteOptions options_;
};

}  // namespace nvmond
