#include "store/resilient_store.hpp"

#include <algorithm>

#include "core/log.hpp"

namespace nvmond {
namespace {

std::string known_reason(const std::string& reason) {
  for (const char* r : kStoreErrorReasons) {
    if (reason == r) return reason;
  }
  return "io";
}

}  // namespace

ResilientStore::ResilientStore(std::unique_ptr<StoreBackend> backend, const Clock& clock,
                               StoreRetry retry, ErrorListener on_error)
    : backend_(std::move(backend)), clock_(clock), retry_(retry), on_error_(std::move(on_error)) {
  std::lock_guard lock(mu_);
  (void)open_locked(clock_.wall());
}

std::optional<Error> ResilientStore::open_locked(WallTime now) {
  last_try_ = now;
  auto opened = backend_->open();
  if (!opened && opened.error().reason == "corrupt") {
    failed_locked(opened.error(), now);
    auto aside = backend_->set_aside();
    if (!aside) {
      log::error("history store: setting the corrupt database aside: {}", aside.error().message);
      return aside.error();
    }
    log::warn("history store: corrupt database moved to {}; starting a fresh one", *aside);
    opened = backend_->open();
  }
  if (!opened) {
    failed_locked(opened.error(), now);
    return opened.error();
  }
  store_ = std::move(*opened);
  succeeded_locked();
  return std::nullopt;
}

template <typename T, typename Op>
Result<T> ResilientStore::run(Op op) {
  std::lock_guard lock(mu_);
  const WallTime now = clock_.wall();
  if (!store_) {
    // A clock stepped back before the last try must not stall the retries.
    if (failing_ && now < next_try_ && now >= last_try_) {
      return Error{*failing_, "history store unavailable (" + *failing_ + "); retrying later"};
    }
    if (auto err = open_locked(now)) return *err;
  }
  Result<T> r = op(*store_);
  if (!r) {
    failed_locked(r.error(), now);
    if (r.error().reason == "corrupt") {
      // Set aside now, while nothing holds the file; the next call (not
      // delayed) starts a fresh database.
      if (auto aside = backend_->set_aside()) {
        log::warn("history store: corrupt database moved to {}; starting a fresh one", *aside);
        next_try_ = now;
      } else {
        log::error("history store: setting the corrupt database aside: {}", aside.error().message);
      }
    }
    return r;
  }
  succeeded_locked();
  return r;
}

void ResilientStore::failed_locked(const Error& error, WallTime now) {
  const std::string reason = known_reason(error.reason);
  ++errors_[reason];
  if (on_error_) on_error_(reason);
  if (!failing_) {
    log::error("history store failing ({}): {}; drives are still polled and exported, history is "
               "not recorded until it recovers",
               reason, error.message);
  } else if (*failing_ != reason) {
    log::error("history store still failing, now ({}): {}", reason, error.message);
  }
  failing_ = reason;
  store_.reset();  // reopened on the next attempt: a fresh handle after a remount or a fix
  backoff_ = backoff_ == Duration::zero() ? retry_.first : std::min(backoff_ * 2, retry_.max);
  next_try_ = now + std::chrono::duration_cast<WallTime::duration>(backoff_);
}

void ResilientStore::succeeded_locked() {
  if (!failing_) return;
  log::info("history store recovered (was failing: {}); recording history again", *failing_);
  failing_.reset();
  backoff_ = Duration::zero();
}

std::optional<std::string> ResilientStore::failing() const {
  std::lock_guard lock(mu_);
  return failing_;
}

std::map<std::string, std::uint64_t> ResilientStore::errors() const {
  std::lock_guard lock(mu_);
  return errors_;
}

StoreStatus ResilientStore::commit(const PollRecord& record) {
  return run<std::monostate>([&](Store& s) { return s.commit(record); });
}

StoreStatus ResilientStore::commit_all(const std::vector<PollRecord>& records) {
  return run<std::monostate>([&](Store& s) { return s.commit_all(records); });
}

Result<std::optional<SampleRecord>> ResilientStore::last_sample(const DriveKey& drive) {
  return run<std::optional<SampleRecord>>([&](Store& s) { return s.last_sample(drive); });
}

Result<std::optional<WallTime>> ResilientStore::latest_sample_time() {
  return run<std::optional<WallTime>>([&](Store& s) { return s.latest_sample_time(); });
}

Result<std::optional<SampleRecord>> ResilientStore::first_sample_since(const DriveKey& drive,
                                                                       std::int64_t segment,
                                                                       WallTime since) {
  return run<std::optional<SampleRecord>>(
      [&](Store& s) { return s.first_sample_since(drive, segment, since); });
}

Result<std::vector<SampleRecord>> ResilientStore::samples(const DriveKey& drive, WallTime from,
                                                          WallTime to) {
  return run<std::vector<SampleRecord>>([&](Store& s) { return s.samples(drive, from, to); });
}

Result<std::vector<ThermalEventRecord>> ResilientStore::events(const DriveKey& drive, WallTime since) {
  return run<std::vector<ThermalEventRecord>>([&](Store& s) { return s.events(drive, since); });
}

Result<std::optional<std::string>> ResilientStore::state(const DriveKey& drive, std::string_view key) {
  return run<std::optional<std::string>>([&](Store& s) { return s.state(drive, key); });
}

Result<CompactionStats> ResilientStore::compact(WallTime now, const RetentionPolicy& policy) {
  return run<CompactionStats>([&](Store& s) { return s.compact(now, policy); });
}

Result<StoreStats> ResilientStore::stats() {
  return run<StoreStats>([&](Store& s) { return s.stats(); });
}

}  // namespace nvmond
