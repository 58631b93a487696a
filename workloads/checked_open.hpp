#pragma once
// Opening a path so that what is opened is what was meant: beneath a directory
// descriptor without following any symlink or crossing a mount, and an owning
// descriptor to carry the result. The safety guard builds on these; nothing
// here decides what is allowed.
#include <string>
#include <utility>

namespace nvmond {

// Owns one file descriptor; closes it on destruction. Move-only. A negative
// value is no descriptor (callers may keep open_beneath's -errno in it).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset();

 private:
  int fd_ = -1;
};

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
