// SafetyGuard::open_target: judge on an O_PATH descriptor, then open that
// same object for I/O (the policy on devices and paths is in safety_guard.cpp).
#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "collectors/nvme_name.hpp"
#include "workloads/safety_guard.hpp"

namespace nvmond {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

// The kernel's name of a device number in `class_dir` ("block", "char").
std::string device_name(const std::string& sys, const char* class_dir, dev_t rdev) {
  std::error_code ec;
  const fs::path link = fs::path(sys) / "dev" / class_dir / fmt::format("{}:{}", major(rdev), minor(rdev));
  const fs::path dev = fs::canonical(link, ec);
  return ec ? std::string() : dev.filename().string();
}

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISDIR(mode)) return "a directory";
  return "not a file or device";
}

// Clears the non-blocking open mode and sets O_DIRECT: the descriptor is now
// the engines' to do I/O on.
std::optional<Error> ready_for_io(int fd, bool direct, const std::string& full) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return Error{ErrorReason::io, fmt::format("F_GETFL on {}: {}", full, std::strerror(errno))};
  flags &= ~O_NONBLOCK;
  if (direct) flags |= O_DIRECT;
  if (::fcntl(fd, F_SETFL, flags) != 0) {
    if (direct && errno == EINVAL) {
      return Error{ErrorReason::io,
                   fmt::format("{}: O_DIRECT is not supported on its filesystem (direct = false)", full)};
    }
    return Error{ErrorReason::io, fmt::format("F_SETFL on {}: {}", full, std::strerror(errno))};
  }
  return std::nullopt;
}

Result<CheckedTarget> finish(UniqueFd fd, const struct stat& st, const TargetAccess& access, const std::string& full) {
  if (auto e = ready_for_io(fd.get(), access.direct, full)) return *e;
  return CheckedTarget{std::move(fd), S_ISBLK(st.st_mode)};
}

}  // namespace

std::string normal_target_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) p = path;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<CheckedTarget> SafetyGuard::open_target(const std::string& path, const TargetAccess& access) const {
  const std::string full = normal_target_path(path);
  if (!access.write) return open_for_read(full, access);
  if (auto where = place(full)) return open_file_for_write(*where, full, access);
  return open_device_for_write(full, access);
}

Result<UniqueFd> SafetyGuard::reopen_judged(int judged_fd, const struct stat& judged, int flags,
                                            const std::string& shown) {
  // The magic link names the very inode judged, whatever happened to the
  // path since; O_NOCTTY in case a judged object ever is a terminal.
  const std::string self = fmt::format("/proc/self/fd/{}", judged_fd);
  UniqueFd fd(::open(self.c_str(), flags | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == EBUSY) {
      return Error{
          ErrorReason::busy,
          fmt::format(
              "{}: in use (mounted, swap, claimed by another driver, or still held by a process that has just ended)",
              shown)};
    }
    if (err == ENOENT) {
      return Error{ErrorReason::io, fmt::format("{}: re-opening it through {} failed: is /proc mounted?", shown, self)};
    }
    return Error{ErrorReason::unknown_device, fmt::format("opening {}: {}", shown, std::strerror(err))};
  }
  struct stat now {};
  if (::fstat(fd.get(), &now) != 0)
    return Error{ErrorReason::io, fmt::format("stat of {}: {}", shown, std::strerror(errno))};
  if (now.st_dev != judged.st_dev || now.st_ino != judged.st_ino || now.st_rdev != judged.st_rdev ||
      (now.st_mode & S_IFMT) != (judged.st_mode & S_IFMT)) {
    return Error{ErrorReason::io, fmt::format("{}: changed between its check and its open; try again", shown)};
  }
  return fd;
}

