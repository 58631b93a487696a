#pragma once
// One daemon per state directory: an advisory lock (flock) on the directory
// itself, held for the life of this object, so two daemons never interleave
// one history. The directory cannot be deleted or replaced from under a
// running daemon the way a lock file can (a deleted lock file let a second
// daemon in). <dir>/nvmond.lock still holds the owner's pid, for people and
// for the refusal message, and is locked too, as daemons before this one
// locked only that file.
#include <string>

namespace nvmond {

class StateDirLock {
 public:
  static constexpr const char* kFileName = "nvmond.lock";
  // Throws ConfigError naming the directory and the holder's pid (from
  // /proc/locks, else from the pid file) if another process holds the lock.
  // A directory that cannot be created or opened is not fatal: it is logged,
  // left unlocked, and the history store reports its own errors.
  explicit StateDirLock(const std::string& dir);
  ~StateDirLock();
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;

  bool held() const { return dir_fd_ >= 0; }

 private:
  int dir_fd_ = -1;
  int pid_fd_ = -1;  // nvmond.lock, when it could be created
};

}  // namespace nvmond
