#include "core/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace nvmond::log {
namespace {
std::atomic<Level> g_level{Level::info};
std::mutex g_mu;
bool journald() {
  static const bool on = std::getenv("JOURNAL_STREAM") != nullptr;
  return on;
}
const char* word(Level l) {
  switch (l) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warning: return "warning";
    case Level::error: return "error";
  }
  return "?";
}
}  // namespace

void set_level(Level l) { g_level.store(l); }
Level level() { return g_level.load(); }

bool parse_level(std::string_view text, Level& out) {
  for (Level l : {Level::debug, Level::info, Level::warning, Level::error}) {
    if (text == word(l)) {
      out = l;
      return true;
    }
  }
  return false;
}

void write(Level l, std::string_view message) {
  std::lock_guard lock(g_mu);
  if (journald()) {
    std::fprintf(stderr, "<%d>%.*s\n", static_cast<int>(l), static_cast<int>(message.size()), message.data());
  } else {
    std::fprintf(stderr, "nvmond %s: %.*s\n", word(l), static_cast<int>(message.size()), message.data());
  }
  std::fflush(stderr);
}

}  // namespace nvmond::log