Result<CheckedTarget> SafetyGuard::open_file_for_write(const Placement& where, const std::string& full,
                                                       const TargetAccess& access) const {
  UniqueFd dir(::open(where.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    return Error{ErrorReason::outside_allowed_dirs,
                 fmt::format("{}: allowed directory {}: {}", full, where.dir, std::strerror(errno))};
  }
  UniqueFd judged(open_beneath(dir.get(), where.relative, O_PATH));
  // Create only what does not exist: O_EXCL fails on anything that appeared
  // meanwhile (a symlink, a device node included), which is then judged as
  // above. A file created here is new and empty: opening it has no effect.
  UniqueFd created;
  for (int attempt = 0; !judged.valid() && judged.get() == -ENOENT && access.file_size > 0 && attempt < 3; ++attempt) {
    created = UniqueFd(open_beneath(dir.get(), where.relative, O_RDWR | O_NONBLOCK | O_CREAT | O_EXCL, 0600));
    if (created.valid()) break;
    if (created.get() != -EEXIST) {
      judged = std::move(created);
      break;
    }
    judged = UniqueFd(open_beneath(dir.get(), where.relative, O_PATH));
  }
  if (created.valid()) return ready_file(std::move(created), full, access);
  if (!judged.valid()) {
    const int err = -judged.release();
    if (err == ENOENT) {
      return Error{ErrorReason::io, fmt::format("{}: no such file (file_size creates it)", full)};
    }
    return beneath_refusal(full, where.dir, err);
  }
  struct stat st {};
  if (::fstat(judged.get(), &st) != 0)
    return Error{ErrorReason::io, fmt::format("stat of {}: {}", full, std::strerror(errno))};
  if (S_ISBLK(st.st_mode)) return open_judged_device(judged.get(), st, full, access);  // a node inside is the device
  if (!S_ISREG(st.st_mode)) {
    return Error{ErrorReason::unsupported_target,
                 fmt::format("{} is {}, not a regular file", full, kind_of(st.st_mode))};
  }
  if (auto e = check_regular(st, full, true)) return *e;
  auto fd = reopen_judged(judged.get(), st, O_RDWR | O_NONBLOCK, full);
  if (!fd) return fd.error();
  return ready_file(std::move(*fd), full, access);
}

Result<CheckedTarget> SafetyGuard::ready_file(UniqueFd fd, const std::string& full, const TargetAccess& access) const {
  // Judged again on the open descriptor: a hard link made since the O_PATH
  // judgement would otherwise slip through.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return Error{ErrorReason::io, fmt::format("stat of {}: {}", full, std::strerror(errno))};
  if (auto e = check_regular(st, full, true)) return *e;
  if (static_cast<std::uint64_t>(st.st_size) < access.file_size &&
      ::ftruncate(fd.get(), static_cast<off_t>(access.file_size)) != 0) {
    return Error{ErrorReason::io,
                 fmt::format("extending {} to {} bytes: {}", full, access.file_size, std::strerror(errno))};
  }
  return finish(std::move(fd), st, access, full);
}

Result<CheckedTarget> SafetyGuard::open_judged_device(int judged_fd, const struct stat& st, const std::string& full,
                                                      const TargetAccess& access) const {
  auto name = block_name(st.st_rdev, full);
  if (!name) return name.error();
  if (auto e = check_block_sysfs(*name)) return *e;
  // O_EXCL on a block device: the kernel refuses it while mounted or claimed
  // (MD, LVM, swap), and nobody can claim it while the job holds it.
  auto fd = reopen_judged(judged_fd, st, O_RDWR | O_EXCL | O_NONBLOCK, full);
  if (!fd) return fd.error();
  if (auto e = check_signature(*name, fd->get())) return *e;
  return finish(std::move(*fd), st, access, full);
}

Result<CheckedTarget> SafetyGuard::open_device_for_write(const std::string& full, const TargetAccess& access) const {
  // Device paths (/dev/disk/by-id/...) are symlinks by design: what the path
  // leads to is judged, and that object is what gets opened.
  UniqueFd judged(::open(full.c_str(), O_PATH | O_CLOEXEC));
  if (!judged.valid()) {
    const int err = errno;
    if (err == ENOENT)
      return Error{ErrorReason::outside_allowed_dirs, fmt::format("{} is outside [safety] allow_dirs", full)};
    return Error{ErrorReason::unknown_device, fmt::format("opening {}: {}", full, std::strerror(err))};
  }
  struct stat st {};
  if (::fstat(judged.get(), &st) != 0)
    return Error{ErrorReason::io, fmt::format("stat of {}: {}", full, std::strerror(errno))};
  if (S_ISREG(st.st_mode)) {
    return Error{ErrorReason::outside_allowed_dirs, fmt::format("{} is outside [safety] allow_dirs", full)};
  }
  if (!S_ISBLK(st.st_mode)) {
    return Error{ErrorReason::unsupported_target,
                 fmt::format("{} is neither a block device nor a regular file ({})", full, kind_of(st.st_mode))};
  }
  return open_judged_device(judged.get(), st, full, access);
}

Result<CheckedTarget> SafetyGuard::open_for_read(const std::string& full, const TargetAccess& access) const {
  // Reading cannot harm what it reads, so links are followed; but opening
  // can (a tty, a watchdog, a FIFO that blocks), so the kind is judged first.
  UniqueFd judged(::open(full.c_str(), O_PATH | O_CLOEXEC));
  if (!judged.valid())
    return Error{ErrorReason::unknown_device, fmt::format("opening {}: {}", full, std::strerror(errno))};
  struct stat st {};
  if (::fstat(judged.get(), &st) != 0)
    return Error{ErrorReason::io, fmt::format("stat of {}: {}", full, std::strerror(errno))};
  const bool ok = S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) || (S_ISCHR(st.st_mode) && is_nvme_generic(st.st_rdev));
  if (!ok) {
    return Error{ErrorReason::would_block, fmt::format("{} is {}; a read job on it could block forever (regular files, "
                                                       "block devices and NVMe namespaces only)",
                                                       full, kind_of(st.st_mode))};
  }
  auto fd = reopen_judged(judged.get(), st, O_RDONLY | O_NONBLOCK, full);
  if (!fd) return fd.error();
  TargetAccess read = access;
  read.direct = access.direct && !S_ISCHR(st.st_mode);  // passthrough devices take no O_DIRECT
  return finish(std::move(*fd), st, read, full);
}

