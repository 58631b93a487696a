#include "store/history_store.hpp"

#include "store/sqlite_backend.hpp"

namespace nvmond {

std::unique_ptr<StoreWriter> open_history_store(const std::string& state_dir, const Clock& retry_clock,
                                                ResilientStore::ErrorListener on_error,
                                                const HistoryStoreOptions& options) {
  SqliteOptions read_options = options.writes;
  read_options.busy_timeout = options.read_busy_timeout;
  auto writes = std::make_shared<ResilientStore>(std::make_unique<SqliteBackend>(state_dir, options.writes),
                                                 retry_clock, options.retry, on_error);
  auto reads = std::make_shared<ResilientStore>(std::make_unique<SqliteBackend>(state_dir, read_options),
                                                retry_clock, options.retry, on_error);
  return std::make_unique<StoreWriter>(std::move(writes), std::move(reads), options.writer);
}

}  // namespace nvmond
