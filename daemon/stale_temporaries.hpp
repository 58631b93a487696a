#pragma once
// What a write cut short leaves in the state directory: every whole-file
// write goes through a temporary ".NAME.tmp" beside its target
// (core/atomic_file.hpp), removed by the write itself when it fails, but
// not when the process is killed or the host crashes in the middle. At
// start the daemon removes those it owns, in the places it writes:
// STATE_DIR itself (the simulated drives' state files), each drive's
// directory under STATE_DIR/telemetry and each run's under STATE_DIR/runs.
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace nvmond {

// Removes the temporaries (regular files of this user named ".NAME.tmp")
// last changed before `before` from those directories; nothing is followed
// through a symlink. Returns the paths removed.
std::vector<std::string> remove_stale_temporaries_in(const std::string& state_dir, WallTime before);

}  // namespace nvmond
