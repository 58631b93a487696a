// The simulated Device Self-test: a test that runs in the model's time and
// the log page (06h) that reports it.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "collectors/sim_name.hpp"
#include "sim/drive_model.hpp"
#include "sim/drive_model_detail.hpp"

namespace nvmond {

using sim_detail::kNsPerHour;

namespace {

// Results (Device Self-test Status, bits 3:0) the model gives.
constexpr std::uint8_t kPassed = 0x0;
constexpr std::size_t kSimSelfTestResults = 20;  // what the log page holds
constexpr std::uint8_t kAbortedByCommand = 0x1;
constexpr std::uint8_t kFailedSegments = 0x7;
// Where a failing drive's test fails: the short test's read scan is its
// second segment, the extended test's full media scan its fifth.
constexpr std::uint8_t kShortFailedSegment = 2;
constexpr std::uint8_t kExtendedFailedSegment = 5;
// An extended test reads the whole media in the background at about
// 1 GB/s (what EDSTT works out to on current datacenter drives: tens of
// minutes per terabyte), and takes at least 10 minutes; Identify's EDSTT is
// in whole minutes, so the length is too.
constexpr double kExtendedScanBytesPerSecond = 1e9;
constexpr auto kExtendedMinimum = std::chrono::minutes(10);

std::uint8_t status_of(SelfTestKind kind, std::uint8_t result) {
  return static_cast<std::uint8_t>((static_cast<std::uint8_t>(kind) << 4) | result);
}

SelfTestResult result_at(std::uint8_t status, std::uint8_t segment, std::uint64_t power_on_hours) {
  SelfTestResult r;
  r.status = status;
  r.segment = segment;
  r.power_on_hours = power_on_hours;
  return r;
}

}  // namespace

Duration DriveModel::extended_self_test_duration() const {
  const double minutes = std::ceil(static_cast<double>(spec_.capacity_bytes) / kExtendedScanBytesPerSecond / 60.0);
  return std::max<Duration>(kExtendedMinimum, std::chrono::minutes(static_cast<std::int64_t>(minutes)));
}

std::optional<Error> DriveModel::start_self_test(SelfTestKind kind) {
  std::lock_guard lock(mu_);
  if (self_test_) {
    return Error{
        ErrorReason::busy,
        fmt::format("{}: device self-test ({}): Device Self-test in Progress (a {} test is running)",
                    sim_device_path(spec_.name), self_test_kind_name(kind), self_test_kind_name(self_test_->kind))};
  }
  const Duration length = kind == SelfTestKind::extended_test ? extended_self_test_duration() : kSimShortSelfTest;
  self_test_ = RunningSelfTest{kind, now_, length, c_.power_on_ns};
  return std::nullopt;
}

void DriveModel::abort_self_test() {
  std::lock_guard lock(mu_);
  if (self_test_) end_self_test_locked(kAbortedByCommand, 0, c_.power_on_ns);
}

void DriveModel::finish_self_test_locked() {
  if (!self_test_ || now_ < self_test_->started + self_test_->length) return;
  const bool failed = spec_.self_test_failure;
  const std::uint8_t segment = !failed                                           ? 0
                               : self_test_->kind == SelfTestKind::extended_test ? kExtendedFailedSegment
                                                                                 : kShortFailedSegment;
  // Power-on time when the test completed, not when the model noticed.
  const u128 at = self_test_->power_on_ns_at_start + static_cast<u128>(self_test_->length.count());
  end_self_test_locked(failed ? kFailedSegments : kPassed, segment, at);
}

void DriveModel::end_self_test_locked(std::uint8_t result, std::uint8_t segment, u128 power_on_ns) {
  const auto hours = static_cast<std::uint64_t>(power_on_ns / kNsPerHour);
  self_test_results_.insert(self_test_results_.begin(), result_at(status_of(self_test_->kind, result), segment, hours));
  if (self_test_results_.size() > kSimSelfTestResults) self_test_results_.resize(kSimSelfTestResults);
  self_test_.reset();
}

SelfTestLog DriveModel::self_test_log() const {
  std::lock_guard lock(mu_);
  SelfTestLog log;
  if (self_test_) {
    log.current_operation = static_cast<std::uint8_t>(self_test_->kind);
    const double done = seconds(now_ - self_test_->started) / seconds(self_test_->length);
    log.completion_pct = static_cast<std::uint8_t>(std::clamp(std::floor(done * 100.0), 0.0, 99.0));
  }
  log.results = self_test_results_;
  if (spec_.self_test_failure) {
    log.results.push_back(result_at(status_of(SelfTestKind::extended_test, kFailedSegments), kExtendedFailedSegment,
                                    history_power_on_hours_));
  }
  log.results.push_back(result_at(status_of(SelfTestKind::short_test, kPassed), 0, history_power_on_hours_));
  if (log.results.size() > kSimSelfTestResults) log.results.resize(kSimSelfTestResults);
  return log;
}

}  // namespace nvmond
