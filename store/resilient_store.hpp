#pragma once
// A Store that keeps the daemon monitoring when its history cannot be reached
// (a corrupt file, a full or read-only filesystem, a database locked by
// someone else). Every call goes to the real store when it is open; when it
// fails, the store is closed, the failure is counted by reason and logged once
// per state change (ok -> failing, a different reason, failing -> ok), and the
// calls fail fast until a backoff (in Clock time) allows the next attempt to
// open it again. A corrupt store is set aside by the backend (never deleted)
// and a fresh one opened at once.
//
// Callers see plain Store errors: analytics that need history degrade, the
// health polls that feed them go on.
//
// Thread-safety: every method locks one mutex (the SQLite store serialises
// anyway); the error listener runs under it and must not call back.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "store/store.hpp"

namespace nvmond {

// Where the resilient store's real store lives.
class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  // Opens (creating if needed) the store.
  virtual Result<std::unique_ptr<Store>> open() = 0;
  // Moves a corrupt store, already closed, out of the way so that open()
  // starts a fresh one. Never deletes it. Returns where it went.
  virtual Result<std::string> set_aside() = 0;
};

struct StoreRetry {
  Duration first = std::chrono::seconds(1);  // wait after the first failure
  Duration max = std::chrono::seconds(30);   // the wait doubles up to this
};

// The reasons nvmond_store_errors_total is labelled with.
inline constexpr const char* kStoreErrorReasons[] = {"corrupt", "full", "read_only", "locked", "io"};

class ResilientStore final : public Store {
 public:
  using ErrorListener = std::function<void(const std::string& reason)>;
  // Tries to open the backend right away, so a healthy history is ready
  // before the first poll. `clock` paces the retries and must outlive this.
  ResilientStore(std::unique_ptr<StoreBackend> backend, const Clock& clock, StoreRetry retry = {},
                 ErrorListener on_error = {});

  StoreStatus commit(const PollRecord& record) override;
  StoreStatus commit_all(const std::vector<PollRecord>& records) override;
  Result<std::optional<SampleRecord>> last_sample(const DriveKey& drive) override;
  Result<std::optional<WallTime>> latest_sample_time() override;
  Result<std::optional<SampleRecord>> first_sample_since(const DriveKey& drive, std::int64_t segment,
                                                         WallTime since) override;
  Result<std::vector<SampleRecord>> samples(const DriveKey& drive, WallTime from,
                                            WallTime to) override;
  Result<std::vector<ThermalEventRecord>> events(const DriveKey& drive, WallTime since) override;
  Result<std::optional<std::string>> state(const DriveKey& drive, std::string_view key) override;
  Result<CompactionStats> compact(WallTime now, const RetentionPolicy& policy) override;
  Result<StoreStats> stats() override;

  // The reason it is failing; nullopt while healthy.
  std::optional<std::string> failing() const;
  // Failures counted so far, by reason.
  std::map<std::string, std::uint64_t> errors() const;

 private:
  // Runs `op` on the open store, opening it first if the backoff allows.
  template <typename T, typename Op>
  Result<T> run(Op op);
  // Under the lock. Opens the backend; a corrupt store is set aside and a
  // fresh one opened in the same attempt.
  std::optional<Error> open_locked(WallTime now);
  void failed_locked(const Error& error, WallTime now);
  void succeeded_locked();

  mutable std::mutex mu_;
  std::unique_ptr<StoreBackend> backend_;
  const Clock& clock_;
  StoreRetry retry_;
  ErrorListener on_error_;
  std::unique_ptr<Store> store_;       // null while closed
  std::optional<std::string> failing_;  // reason, while failing
  Duration backoff_ = Duration::zero();
  WallTime last_try_{};
  WallTime next_try_{};
  std::map<std::string, std::uint64_t> errors_;
};

}  // namespace nvmond
