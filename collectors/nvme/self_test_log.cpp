#include "collectors/nvme/self_test_log.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

namespace nvmond {

namespace {

// NVMe Base Specification 2.0, figure "Self-test Result Data Structure".
// Reserved byte 3 is not read.
constexpr std::array kSelfTestResultFields = {
    field<&SelfTestResult::status>("Device Self-test Status", 0, 1),
    field<&SelfTestResult::segment>("Segment Number", 1, 1),
    field<&SelfTestResult::valid_diagnostic_info>("Valid Diagnostic Information", 2, 1),
    field<&SelfTestResult::power_on_hours>("Power On Hours", 4, 8),
    field<&SelfTestResult::nsid>("Namespace Identifier", 12, 4),
    field<&SelfTestResult::failing_lba>("Failing LBA", 16, 8),
    field<&SelfTestResult::status_code_type_raw>("Status Code Type", 24, 1),
    field<&SelfTestResult::status_code>("Status Code", 25, 1),
    field<&SelfTestResult::vendor_specific>("Vendor Specific", 26, 2),
};

// Indexed by the result (Device Self-test Status bits 3:0).
constexpr std::array<std::string_view, 10> kResultNames = {
    "passed",                     // 0h completed without error
    "aborted_command",            // 1h aborted by a Device Self-test command
    "aborted_reset",              // 2h aborted by a Controller Level Reset
    "aborted_namespace_removed",  // 3h aborted by a namespace removal
    "aborted_format",             // 4h aborted by a Format NVM command
    "fatal_error",                // 5h fatal or unknown test error
    "failed_segment_unknown",     // 6h completed with a failed segment, unknown which
    "failed_segments",            // 7h completed with one or more failed segments
    "aborted_unknown",            // 8h aborted for unknown reason
    "aborted_sanitize",           // 9h aborted by a sanitize operation
};

}  // namespace

std::span<const FieldSpec<SelfTestResult>> self_test_result_fields() { return kSelfTestResultFields; }

Result<SelfTestLog> decode_self_test_log(std::span<const std::uint8_t> page) {
  if (page.size() != kSelfTestLogBytes) {
    return Error{ErrorReason::decode,
                 fmt::format("device self-test log (06h): expected {} bytes, got {}", kSelfTestLogBytes, page.size())};
  }
  SelfTestLog log;
  log.current_operation = static_cast<std::uint8_t>(page[0] & 0x0fu);
  log.completion_pct = std::min<std::uint8_t>(static_cast<std::uint8_t>(page[1] & 0x7fu), 100);
  for (std::size_t i = 0; i < kSelfTestResults; ++i) {
    SelfTestResult r;
    apply_fields(self_test_result_fields(),
                 page.subspan(kSelfTestResultsOffset + i * kSelfTestResultBytes, kSelfTestResultBytes), r);
    if (r.result() != kSelfTestResultUnused) log.results.push_back(r);
  }
  return log;
}

std::string_view self_test_result_text(std::uint8_t result) {
  return result < kResultNames.size() ? kResultNames[result] : std::string_view{"other"};
}

std::string_view self_test_kind_text(std::uint8_t code) {
  for (const auto& [kind, name] : kSelfTestKindNames) {
    if (static_cast<std::uint8_t>(kind) == code) return name;
  }
  return code == kSelfTestVendorCode ? "vendor" : "other";
}

}  // namespace nvmond
