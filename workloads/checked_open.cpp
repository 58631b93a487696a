#include "workloads/checked_open.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace nvmond {

namespace {

int via_openat2(int dirfd, const std::string& relative, int flags, unsigned mode) {
  open_how how{};
  how.flags = static_cast<__u64>(flags);
  if ((flags & O_CREAT) != 0) how.mode = mode;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  long fd = 0;
  do {
    fd = ::syscall(SYS_openat2, dirfd, relative.c_str(), &how, sizeof how);
  } while (fd < 0 && (errno == EAGAIN || errno == EINTR));  // EAGAIN: a rename raced the lookup
  return fd < 0 ? -errno : static_cast<int>(fd);
}

// The pre-5.6 way: one O_NOFOLLOW step per component, each checked by fstat.
// Catches symlinks and other filesystems; a bind mount of the same filesystem
// keeps st_dev and is not seen (openat2's RESOLVE_NO_XDEV does see it).
int via_walk(int dirfd, const std::string& relative, int flags, unsigned mode) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t slash = relative.find('/', start);
    const std::size_t end = slash == std::string::npos ? relative.size() : slash;
    parts.push_back(relative.substr(start, end - start));
    start = end + 1;
  }
  struct stat root {};
  if (::fstat(dirfd, &root) != 0) return -errno;
  UniqueFd cur;
  int at = dirfd;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.empty() || p == "." || p == "..") return -EXDEV;
    const bool last = i + 1 == parts.size();
    const int f = (last ? flags : O_PATH) | O_NOFOLLOW | O_CLOEXEC;
    UniqueFd next(::openat(at, p.c_str(), f, mode));
    if (!next.valid()) return -errno;
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return -errno;
    if (S_ISLNK(st.st_mode)) return -ELOOP;  // O_PATH|O_NOFOLLOW opens the link itself
    if (st.st_dev != root.st_dev) return -EXDEV;
    if (!last && !S_ISDIR(st.st_mode)) return -ENOTDIR;
    cur = std::move(next);
    at = cur.get();
  }
  return cur.release();
}

}  // namespace

int open_beneath(int dirfd, const std::string& relative, int flags, unsigned mode, BeneathMethod method) {
  if (relative.empty() || relative.front() == '/') return -EXDEV;
  flags |= O_CLOEXEC;
  if (method == BeneathMethod::openat2) {
    const int fd = via_openat2(dirfd, relative, flags, mode);
    if (fd != -ENOSYS) return fd;
  }
  return via_walk(dirfd, relative, flags, mode);
}

}  // namespace nvmond
