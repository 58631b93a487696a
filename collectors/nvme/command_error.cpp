#include "collectors/nvme/command_error.hpp"

#include <fmt/core.h>
#include <libnvme.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace nvmond {

namespace {

constexpr std::uint16_t kInvalidOpcode = 0x001;       // generic
constexpr std::uint16_t kInvalidField = 0x002;        // generic
constexpr std::uint16_t kInvalidLogPage = 0x109;      // command specific
constexpr std::uint16_t kHostAbortedCommand = 0x371;  // path related

ErrorReason errno_reason(int err) {
  switch (err) {
    case ENODEV:
    case ENOENT:
    case ENXIO: return ErrorReason::absent;
    case ETIMEDOUT:
    case EINTR: return ErrorReason::timeout;
    default: return ErrorReason::io;
  }
}

// libnvme's text is "Short Name: long explanation"; the short name is enough.
std::string status_name(int status) {
  std::string text = nvme_status_to_string(status, false);
  if (auto colon = text.find(':'); colon != std::string::npos) text.resize(colon);
  return text;
}

}  // namespace

Error command_error(std::string_view device, std::string_view command, int rc, int saved_errno) {
  if (rc < 0) {
    // strerrordesc_np: thread-safe (devices are polled concurrently), unlike strerror.
    const char* text = saved_errno != 0 ? strerrordesc_np(saved_errno) : nullptr;
    const std::string what = text != nullptr ? std::string(text) : fmt::format("errno {}", saved_errno);
    return Error{errno_reason(saved_errno), fmt::format("{}: {}: {}", device, command, what)};
  }
  const ErrorReason reason =
      nvme_status_code(rc) == kHostAbortedCommand ? ErrorReason::timeout : ErrorReason::nvme_status;
  return Error{reason, fmt::format("{}: {}: NVMe status {:#06x} ({})", device, command, static_cast<unsigned>(rc),
                                   status_name(rc))};
}

bool is_unsupported_status(int rc) {
  if (rc <= 0) return false;
  const auto code = nvme_status_code(rc);
  return code == kInvalidOpcode || code == kInvalidField || code == kInvalidLogPage;
}

}  // namespace nvmond
