#include "store/sqlite_backend.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "store/sqlite_util.hpp"

namespace nvmond {
namespace {

namespace fs = std::filesystem;

ErrorReason reason_of(const std::error_code& ec) { return sqlite::reason_of_errno(ec.value()); }

}  // namespace

Result<std::unique_ptr<Store>> SqliteBackend::open() {
  std::error_code ec;
  fs::create_directories(state_dir_, ec);
  if (ec) {
    return Error{reason_of(ec), fmt::format("creating state directory {}: {}", state_dir_, ec.message())};
  }
  auto store = SqliteStore::open_file((fs::path(state_dir_) / SqliteStore::kFileName).string(), options_);
  if (!store) {
    Error e = store.error();
    // SQLite's CANTOPEN keeps the errno of its last fallback, not the
    // cause; a directory we may not write is the usual one.
    if (e.reason == ErrorReason::io && ::access(state_dir_.c_str(), W_OK) != 0) {
      e.reason = sqlite::reason_of_errno(errno);
    }
    return e;
  }
  return std::unique_ptr<Store>(std::move(*store));
}

Result<std::string> SqliteBackend::set_aside() {
  return set_aside_database(fs::path(state_dir_) / SqliteStore::kFileName);
}

Result<std::string> set_aside_database(const fs::path& db) {
  // Real time, not the daemon's clock: the name is for the operator reading the directory.
  const std::string stamp = utc_stamp(std::chrono::system_clock::now());
  fs::path aside = db;
  aside += ".corrupt-" + stamp;
  for (int n = 1; fs::exists(aside); ++n) {
    aside = db;
    aside += fmt::format(".corrupt-{}.{}", stamp, n);
  }
  std::error_code ec;
  fs::rename(db, aside, ec);
  if (ec) return Error{reason_of(ec), fmt::format("renaming {} to {}: {}", db.string(), aside.string(), ec.message())};
  for (const char* suffix : {"-wal", "-shm"}) {
    fs::path from = db;
    from += suffix;
    fs::path to = aside;
    to += suffix;
    if (fs::exists(from, ec)) fs::rename(from, to, ec);  // best effort: the main file is what matters
  }
  return aside.string();
}

}  // namespace nvmond
