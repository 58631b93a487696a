#include "store/sqlite_run_backend.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <system_error>

#include "core/log.hpp"
#include "store/sqlite_backend.hpp"
#include "store/sqlite_run_store.hpp"
#include "store/sqlite_store.hpp"
#include "store/sqlite_util.hpp"

namespace nvmond {
namespace {

namespace fs = std::filesystem;

// The id of a run directory's name: NAME-ID, or NAME-ID.anything (one kept
// aside); nullopt for anything else.
std::optional<std::int64_t> run_dir_id(const std::string& entry) {
  for (auto dash = entry.rfind('-'); dash != std::string::npos && dash > 0; dash = entry.rfind('-', dash - 1)) {
    const char* first = entry.data() + dash + 1;
    const char* last = entry.data() + entry.size();
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(first, last, id);
    if (ec == std::errc{} && end != first && (end == last || *end == '.')) return id;
  }
  return std::nullopt;
}

}  // namespace

std::int64_t highest_run_dir_id(const fs::path& runs_dir) {
  std::int64_t highest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(runs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto id = run_dir_id(it->path().filename().string())) highest = std::max(highest, *id);
  }
  return highest;
}

bool SqliteRunBackend::never_had_a_run_database() const {
  std::error_code ec;
  const std::string aside_prefix = std::string(kFileName) + ".corrupt-";
  for (fs::directory_iterator it(state_dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kFileName || name.starts_with(aside_prefix)) return false;
  }
  return true;
}

Result<std::unique_ptr<RunStore>> SqliteRunBackend::open() {
  std::error_code ec;
  fs::create_directories(state_dir_, ec);
  if (ec) {
    return Error{sqlite::reason_of_errno(ec.value()),
                 fmt::format("creating state directory {}: {}", state_dir_, ec.message())};
  }
  const fs::path dir(state_dir_);
  const bool first = never_had_a_run_database();
  auto store =
      SqliteRunStore::open_file((dir / kFileName).string(), std::max(set_aside_ids_, highest_run_dir_id(dir / "runs")));
  if (!store) return store.error();
  const fs::path legacy = dir / SqliteStore::kFileName;
  if (first && fs::exists(legacy, ec)) {
    // Best effort: a legacy run that cannot be copied is still read from
    // nvmond.db by `nvmonctl report`, and nothing is written there.
    if (auto n = (*store)->import_runs(legacy.string()); !n) {
      log::warn("run store: the runs recorded in {} could not be imported: {}", legacy.string(), n.error().message);
    } else if (*n > 0) {
      log::info("run store: {} run(s) recorded in {} imported into {}", *n, legacy.string(),
                (dir / kFileName).string());
    }
  }
  return std::unique_ptr<RunStore>(std::move(*store));
}

Result<std::string> SqliteRunBackend::set_aside() {
  const fs::path db = fs::path(state_dir_) / kFileName;
  set_aside_ids_ = std::max(set_aside_ids_, highest_run_id(db.string()));
  return set_aside_database(db);
}

}  // namespace nvmond
