#pragma once
// Purging a real target before a test (PTS: return the drive to a known,
// fresh state), strongest available method first:
//   1. NVMe Format NVM with user-data erase, sent through the namespace's
//      controller (the Device boundary), on an NVMe namespace;
//   2. deallocate the whole range: BLKDISCARD on a block device (the kernel
//      turns it into NVMe Dataset Management / TRIM), hole punching on a file;
//   3. zero-fill (BLKZEROOUT, or writing zeros to a file).
// The outcome names what was done and why the stronger methods were not.
#include <cstdint>
#include <string>

#include "collectors/device.hpp"
#include "core/result.hpp"
#include "pts/target.hpp"

namespace nvmond {

// `fd`: the target, already opened read-write and approved by the safety
// guard (borrowed); `path` only names it in messages. `nvme`: the NVMe
// namespace the target is, or null when it is none.
Result<PurgeRecord> purge_target(int fd, const std::string& path, std::uint64_t bytes, const NvmeNamespace* nvme);

}  // namespace nvmond
