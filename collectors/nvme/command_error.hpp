#pragma once
// Maps what a libnvme ioctl wrapper returned to an Error value. libnvme
// returns -1 with errno set when the ioctl itself failed (no completion), or
// a positive NVMe status (SC bits 7:0, SCT bits 10:8, CRD/More/DNR above) when
// the controller completed the command with an error.
#include <cstdint>
#include <string_view>

#include "core/result.hpp"

namespace nvmond {

// Status Code Type and Status Code (bits 10:0), without CRD/More/DNR.
inline constexpr std::uint16_t nvme_status_code(int status) { return static_cast<std::uint16_t>(status & 0x7ff); }

// Reason labels (see Error::reason):
//   errno ENODEV/ENOENT/ENXIO   -> "absent"   (controller gone)
//   errno ETIMEDOUT/EINTR       -> "timeout"  (the kernel cancels a timed-out
//                                              passthrough command with EINTR)
//   any other errno             -> "io"
//   NVMe status Host Aborted (371h) -> "timeout" (command cancelled by the host's reset)
//   any other NVMe status       -> "nvme_status"
// Message: "<device>: <command>: <strerror>" or
//          "<device>: <command>: NVMe status 0x4109 (Invalid Log Page)".
// `rc` is the wrapper's return value (non-zero), `saved_errno` errno right after it.
Error command_error(std::string_view device, std::string_view command, int rc, int saved_errno);

// The controller says it does not implement this log page or feature selection
// (Invalid Field in Command, Invalid Log Page, Invalid Opcode): the data is
// absent, not broken, and asking again will not help.
bool is_unsupported_status(int rc);

}  // namespace nvmond
