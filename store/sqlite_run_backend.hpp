#pragma once
// The daemon's runs as a RunStore backend: STATE_DIR/runs.db, its own file so
// that a corrupt history (nvmond.db) never takes a soak's rounds with it, nor
// a corrupt run database the history. A corrupt one is renamed
// runs.db.corrupt-<UTC time> (never deleted).
//
// Run ids are never reused: a new run's id is above every run in runs.db,
// in the databases this backend set aside, and every NAME-ID directory under
// STATE_DIR/runs/ (which the soak runner makes when a run starts), so a fresh runs.db after a corrupt one cannot give a
// new run the id, or the directory, of an old one.
//
// Databases from before the split kept their runs in nvmond.db: the first
// runs.db made in a state directory imports them (nvmond.db is only read).
#include <cstdint>
#include <filesystem>
#include <string>

#include "store/run_store.hpp"
#include "store/store_reopener.hpp"

namespace nvmond {

using RunStoreBackend = BackendOf<RunStore>;

// The highest run id named by a NAME-ID entry of `runs_dir` (0: none).
std::int64_t highest_run_dir_id(const std::filesystem::path& runs_dir);

class SqliteRunBackend final : public RunStoreBackend {
 public:
  static constexpr const char* kFileName = "runs.db";

  explicit SqliteRunBackend(std::string state_dir) : state_dir_(std::move(state_dir)) {}
  Result<std::unique_ptr<RunStore>> open() override;
  Result<std::string> set_aside() override;

 private:
  // True before any runs.db was made here: not even one set aside.
  bool never_had_a_run_database() const;
  std::string state_dir_;
  // The highest id of the databases set aside (as far as they could be
  // read): a fresh database starts above it.
  std::int64_t set_aside_ids_ = 0;
};

}  // namespace nvmond
