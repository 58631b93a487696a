#include "services/run_source.hpp"

#include <fmt/core.h>

#include <charconv>
#include <exception>
#include <filesystem>
#include <optional>

#include "services/config.hpp"
#include "store/sqlite_run_backend.hpp"
#include "store/sqlite_run_store.hpp"
#include "store/sqlite_store.hpp"
#include "pts/stored_run.hpp"

namespace nvmond {

namespace fs = std::filesystem;

namespace {

std::optional<std::int64_t> run_id(const std::string& text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

}  // namespace

Result<std::string> RunSource::state_dir() const {
  std::string dir = state_dir_;
  if (dir.empty() && !config_.empty()) {
    try {
      dir = load_config(config_, ConfigUse::tool).state_dir;
    } catch (const std::exception& e) {
      return Error{ErrorReason::config, e.what()};
    }
  }
  if (dir.empty()) dir = default_state_dir();
  return dir;
}

// runs.db first: the daemon's runs (and `nvmonctl test run --out DIR`'s);
// then nvmond.db, where the daemon kept them beside the history before they
// had a file of their own (its runs are imported into runs.db, but a state
// directory no newer daemon has opened has only this one).
Result<std::vector<std::string>> RunSource::databases() const {
  auto dir = state_dir();
  if (!dir) return dir.error();
  return std::vector<std::string>{(fs::path(*dir) / SqliteRunBackend::kFileName).string(),
                                  (fs::path(*dir) / SqliteStore::kFileName).string()};
}

Result<report::RunRecord> RunSource::load(const std::string& run) const {
  std::error_code ec;
  const auto id = run_id(run);
  if (fs::exists(run, ec) || !id) {
    auto record = report::load_run(run);
    if (!record && record.error().reason == ErrorReason::absent && !fs::exists(run, ec)) {
      return Error{ErrorReason::absent,
                   fmt::format("{}: no such run directory or run.json file, and not a run id", run)};
    }
    return record;
  }
  auto dbs = databases();
  if (!dbs) return dbs.error();
  std::optional<Error> unknown;
  for (const auto& db : *dbs) {
    auto stored = read_stored_run(db, *id);
    if (!stored) {
      if (stored.error().reason == ErrorReason::absent) continue;
      if (stored.error().reason == ErrorReason::unknown) {
        if (!unknown) unknown = stored.error();
        continue;
      }
      return stored.error();
    }
    auto typed = run_from_store(*stored);
    if (!typed) return typed.error();
    return report::record_of(std::move(*typed), fmt::format("run {} in {}", run, db));
  }
  if (unknown) return *unknown;
  return Error{ErrorReason::absent, fmt::format("run {}: no database at {} or {} (give the daemon's --state-dir DIR or "
                                                "--config FILE)",
                                                run, (*dbs)[0], (*dbs)[1])};
}

}  // namespace nvmond
