#include "pts/purge.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>
#include <libnvme.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "workloads/checked_open.hpp"

namespace nvmond {

namespace {

// NVMe Format with the namespace's current LBA format and a user-data erase.
std::optional<std::string> try_format(int fd) {
  __u32 nsid = 0;
  if (nvme_get_nsid(fd, &nsid) != 0) return fmt::format("not an NVMe namespace ({})", std::strerror(errno));
  nvme_id_ns ns{};
  if (int rc = nvme_identify_ns(fd, nsid, &ns); rc != 0) {
    return rc < 0 ? fmt::format("Identify Namespace failed: {}", std::strerror(errno))
                  : fmt::format("Identify Namespace: NVMe status {:#x}", rc);
  }
  __u32 result = 0;
  nvme_format_nvm_args args{};
  args.result = &result;
  args.args_size = sizeof(args);
  args.fd = fd;
  args.timeout = 600'000;
  args.nsid = nsid;
  args.mset = NVME_FORMAT_MSET_SEPARATE;
  args.pi = NVME_FORMAT_PI_DISABLE;
  args.pil = NVME_FORMAT_PIL_LAST;
  args.ses = NVME_FORMAT_SES_USER_DATA_ERASE;
  args.lbaf = static_cast<__u8>(ns.flbas & 0x0f);
  const int rc = nvme_format_nvm(&args);
  if (rc == 0) {
    ::ioctl(fd, BLKRRPART);  // the kernel re-reads the namespace; harmless if it refuses
    return std::nullopt;
  }
  return rc < 0 ? fmt::format("Format NVM failed: {}", std::strerror(errno))
                : fmt::format("Format NVM: NVMe status {:#x}", rc);
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

Result<PurgeOutcome> purge_target(int fd, const std::string& path, std::uint64_t bytes) {
  // Zero-fill writes through the page cache, not O_DIRECT's alignment rules:
  // its own descriptor to the same open file, without O_DIRECT.
  const UniqueFd own(::open(fmt::format("/proc/self/fd/{}", fd).c_str(), O_RDWR | O_CLOEXEC));
  if (!own.valid()) return Error{"io", fmt::format("purge {}: reopening the approved descriptor: {}", path, std::strerror(errno))};
  struct stat st{};
  ::fstat(own.get(), &st);
  std::string why;
  if (S_ISBLK(st.st_mode)) {
    auto format_failed = try_format(own.get());
    if (!format_failed) return PurgeOutcome{"format", "NVMe Format NVM, user data erase, current LBA format"};
    why = "format: " + *format_failed;
    std::uint64_t range[2] = {0, bytes};
    if (::ioctl(own.get(), BLKDISCARD, range) == 0) {
      return PurgeOutcome{"deallocate", fmt::format("BLKDISCARD of {} bytes ({})", bytes, why)};
    }
    why += fmt::format("; discard: {}", std::strerror(errno));
    if (::ioctl(own.get(), BLKZEROOUT, range) == 0) return PurgeOutcome{"zero-fill", fmt::format("BLKZEROOUT ({})", why)};
    why += fmt::format("; zero-out: {}", std::strerror(errno));
  } else {
    if (::fallocate(own.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) == 0) {
      return PurgeOutcome{"deallocate", fmt::format("hole punched over {} bytes of the file", bytes)};
    }
    why = fmt::format("punch hole: {}", std::strerror(errno));
  }
  if (auto err = write_zeros(own.get(), bytes)) {
    return Error{"io", fmt::format("purge {}: {}; {}", path, why, *err)};
  }
  return PurgeOutcome{"zero-fill", fmt::format("wrote zeros over {} bytes ({})", bytes, why)};
}

}  // namespace nvmond
