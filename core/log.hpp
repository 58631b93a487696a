#pragma once
// Leveled logging to stderr. Under systemd (JOURNAL_STREAM set) each line gets
// the sd-daemon "<N>" priority prefix so journald records the level; on a
// terminal it prints a readable level word instead. Thread-safe.
#include <fmt/core.h>

#include <string_view>

namespace nvmond::log {

enum class Level { debug = 7, info = 6, warning = 4, error = 3 };

void set_level(Level level);
Level level();
// Accepts "debug", "info", "warning", "error"; returns false otherwise.
bool parse_level(std::string_view text, Level& out);
void write(Level level, std::string_view message);

template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::debug) write(Level::debug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::info) write(Level::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::warning) write(Level::warning, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::error, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace nvmond::log
