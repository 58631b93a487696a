#pragma once
// Whole-file reads and crash-safe whole-file writes for small state files.
// write_file_atomically: temporary file in the same directory, fsync, rename
// over the target, fsync of the directory; after a crash (even kill -9 or
// power loss) the path holds either the old or the new content, never a mix.
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "core/unique_fd.hpp"

namespace nvmond {

// What a write must survive. Both leave the old or the new content, never a
// mix, after the writing process dies (the rename is atomic); only
// `power_loss` pays the two fsyncs that carry that through a crash of the
// host.
enum class Durability { power_loss, process_crash };

// nullopt on success; Error{ErrorReason::io, "<path>: <step>: <strerror>"} otherwise.
std::optional<Error> write_file_atomically(const std::string& path, std::string_view content,
                                           Durability durability = Durability::power_loss);
// The same, for the file `name` (one path component) inside the directory
// `dir_fd` (opened O_RDONLY, not O_PATH: it is fsynced), written by descriptor: no symlink is followed and no existing
// file is opened (the temporary is unlinked, then created O_EXCL), so nothing
// planted in the directory redirects the write. `shown` names the directory
// in errors.
std::optional<Error> write_file_atomically_at(int dir_fd, const std::string& name, std::string_view content,
                                              const std::string& shown);

// The directory `name` (one path component) inside the directory `parent_fd`,
// made (mode 0755) when absent, opened O_DIRECTORY|O_NOFOLLOW: a symlink or
// anything not a directory there is an Error, never followed. `shown` is the
// path to put in errors.
Result<UniqueFd> open_directory_at(int parent_fd, const std::string& name, const std::string& shown);

// Error reason "absent" when the file does not exist, "io" otherwise. The
// last component is opened O_NOFOLLOW|O_NONBLOCK and must be a regular file:
// a symlink planted where a state file belongs is not read through, and a
// FIFO there does not block the reader.
Result<std::string> read_whole_file(const std::string& path);

}  // namespace nvmond
