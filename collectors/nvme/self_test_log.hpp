#pragma once
// The Device Self-test log (Log ID 06h): its decoder and the names of a
// result's code and outcome. Pure functions, like error_log.hpp, so the
// libnvme backend, the simulated drive's tests and the metrics agree.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "collectors/health.hpp"
#include "collectors/nvme/field_table.hpp"
#include "collectors/self_test_kind.hpp"
#include "core/result.hpp"

namespace nvmond {

inline constexpr std::uint8_t kSelfTestLogId = 0x06;
inline constexpr std::size_t kSelfTestLogBytes = 564;
inline constexpr std::size_t kSelfTestResultBytes = 28;
inline constexpr std::size_t kSelfTestResults = 20;
inline constexpr std::size_t kSelfTestResultsOffset = 4;
inline constexpr std::uint8_t kSelfTestResultUnused = 0x0f;
inline constexpr std::uint8_t kSelfTestFailedSegments = 0x07;
// Self-test Code Eh: a vendor specific self-test.
inline constexpr std::uint8_t kSelfTestVendorCode = 0x0e;

// NVMe 2.0, figures "Device Self-test Log" and "Self-test Result Data
// Structure". `page` must be exactly 564 bytes (else Error{decode}). Unused
// entries (result Fh) are left out; the others keep the drive's order
// (newest first). The current operation is masked to bits 3:0 and the
// completion to bits 6:0, at most 100.
Result<SelfTestLog> decode_self_test_log(std::span<const std::uint8_t> page);
std::span<const FieldSpec<SelfTestResult>> self_test_result_fields();

// The `result` label: "passed", "aborted_command", ..., "aborted_sanitize";
// "other" for a reserved value (Ah..Eh).
std::string_view self_test_result_text(std::uint8_t result);
// The `kind` label: a SelfTestKind's name, "vendor"; "other" for a reserved code.
std::string_view self_test_kind_text(std::uint8_t code);

}  // namespace nvmond
