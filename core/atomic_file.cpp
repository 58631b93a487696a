#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/io_error.hpp"

namespace nvmond {

namespace {
// Closes on scope exit so every early return releases the descriptor.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

namespace {

// The temporary is unlinked, then created O_EXCL|O_NOFOLLOW: nothing planted
// under its name (a symlink to a file elsewhere) is opened or written
// through, and renameat replaces a symlink at `name` itself, never what it
// points to.
std::optional<Error> write_at(int dir_fd, const std::string& name, std::string_view content, const std::string& shown,
                              bool sync) {
  const std::string path = shown + "/" + name;
  // Built by appending: GCC 12 at -O3 raises a false -Wrestrict on
  // `"." + str + ".tmp"` (GCC bug 105329).
  std::string tmp = ".";
  tmp += name;
  tmp += ".tmp";
  const std::string shown_tmp = shown + "/" + tmp;
  if (::unlinkat(dir_fd, tmp.c_str(), 0) != 0 && errno != ENOENT) return io_error(shown_tmp, "unlink", errno);
  {
    Fd f{::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
    if (f.fd < 0) return io_error(shown_tmp, "create", errno);
    std::size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(f.fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error(shown_tmp, "write", errno);
      done += static_cast<std::size_t>(n);
    }
    if (sync && ::fsync(f.fd) != 0) return io_error(shown_tmp, "fsync", errno);
  }
  if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return io_error(path, "rename", err);
  }
  if (sync && ::fsync(dir_fd) != 0) return io_error(shown, "fsync directory", errno);
  return std::nullopt;
}

}  // namespace

std::optional<Error> write_file_atomically(const std::string& path, std::string_view content, Durability durability) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) return io_error(dir, "open directory", errno);
  return write_at(d.fd, target.filename().string(), content, dir, durability == Durability::power_loss);
}

std::optional<Error> write_file_atomically_at(int dir_fd, const std::string& name, std::string_view content,
                                              const std::string& shown) {
  return write_at(dir_fd, name, content, shown, true);
}

Result<UniqueFd> open_directory_at(int parent_fd, const std::string& name, const std::string& shown) {
  if (::mkdirat(parent_fd, name.c_str(), 0755) != 0 && errno != EEXIST) return io_error(shown, "mkdir", errno);
  UniqueFd fd(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ELOOP || err == ENOTDIR) {
      return Error{ErrorReason::io, shown + ": is a symlink or not a directory; nothing is written through it"};
    }
    return io_error(shown, "open directory", err);
  }
  return fd;
}

Result<std::string> read_whole_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ENOENT) return Error{ErrorReason::absent, path + ": no such file"};
    if (err == ELOOP) return Error{ErrorReason::io, path + ": open: a symbolic link, not followed"};
    return io_error(path, "open", err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return io_error(path, "stat", errno);
  if (!S_ISREG(st.st_mode)) return Error{ErrorReason::io, path + ": open: not a regular file"};
  std::string out;
  out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path, "read", errno);
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace nvmond
