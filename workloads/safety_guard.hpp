#pragma once
// Refuses destructive workloads on anything that might hold data. Before any
// write, a block device must be: not mounted (itself, a partition, or an
// LVM/MD/dm device stacked on it), not swap, without partitions or holders,
// without a filesystem / partition-table / RAID / LVM signature, and its serial
// (or WWID) must be in [safety] allow_serials. A loop device counts as the file
// behind it. A regular file must lie inside one of [safety] allow_dirs and not
// be an active swap file.
//
// [safety]
// allow_serials = ["S4EWNX0R123456"]   # drives handed over for destructive tests
// allow_dirs = ["/var/lib/nvmond/scratch"]  # where file targets may be written
//
// The sysfs, procfs roots are injectable so tests run on fake trees. Reads only;
// thread-safe (no mutable state).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/config_reader.hpp"
#include "core/result.hpp"

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

class SafetyGuard {
 public:
  explicit SafetyGuard(SafetyConfig config, SystemRoots roots = {});

  // nullopt: writing to `path` is allowed. Otherwise Error.reason is one of
  // "mounted", "swap", "holder", "has_partitions", "partition", "signature",
  // "no_serial", "not_allowed", "outside_allowed_dirs", "unknown_device",
  // "unsupported_target", and the message names the device and the cause.
  std::optional<Error> check_write_target(const std::string& path) const;

  // The two halves, for tests on fake trees: a block device by its kernel name
  // ("nvme0n1") whose first bytes are read from `content_path`; a file path.
  std::optional<Error> check_block_device(const std::string& name, const std::string& content_path) const;
  std::optional<Error> check_file(const std::string& path) const;

 private:
  SafetyConfig config_;
  SystemRoots roots_;
};

}  // namespace nvmond
