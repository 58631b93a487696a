#pragma once
// A Store that keeps the daemon monitoring when its history cannot be reached
// (a corrupt file, a full or read-only filesystem, a database locked by
// someone else): see store_reopener.hpp for the retries, the counting and
// the logging. A corrupt store is set aside by the backend (never deleted)
// and a fresh one opened at once.
//
// Callers see plain Store errors: analytics that need history degrade, the
// health polls that feed them go on.
//
// Thread-safety: every method locks one mutex (the SQLite store serialises
// anyway); the error listener runs under it and must not call back.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "store/store.hpp"
#include "store/store_reopener.hpp"

namespace nvmond {

// Where the resilient store's real store lives.
using StoreBackend = BackendOf<Store>;

class ResilientStore final : public Store {
 public:
  using ErrorListener = StoreErrorListener;
  // Tries to open the backend right away, so a healthy history is ready
  // before the first poll. `clock` paces the retries and must outlive this.
  ResilientStore(std::unique_ptr<StoreBackend> backend, const Clock& clock, StoreRetry retry = {},
                 ErrorListener on_error = {});

  StoreStatus commit(const PollRecord& record) override;
  StoreStatus commit_all(const std::vector<PollRecord>& records) override;
  Result<std::optional<SampleRecord>> last_sample(const DriveKey& drive) override;
  Result<std::optional<WallTime>> latest_sample_time() override;
  Result<std::vector<std::optional<SampleRecord>>> first_samples_since(const DriveKey& drive, std::int64_t segment,
                                                                       std::span<const WallTime> since) override;
  Result<std::vector<SampleRecord>> samples(const DriveKey& drive, WallTime from, WallTime to) override;
  Result<std::vector<ThermalEventRecord>> events(const DriveKey& drive, WallTime since) override;
  Result<std::optional<std::string>> state(const DriveKey& drive, std::string_view key) override;
  Result<CompactionStats> compact(WallTime now, const RetentionPolicy& policy) override;
  Result<StoreStats> stats() override;

  // The reason it is failing; nullopt while healthy.
  std::optional<ErrorReason> failing() const { return store_.failing(); }
  // Failures counted so far, by reason.
  std::map<ErrorReason, std::uint64_t> errors() const { return store_.errors(); }

 private:
  Reopener<Store> store_;
};

}  // namespace nvmond
