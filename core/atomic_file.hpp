#pragma once
// Whole-file reads and crash-safe whole-file writes for small state files.
// write_file_atomically: temporary file in the same directory, fsync, rename
// over the target, fsync of the directory; after a crash (even kill -9 or
// power loss) the path holds either the old or the new content, never a mix.
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A file the daemon keeps in its state directory, opened by open_own_file.
struct OwnFile {
  UniqueFd fd;
  std::uint64_t size = 0;  // bytes, when opened
};
// Opens `path` with `flags` (plus O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC) and
// checks, on the descriptor opened, that it is a file the daemon owns: a
// regular file with exactly one link, owned by this process's effective
// user. A symlink is not followed, a FIFO does not block, and a hard link
// planted in the state directory to a file elsewhere is refused. Error
// absent when nothing is there; io naming what is wrong otherwise.
Result<OwnFile> open_own_file(const std::string& path, int flags);
// Why a file with this status is not one the daemon owns; nullopt when it is.
std::optional<std::string> not_own_file(const struct stat& st);

// The whole content of open_own_file(path, O_RDONLY): error reason "absent"
// when the file does not exist, "io" otherwise.
Result<std::string> read_whole_file(const std::string& path);

// Renames the entry at `path` (whatever it is; a symlink is renamed, not
// followed) to "<path>.<tag>-<UTC stamp>" (".1", ".2" … after it when that
// is taken) and returns the new path: a damaged file is kept for the
// operator, never deleted, and the path is free for a fresh one.
Result<std::string> set_aside_file(const std::string& path, std::string_view tag);

// Entry names of the directory `fd` (itself left open, read from its
// start), without "." and "..". `shown` names it in errors.
Result<std::vector<std::string>> directory_entries(int fd, const std::string& shown);

// ".NAME.tmp": the temporary a write_file_atomically* goes through.
bool is_temporary_name(std::string_view name);
// Removes the temporaries write_file_atomically* left in the directory
// `dir_fd` (regular files of this process's user named ".NAME.tmp") last
// changed before `before`: a write cut short by a kill -9 or a crash leaves
// one that nothing would ever remove. `shown` names the directory in the
// paths returned, those removed.
std::vector<std::string> remove_stale_temporaries(int dir_fd, const std::string& shown,
                                                  std::chrono::system_clock::time_point before);

}  // namespace nvmond
