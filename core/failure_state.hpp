#pragma once
// The rule for a failure that repeats (a poll, a save, a capture, a retry):
// one log line when it starts, one when its reason changes, one when it
// ends; the attempts in between are counted in a metric, not logged. This
// says when a line is due; the caller writes it, with its own context.
//
// Thread-safety: none; one per repeating thing, used by one thread.
#include <optional>

#include "core/error_reason.hpp"

namespace nvmond {

class FailureState {
 public:
  enum class Change {
    none,     // failing as before: count it, say nothing
    started,  // was fine: log the failure
    changed,  // failing for another reason now: log the new reason
  };
  Change failed(ErrorReason reason) {
    const Change c = !failing_ ? Change::started : *failing_ != reason ? Change::changed : Change::none;
    failing_ = reason;
    return c;
  }
  // True when this success ends a failure: log the recovery once.
  bool succeeded() {
    const bool was = failing_.has_value();
    failing_.reset();
    return was;
  }
  const std::optional<ErrorReason>& failing() const { return failing_; }

 private:
  std::optional<ErrorReason> failing_;
};

}  // namespace nvmond
