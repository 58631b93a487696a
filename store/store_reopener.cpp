#include "store/store_reopener.hpp"

#include <algorithm>

#include "core/log.hpp"

namespace nvmond {
namespace {

ErrorReason known_reason(ErrorReason reason) {
  for (ErrorReason r : kStoreErrorReasons) {
    if (reason == r) return reason;
  }
  return ErrorReason::io;
}

}  // namespace

bool is_answer(const Error& error) {
  for (ErrorReason r : kAnswerReasons) {
    if (error.reason == r) return true;
  }
  return false;
}

bool StoreHealth::may_try(WallTime now) const {
  // A clock stepped back before the last try must not stall the retries.
  return !failing() || now >= next_try_ || now < last_try_;
}

Error StoreHealth::unavailable() const {
  return Error{*failing(), fmt::format("{} unavailable ({}); retrying later", role_.name, to_text(*failing()))};
}

void StoreHealth::failed(const Error& error, WallTime now) {
  const ErrorReason reason = known_reason(error.reason);
  ++errors_[reason];
  if (on_error_) on_error_(reason);
  switch (state_.failed(reason)) {
    case FailureState::Change::started:
      log::error("{} failing ({}): {}; {}", role_.name, to_text(reason), error.message, role_.while_down);
      break;
    case FailureState::Change::changed:
      log::error("{} still failing, now ({}): {}", role_.name, to_text(reason), error.message);
      break;
    case FailureState::Change::none: break;
  }
  last_try_ = now;
  backoff_ = backoff_ == Duration::zero() ? retry_.first : std::min(backoff_ * 2, retry_.max);
  next_try_ = now + std::chrono::duration_cast<WallTime::duration>(backoff_);
}

void StoreHealth::succeeded() {
  const std::optional<ErrorReason> was = failing();
  if (!state_.succeeded()) return;
  log::info("{} recovered (was failing: {}); {}", role_.name, to_text(*was), role_.when_back);
  backoff_ = Duration::zero();
}

void log_store_set_aside(const StoreRole& role, const std::string& where) {
  log::warn("{}: corrupt database moved to {}; starting a fresh one", role.name, where);
}

void log_store_set_aside_failed(const StoreRole& role, const Error& error) {
  log::error("{}: setting the corrupt database aside: {}", role.name, error.message);
}

}  // namespace nvmond
