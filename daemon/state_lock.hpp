#pragma once
// One daemon per state directory: an advisory lock (flock) held for the life
// of this object, so two daemons never interleave one history. The lock is
// on <dir>/nvmond.lock, which holds the owner's pid; in a directory where no
// file can be created (read-only), the directory itself is locked instead.
#include <string>

namespace nvmond {

class StateDirLock {
 public:
  static constexpr const char* kFileName = "nvmond.lock";
  // Throws ConfigError naming the directory and the holder's pid (when the
  // lock file says it) if another process holds the lock. A directory that
  // cannot be created or opened is not fatal: it is logged, left unlocked,
  // and the history store reports its own errors.
  explicit StateDirLock(const std::string& dir);
  ~StateDirLock();
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace nvmond
