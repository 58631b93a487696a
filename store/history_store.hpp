#pragma once
// The daemon's history as one Store: <state_dir>/nvmond.db behind a
// ResilientStore (a corrupt, full, read-only or locked database never stops
// monitoring) and a StoreWriter (a slow or locked one never holds up a poll:
// writes queue for the writer thread). Two connections to the file: the
// writer's, and the readers' (read-only: analytics restoring a drive, wear
// windows), so a read never waits behind a write held up by another
// program's lock.
#include <chrono>
#include <memory>
#include <string>

#include "store/resilient_store.hpp"
#include "store/sqlite_store.hpp"
#include "store/store_writer.hpp"

namespace nvmond {

struct HistoryStoreOptions {
  SqliteOptions writes;  // the writer's connection
  // Readers wait only briefly: under WAL a lock held by another program does
  // not block them, so a longer wait would only be recovery or a rollback journal.
  std::chrono::milliseconds read_busy_timeout{200};
  StoreRetry retry;
  StoreWriterOptions writer;
};

// `retry_clock` paces the reopening of a failing database and must outlive
// the store; `on_error` counts the writer's failures, by reason (the one
// owner of the file: a reader's failure is neither logged nor counted).
std::unique_ptr<StoreWriter> open_history_store(const std::string& state_dir, const Clock& retry_clock,
                                                ResilientStore::ErrorListener on_error = {},
                                                const HistoryStoreOptions& options = {});

}  // namespace nvmond
