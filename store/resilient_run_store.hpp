#pragma once
// A RunStore that survives its database as the history does (see
// store_reopener.hpp): opened on demand and retried with backoff when it
// cannot be (so soaks start once it can, not never), a corrupt one set aside
// and a fresh one started, failures counted by reason through the listener.
// A call while it is unavailable fails with the reason; a run whose round
// cannot be committed ends as failed, its run.json written from memory.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "store/run_store.hpp"
#include "store/store_reopener.hpp"

namespace nvmond {

class ResilientRunStore final : public RunStore {
 public:
  ResilientRunStore(std::unique_ptr<BackendOf<RunStore>> backend, const Clock& clock, StoreRetry retry = {},
                    StoreErrorListener on_error = {});

  Result<std::int64_t> create_run(const RunRow& run) override;
  Result<std::monostate> commit_round(std::int64_t run, const RoundRow& round, const std::string& checkpoint) override;
  Result<std::monostate> update_run(std::int64_t run, RunStatus status, std::optional<std::int64_t> ended_ns,
                                    const std::string& header) override;
  Result<std::optional<RunRow>> unfinished_run(const std::string& name) override;
  Result<std::optional<RunRow>> latest_run(const std::string& name) override;
  Result<std::vector<RoundRow>> rounds(std::int64_t run) override;
  Result<std::vector<RoundRow>> rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) override;
  Result<std::optional<RunRow>> run(std::int64_t id) override;
  Result<std::vector<RunRow>> runs(const std::optional<std::string>& serial, int limit) override;

  std::optional<ErrorReason> failing() const { return store_.failing(); }
  std::map<ErrorReason, std::uint64_t> errors() const { return store_.errors(); }

 private:
  Reopener<RunStore> store_;
};

}  // namespace nvmond
