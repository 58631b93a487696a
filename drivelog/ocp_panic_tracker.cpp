#include "drivelog/ocp_panic_tracker.hpp"

#include <fmt/core.h>

#include "collectors/nvme/ocp_log_pages.hpp"

namespace nvmond {

std::optional<std::string> OcpPanicTracker::update(const OcpErrorRecoveryLog& log) {
  const bool first = !last_id_.has_value();
  const bool fresh = log.panicked() && (first || log.panic_id != *last_id_ || log.panic_count > last_count_);
  last_id_ = log.panic_id;
  last_count_ = log.panic_count;
  if (!fresh) return std::nullopt;
  return describe_ocp_panic(log);
}

std::string describe_ocp_panic(const OcpErrorRecoveryLog& log) {
  std::string text = fmt::format("panic 0x{:x} (panic count {}): reset action {}, wait {} ms; recovery action {}",
                                 log.panic_id, log.panic_count, ocp_reset_action_text(log.panic_reset_action),
                                 log.panic_reset_wait_time_ms, ocp_recovery_action_text(log.device_recovery_action_1));
  if (log.device_recovery_action_2 != 0) {
    text += fmt::format("; then {}", ocp_recovery_action_text(log.device_recovery_action_2));
  }
  return text;
}

}  // namespace nvmond
