#pragma once
// Decides which targets a job may touch, and decides before it opens them:
// open_target() first takes an O_PATH descriptor of the target (no open side
// effect on any kind of file: no tty becomes controlling, no watchdog arms,
// no tape rewinds, never blocks), judges what fstat and sysfs say of it, and
// only then re-opens that same object for I/O through /proc/self/fd/N,
// checking the new descriptor is still the judged one (st_dev, st_ino,
// st_rdev). A refused target is never opened for reading or writing. The
// engines get the I/O descriptor and never open the path again (no window
// between check and use).
//
// Writes. A block device (found by st_rdev, re-opened O_EXCL so the kernel
// refuses it while mounted or claimed) must be: not mounted (itself, a
// partition, or an LVM/MD/dm device stacked on it), not swap, without
// partitions or holders, and its serial (or WWID) must be in [safety]
// allow_serials (all sysfs facts, judged before the open); once open, it
// must carry no filesystem / partition-table / RAID / LVM signature. A loop
// device counts as the file behind it. A regular file
// must lie inside one of [safety] allow_dirs: it is opened relative to the
// allowed directory with openat2(RESOLVE_BENEATH|NO_SYMLINKS|NO_MAGICLINKS|
// NO_XDEV) (an O_NOFOLLOW walk on kernels without openat2), so no symlink,
// ".." or mount point inside the directory is followed; it must have one
// link (st_nlink == 1), back no loop device (LOOP_GET_STATUS64 inode of every
// attached loop device) and not be active swap. A missing file is created
// with O_EXCL there.
// Reads. Regular files, block devices and NVMe generic namespaces (ngXnY)
// only: FIFOs, sockets and other character devices can block forever.
// The I/O open is O_NONBLOCK; O_NONBLOCK is cleared and O_DIRECT set
// afterwards. /proc must be mounted (the re-open goes through it).
//
// [safety]
// allow_serials = ["S4EWNX0R123456"]   # drives handed over for destructive tests
// allow_dirs = ["/var/lib/nvmond/scratch"]  # where file targets may be written
//
// The sysfs, procfs roots are injectable so tests run on fake trees. Thread-
// safe (no mutable state).
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/config_reader.hpp"
#include "core/result.hpp"
#include "workloads/checked_open.hpp"

namespace nvmond {

struct SafetyConfig {
  std::vector<std::string> allow_serials;
  std::vector<std::string> allow_dirs;
};

// Reads a [safety] table and calls finish() on it.
SafetyConfig parse_safety(TableReader& table);

struct SystemRoots {
  std::string sys = "/sys";
  std::string proc = "/proc";
};

// Names the on-disk signature found in the first bytes of a device ("gpt",
// "ext4", "xfs", ...), if any. `head` should hold at least 68 KiB (btrfs sits
// at 64 KiB).
std::optional<std::string> find_signature(std::span<const std::byte> head);

// What a job asks of its target.
struct TargetAccess {
  bool write = false;
  bool direct = true;           // O_DIRECT on the returned descriptor
  std::uint64_t file_size = 0;  // file targets of writes: create (O_EXCL) or extend to this
};

// A target opened once and approved on its descriptor.
struct CheckedTarget {
  UniqueFd fd;
  bool block_device = false;
};

class SafetyGuard {
 public:
  explicit SafetyGuard(SafetyConfig config, SystemRoots roots = {});

  // Opens `path` for the job and checks the descriptor (see the top). An
  // Error.reason is one of "mounted", "swap", "holder", "has_partitions",
  // "partition", "signature", "no_serial", "not_allowed", "busy",
  // "outside_allowed_dirs", "symlink", "hard_link", "loop_backing",
  // "would_block", "unknown_device", "unsupported_target", "io", and the
  // message names the target and the cause. Nothing is written before the
  // checks pass (a new file is created empty, then extended).
  Result<CheckedTarget> open_target(const std::string& path, const TargetAccess& access) const;

  // The same judgement of a write target without opening it for writing (a
  // dry run: what open_target would refuse today, for messages and tests).
  std::optional<Error> check_write_target(const std::string& path) const;

  // The two halves, for tests on fake trees: a block device by its kernel name
  // ("nvme0n1") whose first bytes are read from `content_path`; a file path.
  std::optional<Error> check_block_device(const std::string& name, const std::string& content_path) const;
  std::optional<Error> check_file(const std::string& path) const;

 private:
  // A path inside one of allow_dirs, lexically: the directory and the rest.
  struct Placement {
    std::string dir;
    std::string relative;
  };
  std::optional<Placement> place(const std::string& full) const;
  std::optional<Error> check_file_at(const std::string& path, bool refuse_loop_backing) const;
  // What fstat says of an open regular file inside allow_dirs.
  std::optional<Error> check_regular(const struct stat& st, const std::string& shown, bool refuse_loop_backing) const;
  // The kernel's name of block device `rdev` ("nvme0n1"), from sysfs.
  Result<std::string> block_name(dev_t rdev, const std::string& shown) const;
  // What sysfs and procfs say of a block device: every check that needs no
  // open of it (mounts, swap, holders, partitions, loop backing, serial).
  std::optional<Error> check_block_sysfs(const std::string& name) const;
  // Its first bytes, read from a descriptor opened after check_block_sysfs.
  std::optional<Error> check_signature(const std::string& name, int content_fd) const;
  // Opens the object the O_PATH descriptor `judged_fd` names, whose fstat was
  // `judged`, with open(2) `flags`; an Error if it is no longer that object.
  static Result<UniqueFd> reopen_judged(int judged_fd, const struct stat& judged, int flags, const std::string& shown);
  std::optional<std::string> loop_backed_by(dev_t dev, ino_t ino) const;
  bool is_swap(const std::string& full, const struct stat* st) const;
  bool is_nvme_generic(dev_t rdev) const;
  // The refusal for open_beneath's -errno `err` on `full` below `dir`.
  static Error beneath_refusal(const std::string& full, const std::string& dir, int err);

  Result<CheckedTarget> open_file_for_write(const Placement& where, const std::string& full,
                                            const TargetAccess& access) const;
  Result<CheckedTarget> open_device_for_write(const std::string& full, const TargetAccess& access) const;
  Result<CheckedTarget> open_for_read(const std::string& full, const TargetAccess& access) const;
  // A block device judged on the O_PATH descriptor `judged_fd` (fstat `st`).
  Result<CheckedTarget> open_judged_device(int judged_fd, const struct stat& st, const std::string& full,
                                           const TargetAccess& access) const;
  // A regular file open for writing: judged on its descriptor, extended.
  Result<CheckedTarget> ready_file(UniqueFd fd, const std::string& full, const TargetAccess& access) const;

  SafetyConfig config_;
  SystemRoots roots_;
};

// `path` made absolute and lexically normal ("..", "." and "//" folded, no
// symlink followed): the name the guard judges and reports.
std::string normal_target_path(const std::string& path);

}  // namespace nvmond
