#include "pts/write_cache.hpp"

#include <fmt/core.h>

namespace nvmond {
namespace {
const char* state_text(bool enabled) { return enabled ? "enabled" : "disabled"; }
}  // namespace

WriteCacheRecord apply_write_cache(TestTarget& target, bool required, const std::optional<WriteCacheRecord>& earlier) {
  const WriteCacheState now = target.write_cache();
  WriteCacheRecord r;
  r.found = earlier ? earlier->found : now.enabled;
  r.during = now.enabled;
  r.detail = now.source;
  if (!now.enabled || *now.enabled == required) return r;
  if (auto err = target.set_write_cache(required)) {
    r.detail = fmt::format("{}; setting it {} was refused: {}", now.source, state_text(required), err->message);
    return r;
  }
  const WriteCacheState after = target.write_cache();
  r.during = after.enabled;
  r.detail = after.enabled == required ? fmt::format("{}; set {} for the test", now.source, state_text(required))
                                       : fmt::format("{}; set {} for the test, but it reads back as: {}", now.source,
                                                     state_text(required), after.source);
  return r;
}

bool write_cache_needs_restore(const WriteCacheRecord& r) {
  return r.found && r.during && *r.found != *r.during && !r.restored_at;
}

void restore_write_cache(TestTarget& target, WriteCacheRecord& r, const std::string& now) {
  if (!write_cache_needs_restore(r)) return;
  if (auto err = target.set_write_cache(*r.found)) {
    r.restore_failure = fmt::format("setting it {} again: {}", state_text(*r.found), err->message);
    return;
  }
  r.restored_at = now;
  r.restore_failure.reset();
}

WriteCacheState tested_write_cache(const WriteCacheRecord& r) { return {r.during, r.detail}; }

}  // namespace nvmond
