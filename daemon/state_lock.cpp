#include "daemon/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/config_reader.hpp"
#include "core/log.hpp"

namespace nvmond {
namespace {

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

std::string pid_in_file(int dir_fd) {
  const int fd = ::openat(dir_fd, StateDirLock::kFileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  ::close(fd);
  if (n <= 0) return {};
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return all_digits(s) ? s : std::string{};
}

// The kernel's own record of who holds a lock on the file `fd` is open on
// (true even when the pid file is gone). Lines of /proc/locks look like
// "1: FLOCK  ADVISORY  WRITE 4751 fe:00:10953730 0 EOF"; waiters ("1: -> FLOCK
// ...") are skipped.
std::string pid_in_proc_locks(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {};
  std::ifstream in("/proc/locks");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, pid, where;
    if (!(fields >> id >> kind >> mode >> access >> pid >> where) || kind != "FLOCK") continue;
    unsigned maj = 0, min = 0;
    unsigned long ino = 0;
    if (std::sscanf(where.c_str(), "%x:%x:%lu", &maj, &min, &ino) != 3) continue;
    if (maj == major(st.st_dev) && min == minor(st.st_dev) && ino == st.st_ino && all_digits(pid)) return pid;
  }
  return {};
}

[[noreturn]] void refuse(const std::string& dir, const std::string& pid) {
  throw ConfigError("state_dir " + dir + " is in use by another nvmond" +
                    (pid.empty() ? std::string{} : " (pid " + pid + ")") +
                    "; each daemon needs its own state directory");
}

}  // namespace

StateDirLock::StateDirLock(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // O_RDONLY: a read-only directory is locked as well as a writable one.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    log::error("state_dir {}: cannot be opened to lock it ({}); running without the lock", dir, std::strerror(errno));
    return;
  }
  if (::flock(dir_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string pid = pid_in_proc_locks(dir_fd);
    if (pid.empty()) pid = pid_in_file(dir_fd);
    ::close(dir_fd);
    if (err == EWOULDBLOCK) refuse(dir, pid);
    log::error("state_dir {}: locking it: {}; running without the lock", dir, std::strerror(err));
    return;
  }
  dir_fd_ = dir_fd;
  const int pid_fd = ::openat(dir_fd_, kFileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (pid_fd < 0) {
    log::debug("state_dir {}: no pid file {} ({})", dir, kFileName, std::strerror(errno));
    return;
  }
  if (::flock(pid_fd, LOCK_EX | LOCK_NB) != 0) {  // an older nvmond, which locks only the file
    const bool held_elsewhere = errno == EWOULDBLOCK;
    const std::string pid = held_elsewhere ? pid_in_proc_locks(pid_fd) : std::string{};
    ::close(pid_fd);
    if (held_elsewhere) {
      ::close(dir_fd_);
      dir_fd_ = -1;
      refuse(dir, pid);
    }
    return;
  }
  pid_fd_ = pid_fd;
  const std::string text = std::to_string(::getpid()) + "\n";
  if (::ftruncate(pid_fd_, 0) != 0 || ::pwrite(pid_fd_, text.data(), text.size(), 0) < 0) {
    log::debug("state_dir {}: writing the pid into {}: {}", dir, kFileName, std::strerror(errno));
  }
}

StateDirLock::~StateDirLock() {
  if (pid_fd_ >= 0) ::close(pid_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

}  // namespace nvmond
