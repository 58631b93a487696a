#pragma once
// The run store as a soak run's thread writes it: a round, or an update of
// the run's row, that the store cannot take for a reason that heals (another
// program holds the database's lock, the disk is full or read-only, an I/O
// error: ResilientRunStore reports each) is tried again with backoff, in the
// daemon's Clock time, until it lands. Meanwhile the run is paused:
// `on_pause` is told why, and told again (nullopt) once recording goes on.
// Nothing is lost or repeated: the round waits in memory, and a retry that
// finds it already there (an earlier try landed though it reported a
// failure) counts as recorded once the store shows it.
//
// A reason that does not heal (the run's record is gone with a corrupt
// database set aside, a record the store refuses) is passed on at once: the
// run fails for it.
//
// give_up() (the run is being stopped or paused, the daemon is stopping)
// ends the wait: the waiting call returns its last error, and later calls
// try once.
//
// Reads and the creation of a run pass through unchanged, and so does every
// write until be_patient(): while a run opens, a failure fails its start,
// which the scheduler retries.
//
// Thread-safety: calls from the run's thread; give_up() from any thread.
#include <condition_variable>
#include <functional>
#include <mutex>

#include "core/clock.hpp"
#include "store/run_store.hpp"
#include "store/store_reopener.hpp"

namespace nvmond {

// Whether a store failure goes away by itself (a lock released, space freed).
bool store_failure_heals(const Error& error);

class PatientRunStore final : public RunStore {
 public:
  using PauseFn = std::function<void(const std::optional<Error>& why)>;
  // `store` and `clock` outlive this.
  PatientRunStore(RunStore& store, const Clock& clock, PauseFn on_pause, bool patient = true,
                  StoreRetry retry = kRetry);

  // The first wait, doubling up to the last.
  static constexpr StoreRetry kRetry{std::chrono::seconds(1), std::chrono::seconds(15)};

  // From now on a write waits for the store (the run is open).
  void be_patient();
  void give_up();

  Result<std::int64_t> create_run(const RunRow& run) override { return store_.create_run(run); }
  Result<std::monostate> commit_round(std::int64_t run, const RoundRow& round, const std::string& checkpoint) override;
  Result<std::monostate> update_run(std::int64_t run, RunStatus status, std::optional<std::int64_t> ended_ns,
                                    const std::string& header) override;
  Result<std::optional<RunRow>> unfinished_run(const std::string& name) override { return store_.unfinished_run(name); }
  Result<std::optional<RunRow>> latest_run(const std::string& name) override { return store_.latest_run(name); }
  Result<std::vector<RoundRow>> rounds(std::int64_t run) override { return store_.rounds(run); }
  Result<std::vector<RoundRow>> rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) override {
    return store_.rounds_page(run, from, limit);
  }
  Result<std::optional<RunRow>> run(std::int64_t id) override { return store_.run(id); }
  Result<std::vector<RunRow>> runs(const std::optional<std::string>& serial, int limit) override {
    return store_.runs(serial, limit);
  }

 private:
  // Runs `write` until it lands, fails for good, or give_up(). `landed`
  // tells whether a "duplicate" answer after a failed try means the write
  // is there.
  Result<std::monostate> patiently(const std::function<Result<std::monostate>()>& write,
                                   const std::function<bool()>& landed);
  // False when given up before `until`.
  bool wait_until(WallTime until);

  RunStore& store_;
  const Clock& clock_;
  PauseFn on_pause_;
  StoreRetry retry_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool patient_;
  bool given_up_ = false;
};

}  // namespace nvmond
