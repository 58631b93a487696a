#include "core/error_reason.hpp"

#include <fmt/core.h>

#include <cstring>

#include <ostream>
#include <string>
#include <utility>

#include "core/io_error.hpp"
#include "core/result.hpp"

namespace nvmond {

namespace {

constexpr std::pair<ErrorReason, std::string_view> kReasonText[] = {
#define NVMOND_ERROR_REASON_ROW(name) {ErrorReason::name, #name},
    NVMOND_ERROR_REASONS(NVMOND_ERROR_REASON_ROW)
#undef NVMOND_ERROR_REASON_ROW
};

}  // namespace

std::string_view to_text(ErrorReason reason) {
  for (const auto& [r, text] : kReasonText) {
    if (r == reason) return text;
  }
  return "?";  // unreachable: the enum and the table come from one list
}

Result<ErrorReason> error_reason_from_text(std::string_view text) {
  for (const auto& [r, t] : kReasonText) {
    if (t == text) return r;
  }
  return Error{ErrorReason::decode, fmt::format("unknown error reason \"{}\"", text)};
}

std::ostream& operator<<(std::ostream& out, ErrorReason reason) { return out << to_text(reason); }

Error io_error(const std::string& what, const char* step, int err) {
  return Error{ErrorReason::io, fmt::format("{}: {}: {}", what, step, std::strerror(err))};
}

}  // namespace nvmond
