#pragma once
// Opening a path so that what is opened is what was meant: beneath a directory
// descriptor without following any symlink or crossing a mount (the result
// is carried in core/unique_fd.hpp's UniqueFd). The safety guard builds on
// these; nothing here decides what is allowed.
#include <string>

#include "core/unique_fd.hpp"

namespace nvmond {

enum class BeneathMethod { openat2, component_walk };

// Opens `relative` (no leading '/', no "..", not empty) beneath the directory
// `dirfd` with open(2) `flags` (O_CLOEXEC is added) and `mode`. Fails with
// ELOOP if any component is a symlink, EXDEV if the walk would leave the
// directory's mount (a bind mount or another filesystem inside it), ENOTDIR
// if an intermediate component is not a directory. Returns the descriptor or
// -errno. `method` = openat2 uses openat2(2) RESOLVE_BENEATH|NO_SYMLINKS|
// NO_MAGICLINKS|NO_XDEV and walks component by component with O_NOFOLLOW
// only where the kernel has no openat2 (ENOSYS, before 5.6); tests force the
// walk to check it too.
int open_beneath(int dirfd, const std::string& relative, int flags, unsigned mode = 0,
                 BeneathMethod method = BeneathMethod::openat2);

}  // namespace nvmond
