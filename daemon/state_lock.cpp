#include "daemon/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/config_reader.hpp"
#include "core/log.hpp"

namespace nvmond {
namespace {

std::string holder_pid(int fd) {
  char buf[32] = {};
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return {};
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.find_first_not_of("0123456789") == std::string::npos ? s : std::string{};
}

}  // namespace

StateDirLock::StateDirLock(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string file = (std::filesystem::path(dir) / kFileName).string();
  bool writable = true;
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    writable = false;
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    log::error("state_dir {}: cannot be opened to lock it ({}); running without the lock", dir,
               std::strerror(errno));
    return;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string pid = holder_pid(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      throw ConfigError("state_dir " + dir + " is in use by another nvmond" +
                        (pid.empty() ? std::string{} : " (pid " + pid + ")") +
                        "; each daemon needs its own state directory");
    }
    log::error("state_dir {}: locking {}: {}; running without the lock", dir, file, std::strerror(err));
    return;
  }
  fd_ = fd;
  if (writable) {
    std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      log::debug("state_dir {}: writing the pid into {}: {}", dir, file, std::strerror(errno));
    }
  }
}

StateDirLock::~StateDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace nvmond
