#pragma once
// Whole-file reads and crash-safe whole-file writes for small state files.
// write_file_atomically: temporary file in the same directory, fsync, rename
// over the target, fsync of the directory; after a crash (even kill -9 or
// power loss) the path holds either the old or the new content, never a mix.
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace nvmond {

// nullopt on success; Error{"io", "<path>: <step>: <strerror>"} otherwise.
std::optional<Error> write_file_atomically(const std::string& path, std::string_view content);
// Error reason "absent" when the file does not exist, "io" otherwise.
Result<std::string> read_whole_file(const std::string& path);

}  // namespace nvmond
