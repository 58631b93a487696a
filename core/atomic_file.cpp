#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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

std::optional<Error> write_file_atomically(const std::string& path, std::string_view content, Durability durability) {
  const bool sync = durability == Durability::power_loss;
  std::filesystem::path target(path);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  // Built by appending: GCC 12 at -O3 raises a false -Wrestrict on
  // `"." + str + ".tmp"` (GCC bug 105329).
  std::string name = ".";
  name += target.filename().string();
  name += ".tmp";
  std::string tmp = (dir / name).string();
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (f.fd < 0) return io_error(tmp, "open", errno);
    std::size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(f.fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error(tmp, "write", errno);
      done += static_cast<std::size_t>(n);
    }
    if (sync && ::fsync(f.fd) != 0) return io_error(tmp, "fsync", errno);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return io_error(path, "rename", err);
  }
  if (!sync) return std::nullopt;
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) return io_error(dir.string(), "open directory", errno);
  if (::fsync(d.fd) != 0) return io_error(dir.string(), "fsync directory", errno);
  return std::nullopt;
}

std::optional<Error> write_file_atomically_at(int dir_fd, const std::string& name, std::string_view content,
                                              const std::string& shown) {
  const std::string path = shown + "/" + name;
  std::string tmp = ".";
  tmp += name;
  tmp += ".tmp";
  if (::unlinkat(dir_fd, tmp.c_str(), 0) != 0 && errno != ENOENT) return io_error(shown + "/" + tmp, "unlink", errno);
  {
    Fd f{::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
    if (f.fd < 0) return io_error(shown + "/" + tmp, "create", errno);
    std::size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(f.fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error(shown + "/" + tmp, "write", errno);
      done += static_cast<std::size_t>(n);
    }
    if (::fsync(f.fd) != 0) return io_error(shown + "/" + tmp, "fsync", errno);
  }
  // renameat replaces a symlink at `name` itself, never what it points to.
  if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return io_error(path, "rename", err);
  }
  if (::fsync(dir_fd) != 0) return io_error(shown, "fsync directory", errno);
  return std::nullopt;
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    if (err == ENOENT) return Error{ErrorReason::absent, path + ": no such file"};
    return io_error(path, "open", err);
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return io_error(path, "read", errno);
  return out.str();
}

}  // namespace nvmond
