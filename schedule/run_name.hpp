#pragma once
// What a run may be named ([[soak]] name, a manual run's name). The name
// becomes a directory under STATE_DIR/runs/ and part of log lines and metric
// labels, so it is held to the charset of [[sim]] drive names: letters,
// digits, '-', '_' and '.', 1 to 64 of them, starting with a letter or a
// digit (so never "..", a hidden file or an option). No '/', no newline.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace nvmond {

inline constexpr std::size_t kMaxRunNameLength = 64;

// Why `name` cannot name a run (a sentence without the name itself, which
// may be long or unprintable), or nullopt when it can.
std::optional<std::string> run_name_problem(std::string_view name);

}  // namespace nvmond
