#include "core/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/clock.hpp"
#include "core/io_error.hpp"

namespace nvmond {

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
  UniqueFd f(::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!f.valid()) return io_error(shown_tmp, "create", errno);
  // From here on the temporary is ours: every failure removes it, so a
  // full disk that fails write after write does not fill up with them.
  auto fail = [&](const std::string& what, const char* step, int err) {
    f.reset();
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return io_error(what, step, err);
  };
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(f.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(shown_tmp, "write", errno);
    done += static_cast<std::size_t>(n);
  }
  if (sync && ::fsync(f.get()) != 0) return fail(shown_tmp, "fsync", errno);
  // close() reports what a delayed allocation could not write (NFS, some
  // quota paths): the content is not known to be there.
  if (::close(f.release()) != 0) return fail(shown_tmp, "close", errno);
  if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) return fail(path, "rename", errno);
  if (sync && ::fsync(dir_fd) != 0) return io_error(shown, "fsync directory", errno);
  return std::nullopt;
}

}  // namespace

std::optional<Error> write_file_atomically(const std::string& path, std::string_view content, Durability durability) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.valid()) return io_error(dir, "open directory", errno);
  return write_at(d.get(), target.filename().string(), content, dir, durability == Durability::power_loss);
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

Result<OwnFile> open_own_file(const std::string& path, int flags) {
  UniqueFd fd(::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ENOENT) return Error{ErrorReason::absent, path + ": no such file"};
    if (err == ELOOP) return Error{ErrorReason::io, path + ": open: a symbolic link, not followed"};
    return io_error(path, "open", err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return io_error(path, "stat", errno);
  if (auto why = not_own_file(st)) return Error{ErrorReason::io, path + ": open: " + *why};
  return OwnFile{std::move(fd), static_cast<std::uint64_t>(st.st_size)};
}

std::optional<std::string> not_own_file(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  // A second name elsewhere would make every write land in a file outside
  // the state directory; none at all, a file deleted or replaced under us.
  if (st.st_nlink != 1) return fmt::format("{} links to the file, not 1", st.st_nlink);
  if (st.st_uid != ::geteuid())
    return fmt::format("owned by uid {}, not by this process's uid {}", st.st_uid, ::geteuid());
  return std::nullopt;
}

Result<std::string> read_whole_file(const std::string& path) {
  auto file = open_own_file(path, O_RDONLY);
  if (!file) return file.error();
  std::string out;
  out.reserve(file->size);
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(file->fd.get(), buf, sizeof buf);
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path, "read", errno);
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

Result<std::string> set_aside_file(const std::string& path, std::string_view tag) {
  // Real time, not the daemon's clock: the name is for the operator reading the directory.
  const std::string stem = fmt::format("{}.{}-{}", path, tag, utc_stamp(std::chrono::system_clock::now()));
  std::string aside = stem;
  struct stat st {};
  for (int n = 1; ::lstat(aside.c_str(), &st) == 0; ++n) aside = fmt::format("{}.{}", stem, n);
  if (::rename(path.c_str(), aside.c_str()) != 0) {
    const int err = errno;
    return Error{err == ENOENT ? ErrorReason::absent : ErrorReason::io,
                 fmt::format("renaming {} to {}: {}", path, aside, std::strerror(err))};
  }
  return aside;
}

bool is_temporary_name(std::string_view name) {
  return name.size() > 5 && name.front() == '.' && name.ends_with(".tmp");
}

Result<std::vector<std::string>> directory_entries(int fd, const std::string& shown) {
  const int copy = ::dup(fd);
  if (copy < 0) return io_error(shown, "dup", errno);
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    const int err = errno;
    ::close(copy);
    return io_error(shown, "read directory", err);
  }
  ::rewinddir(dir);
  std::vector<std::string> out;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(dir);
  return out;
}

std::vector<std::string> remove_stale_temporaries(int dir_fd, const std::string& shown,
                                                  std::chrono::system_clock::time_point before) {
  std::vector<std::string> removed;
  auto names = directory_entries(dir_fd, shown);
  if (!names) return removed;
  const auto limit = std::chrono::system_clock::to_time_t(before);
  for (const auto& name : *names) {
    if (!is_temporary_name(name)) continue;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    // Only what write_at can have made (a regular file of this user) and
    // only when no write still in progress can be using it.
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_mtim.tv_sec >= limit) continue;
    if (::unlinkat(dir_fd, name.c_str(), 0) == 0) removed.push_back(shown + "/" + name);
  }
  return removed;
}

}  // namespace nvmond
