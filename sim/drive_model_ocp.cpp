// The simulated drive's OCP logs beside C0: the latency monitor (C3h) and
// the error recovery log (C1h).
#include <algorithm>
#include <chrono>

#include "sim/drive_model.hpp"

namespace nvmond {

namespace {
constexpr auto kLatencyPeriod = std::chrono::minutes(5);  // the Active Bucket Timer's unit
}  // namespace

void DriveModel::record_latency(IoOp kind, Duration latency, std::uint64_t count) {
  if (!spec_.has_ocp) return;
  std::lock_guard lock(mu_);
  if (!latency_window_start_ || now_ - *latency_window_start_ >= kLatencyPeriod * kSimLatencyWindowPeriods) {
    latency_window_start_ = now_;
    latency_active_ = {};
  }
  const auto ms = std::chrono::duration<double, std::milli>(latency).count();
  std::size_t bucket = kOcpLatencyBuckets;
  for (std::size_t b = 0; b < kOcpLatencyBuckets; ++b) {
    if (ms >= 5.0 * (kSimLatencyThresholdsRaw[b] + 1)) bucket = b;
  }
  if (bucket == kOcpLatencyBuckets) return;  // faster than threshold A
  const std::size_t op = kind == IoOp::read ? 0 : 1;
  // The drive's 32-bit counters saturate.
  auto bump = [count](std::uint32_t& n) {
    n = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{n} + count, UINT32_MAX));
  };
  bump(latency_static_[bucket][op]);
  bump(latency_active_[bucket][op]);
}

std::optional<OcpLatencyMonitorLog> DriveModel::ocp_latency_monitor() const {
  if (!spec_.has_ocp) return std::nullopt;
  std::lock_guard lock(mu_);
  OcpLatencyMonitorLog log;
  log.feature_status = 0x1;
  log.active_threshold_raw = kSimLatencyThresholdsRaw;
  log.active_bucket_timer_threshold = kSimLatencyWindowPeriods;
  if (latency_window_start_) {
    log.active_bucket_timer = static_cast<std::uint16_t>((now_ - *latency_window_start_) / kLatencyPeriod);
  }
  log.static_bucket = latency_static_;
  log.active_bucket = latency_active_;
  log.log_page_version = 1;
  return log;
}

std::optional<OcpErrorRecoveryLog> DriveModel::ocp_error_recovery() const {
  if (!spec_.has_ocp) return std::nullopt;
  OcpErrorRecoveryLog log;
  log.log_page_version = 1;
  if (!spec_.ocp_panic) return log;
  // A firmware assert the drive wants cleared with a controller reset, then
  // looked at by its vendor.
  log.panic_id = 0x5E1F0A17;
  log.panic_count = 1;
  log.panic_reset_action = 0x1;
  log.panic_reset_wait_time_ms = 500;
  log.device_recovery_action_1 = 3;
  return log;
}

}  // namespace nvmond