Result<std::string> SafetyGuard::block_name(dev_t rdev, const std::string& shown) const {
  std::string name = device_name(roots_.sys, "block", rdev);
  if (name.empty()) {
    return Error{ErrorReason::unknown_device,
                 fmt::format("{}: no sysfs entry for block device {}:{}", shown, major(rdev), minor(rdev))};
  }
  return name;
}

bool SafetyGuard::is_nvme_generic(dev_t rdev) const {
  return nvme_namespace_controller(device_name(roots_.sys, "char", rdev), kNvmeGenericPrefix).has_value();
}

std::optional<std::string> SafetyGuard::loop_backed_by(dev_t dev, ino_t ino) const {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(roots_.sys) / "block", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) != 0 || !fs::exists(e.path() / "loop", ec)) continue;
    // The inode the kernel itself holds (a renamed or unlinked file keeps it);
    // the device node is checked to be the sysfs entry's before it is trusted.
    UniqueFd loop(::open(("/dev/" + name).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    struct stat lst {};
    loop_info64 info{};
    if (loop.valid() && ::fstat(loop.get(), &lst) == 0 && S_ISBLK(lst.st_mode) &&
        first_line(e.path() / "dev") == fmt::format("{}:{}", major(lst.st_rdev), minor(lst.st_rdev)) &&
        ::ioctl(loop.get(), LOOP_GET_STATUS64, &info) == 0) {
      // lo_device is the kernel's new_encode_dev() of the backing st_dev.
      const auto d = info.lo_device;
      const unsigned maj = static_cast<unsigned>((d & 0xfff00) >> 8);
      const unsigned min = static_cast<unsigned>((d & 0xff) | ((d >> 12) & 0xfff00));
      if (info.lo_inode == ino && maj == major(dev) && min == minor(dev)) return "/dev/" + name;
      continue;
    }
    // No usable device node here: the backing path sysfs reports.
    struct stat bst {};
    const std::string backing = first_line(e.path() / "loop/backing_file");
    if (::stat(backing.c_str(), &bst) == 0 && bst.st_dev == dev && bst.st_ino == ino) return name;
  }
  return std::nullopt;
}

}  // namespace nvmond
