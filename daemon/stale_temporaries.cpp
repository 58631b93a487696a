#include "daemon/stale_temporaries.hpp"

#include <fcntl.h>

#include "core/atomic_file.hpp"
#include "core/unique_fd.hpp"

namespace nvmond {

namespace {

UniqueFd open_subdirectory(int parent_fd, const std::string& name) {
  return UniqueFd(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

void append(std::vector<std::string>& to, std::vector<std::string> more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

std::vector<std::string> remove_stale_temporaries_in(const std::string& state_dir, WallTime before) {
  std::vector<std::string> removed;
  UniqueFd state(::open(state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state.valid()) return removed;
  append(removed, remove_stale_temporaries(state.get(), state_dir, before));
  // One level of per-drive or per-run directories below each of these.
  for (const char* parent : {"telemetry", "runs"}) {
    UniqueFd top = open_subdirectory(state.get(), parent);
    if (!top.valid()) continue;
    const std::string shown_top = state_dir + "/" + parent;
    auto children = directory_entries(top.get(), shown_top);
    if (!children) continue;
    for (const auto& child : *children) {
      UniqueFd dir = open_subdirectory(top.get(), child);
      if (dir.valid()) append(removed, remove_stale_temporaries(dir.get(), shown_top + "/" + child, before));
    }
  }
  return removed;
}

}  // namespace nvmond
