#pragma once
// What keeps one durable store usable through failures, shared by the
// history (ResilientStore) and the runs (ResilientRunStore). Every call goes
// to the real store when it is open; when it fails, the store is closed, the
// failure counted by reason and logged once per state change (ok -> failing,
// a different reason, failing -> ok), and calls fail fast until a backoff (in
// Clock time, doubling up to a ceiling) allows the next attempt to open it.
// A corrupt store is set aside by its backend (never deleted) and a fresh one
// opened at once.
//
// "Recovered" is said only when an operation really succeeded, or when a
// fresh database replaced a corrupt one: reopening a read-only or full
// filesystem succeeds, and proves nothing, until a write does.
//
// Thread-safety: run() locks one mutex; the error listener runs under it and
// must not call back.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/failure_state.hpp"
#include "core/result.hpp"

namespace nvmond {

// Where a resilient store's real store `S` lives.
template <typename S>
class BackendOf {
 public:
  virtual ~BackendOf() = default;
  // Opens (creating if needed) the store.
  virtual Result<std::unique_ptr<S>> open() = 0;
  // Moves a corrupt store, already closed, out of the way so that open()
  // starts a fresh one. Never deletes it. Returns where it went.
  virtual Result<std::string> set_aside() = 0;
};

struct StoreRetry {
  Duration first = std::chrono::seconds(1);  // wait after the first failure
  Duration max = std::chrono::seconds(30);   // the wait doubles up to this
};

// The reasons nvmond_store_errors_total is labelled with.
inline constexpr ErrorReason kStoreErrorReasons[] = {ErrorReason::corrupt, ErrorReason::full, ErrorReason::read_only,
                                                     ErrorReason::locked, ErrorReason::io};

// Answers a healthy store gives (a round committed twice, a row naming a
// status nvmond does not know): passed on to the caller, never counted nor a
// reason to reopen.
inline constexpr ErrorReason kAnswerReasons[] = {ErrorReason::duplicate, ErrorReason::decode};
bool is_answer(const Error& error);

using StoreErrorListener = std::function<void(ErrorReason reason)>;

// How a store names itself in the log, and what its failure costs.
struct StoreRole {
  std::string name;        // "history store"
  std::string while_down;  // what still works and what is not recorded
  std::string when_back;   // what resumes
};

// The failure state machine, without the store: not thread-safe (its owner
// locks).
class StoreHealth {
 public:
  StoreHealth(StoreRole role, StoreRetry retry, StoreErrorListener on_error)
      : role_(std::move(role)), retry_(retry), on_error_(std::move(on_error)) {}

  // False while a backoff after a failure is running.
  bool may_try(WallTime now) const;
  // The error a call gets while the backoff runs.
  Error unavailable() const;
  // Counts and (on a change of state) logs the failure; the next try waits
  // one backoff step longer than the last.
  void failed(const Error& error, WallTime now);
  // A corrupt store was set aside: the next call opens a fresh one at once.
  void retry_now(WallTime now) { next_try_ = now; }
  // An operation succeeded: logs the recovery if it was failing.
  void succeeded();

  const StoreRole& role() const { return role_; }
  const std::optional<ErrorReason>& failing() const { return state_.failing(); }
  const std::map<ErrorReason, std::uint64_t>& errors() const { return errors_; }

 private:
  StoreRole role_;
  StoreRetry retry_;
  StoreErrorListener on_error_;
  FailureState state_;
  Duration backoff_ = Duration::zero();
  WallTime last_try_{};
  WallTime next_try_{};
  std::map<ErrorReason, std::uint64_t> errors_;
};

void log_store_set_aside(const StoreRole& role, const std::string& where);
void log_store_set_aside_failed(const StoreRole& role, const Error& error);

// Opens `S` through its backend on demand and runs operations on it.
template <typename S>
class Reopener {
 public:
  // Tries to open the backend right away. `clock` paces the retries and
  // must outlive this.
  Reopener(StoreRole role, std::unique_ptr<BackendOf<S>> backend, const Clock& clock, StoreRetry retry,
           StoreErrorListener on_error)
      : backend_(std::move(backend)), clock_(clock), health_(std::move(role), retry, std::move(on_error)) {
    std::lock_guard lock(mu_);
    (void)open_locked(clock_.wall());
  }

  // Runs `op` (S& -> Result<T>) on the open store, opening it first if the
  // backoff allows.
  template <typename T, typename Op>
  Result<T> run(Op op) {
    std::lock_guard lock(mu_);
    const WallTime now = clock_.wall();
    if (!store_) {
      if (!health_.may_try(now)) return health_.unavailable();
      if (auto err = open_locked(now)) return *err;
    }
    Result<T> r = op(*store_);
    if (r || is_answer(r.error())) {
      health_.succeeded();
      return r;
    }
    fail_locked(r.error(), now);
    // Set aside now, while nothing holds the file; the next call (not
    // delayed) starts a fresh database.
    if (r.error().reason == ErrorReason::corrupt && set_aside_locked()) health_.retry_now(now);
    return r;
  }

  std::optional<ErrorReason> failing() const {
    std::lock_guard lock(mu_);
    return health_.failing();
  }
  std::map<ErrorReason, std::uint64_t> errors() const {
    std::lock_guard lock(mu_);
    return health_.errors();
  }

 private:
  // A corrupt store is set aside and a fresh one opened in the same attempt.
  std::optional<Error> open_locked(WallTime now) {
    auto opened = backend_->open();
    bool fresh = false;
    if (!opened && opened.error().reason == ErrorReason::corrupt) {
      fail_locked(opened.error(), now);
      if (!set_aside_locked()) return opened.error();
      opened = backend_->open();
      fresh = true;
    }
    if (!opened) {
      fail_locked(opened.error(), now);
      return opened.error();
    }
    store_ = std::move(*opened);
    if (fresh) health_.succeeded();  // a new database was created and written
    return std::nullopt;
  }

  void fail_locked(const Error& error, WallTime now) {
    health_.failed(error, now);
    store_.reset();  // reopened on the next attempt: a fresh handle after a remount or a fix
  }

  bool set_aside_locked() {
    auto aside = backend_->set_aside();
    if (!aside) {
      log_store_set_aside_failed(health_.role(), aside.error());
      return false;
    }
    log_store_set_aside(health_.role(), *aside);
    return true;
  }

  mutable std::mutex mu_;
  std::unique_ptr<BackendOf<S>> backend_;
  const Clock& clock_;
  StoreHealth health_;
  std::unique_ptr<S> store_;  // null while closed
};

}  // namespace nvmond
