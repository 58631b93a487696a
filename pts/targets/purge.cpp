#include "pts/targets/purge.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "workloads/checked_open.hpp"

namespace nvmond {

namespace {

// NVMe Format with the namespace's current LBA format and a user-data erase;
// the kernel is then asked to re-read the namespace (harmless if it refuses).
std::optional<std::string> try_format(const NvmeNamespace& nvme, int fd) {
  if (!nvme.nsid) return "the namespace id is unknown";
  if (auto err = nvme.controller->format_user_data_erase(*nvme.nsid)) return err->message;
  ::ioctl(fd, BLKRRPART);
  return std::nullopt;
}

std::optional<std::string> write_zeros(int fd, std::uint64_t bytes) {
  std::vector<char> zeros(1 << 20, 0);
  for (std::uint64_t off = 0; off < bytes;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(zeros.size(), bytes - off));
    const ssize_t w = ::pwrite(fd, zeros.data(), n, static_cast<off_t>(off));
    if (w <= 0) return fmt::format("writing zeros at {}: {}", off, std::strerror(errno));
    off += static_cast<std::uint64_t>(w);
  }
  if (::fsync(fd) != 0) return fmt::format("fsync: {}", std::strerror(errno));
  return std::nullopt;
}

}  // namespace

Result<PurgeRecord> purge_target(int fd, const std::string& path, std::uint64_t bytes, const NvmeNamespace* nvme) {
  // Zero-fill writes through the page cache, not O_DIRECT's alignment rules:
  // its own descriptor to the same open file, without O_DIRECT.
  const UniqueFd own(::open(fmt::format("/proc/self/fd/{}", fd).c_str(), O_RDWR | O_CLOEXEC));
  if (!own.valid())
    return Error{ErrorReason::io,
                 fmt::format("purge {}: reopening the approved descriptor: {}", path, std::strerror(errno))};
  struct stat st {};
  ::fstat(own.get(), &st);
  std::string why;
  const auto also = [&why](const std::string& reason) { why += (why.empty() ? "" : "; ") + reason; };
  if (nvme != nullptr) {
    auto format_failed = try_format(*nvme, own.get());
    if (!format_failed) return PurgeRecord{"format", "NVMe Format NVM, user data erase, current LBA format"};
    also("format: " + *format_failed);
  } else if (S_ISBLK(st.st_mode)) {
    also("format: not an NVMe namespace");
  }
  if (S_ISBLK(st.st_mode)) {
    std::uint64_t range[2] = {0, bytes};
    if (::ioctl(own.get(), BLKDISCARD, range) == 0) {
      return PurgeRecord{"deallocate", fmt::format("BLKDISCARD of {} bytes ({})", bytes, why)};
    }
    also(fmt::format("discard: {}", std::strerror(errno)));
    if (::ioctl(own.get(), BLKZEROOUT, range) == 0)
      return PurgeRecord{"zero-fill", fmt::format("BLKZEROOUT ({})", why)};
    also(fmt::format("zero-out: {}", std::strerror(errno)));
  } else {
    if (::fallocate(own.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) == 0) {
      const std::string detail = fmt::format("hole punched over {} bytes of the file", bytes);
      return PurgeRecord{"deallocate", why.empty() ? detail : fmt::format("{} ({})", detail, why)};
    }
    also(fmt::format("punch hole: {}", std::strerror(errno)));
  }
  if (auto err = write_zeros(own.get(), bytes)) {
    return Error{ErrorReason::io, fmt::format("purge {}: {}; {}", path, why, *err)};
  }
  return PurgeRecord{"zero-fill", fmt::format("wrote zeros over {} bytes ({})", bytes, why)};
}

}  // namespace nvmond
