#pragma once
// The control socket's framing: one JSON object per line, each way.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace nvmond::control {

// A request longer than this (without its newline) is refused and the
// connection closed.
inline constexpr std::size_t kMaxRequestLine = 64 * 1024;

// `message` as one line: JSON has no infinities or NaN, so a non-finite
// number goes out as null (what nvmonctl prints as "-"), and invalid UTF-8
// is replaced, so the other end can always parse what it reads.
std::string frame(const nlohmann::json& message);

// The JSON object of one line (without its newline); a discarded value when
// the line is not JSON.
nlohmann::json unframe(const std::string& line);

}  // namespace nvmond::control
