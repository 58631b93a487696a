#include "workloads/safety_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

namespace nvmond {

namespace fs = std::filesystem;

SafetyConfig parse_safety(TableReader& t) {
  SafetyConfig c;
  c.allow_serials = t.strings("allow_serials");
  c.allow_dirs = t.strings("allow_dirs");
  for (const auto& d : c.allow_dirs) {
    if (d.empty() || d.front() != '/') t.fail("allow_dirs", "\"" + d + "\" must be an absolute path");
    if (d == "/") t.fail("allow_dirs", "\"/\" would allow writing any file");
  }
  t.finish();
  return c;
}

namespace {

struct Signature {
  const char* name;
  std::size_t offset;
  std::string_view magic;
};

using namespace std::string_view_literals;
// Offsets from the on-disk formats (as blkid/wipefs know them).
const Signature kSignatures[] = {
    {"gpt", 512, "EFI PART"sv},
    {"gpt", 4096, "EFI PART"sv},
    {"lvm2", 512, "LABELONE"sv},
    {"lvm2", 0, "LABELONE"sv},
    {"lvm2", 1024, "LABELONE"sv},
    {"lvm2", 1536, "LABELONE"sv},
    {"linux_raid", 4096, "\xfc\x4e\x2b\xa9"sv},
    {"linux_raid", 0, "\xfc\x4e\x2b\xa9"sv},
    {"luks", 0, "LUKS\xba\xbe"sv},
    {"xfs", 0, "XFSB"sv},
    {"ext4", 1080, "\x53\xef"sv},
    {"f2fs", 1024, "\x10\x20\xf5\xf2"sv},
    {"btrfs", 65600, "_BHRfS_M"sv},
    {"swap", 4086, "SWAPSPACE2"sv},
    {"swap", 4086, "SWAP-SPACE"sv},
    {"swap", 65526, "SWAPSPACE2"sv},
    {"ntfs", 3, "NTFS    "sv},
    {"vfat", 82, "FAT32   "sv},
    {"vfat", 54, "FAT16   "sv},
    {"vfat", 54, "FAT12   "sv},
    {"iso9660", 32769, "CD001"sv},
    {"dos_mbr", 510, "\x55\xaa"sv},  // last: FAT/NTFS boot sectors carry it too
};

std::string read_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

Error refuse(ErrorReason reason, std::string message) { return Error{reason, std::move(message)}; }

// The Filename column of `proc`/swaps: every active swap device or file.
std::vector<std::string> active_swaps(const std::string& proc) {
  std::ifstream in(fs::path(proc) / "swaps");
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::string> names;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    if (fields >> name) names.push_back(name);
  }
  return names;
}

}  // namespace

std::optional<std::string> find_signature(std::span<const std::byte> head) {
  for (const auto& s : kSignatures) {
    if (s.offset + s.magic.size() > head.size()) continue;
    if (std::memcmp(head.data() + s.offset, s.magic.data(), s.magic.size()) == 0) return s.name;
  }
  return std::nullopt;
}

SafetyGuard::SafetyGuard(SafetyConfig config, SystemRoots roots)
    : config_(std::move(config)), roots_(std::move(roots)) {}

std::optional<Error> SafetyGuard::check_write_target(const std::string& path) const {
  const std::string full = normal_target_path(path);
  if (place(full)) return check_file(full);
  // O_PATH: no open side effect on any kind of file, never blocks.
  UniqueFd probe(::open(full.c_str(), O_PATH | O_CLOEXEC));
  struct stat st {};
  if (!probe.valid() || ::fstat(probe.get(), &st) != 0) {
    if (errno == ENOENT) return check_file(full);  // names the allowed directories
    return refuse(ErrorReason::unknown_device, fmt::format("{}: {}", full, std::strerror(errno)));
  }
  if (S_ISREG(st.st_mode)) return check_file(full);
  if (!S_ISBLK(st.st_mode)) {
    return refuse(ErrorReason::unsupported_target, full + " is neither a block device nor a regular file");
  }
  auto name = block_name(st.st_rdev, full);
  if (!name) return name.error();
  if (auto e = check_block_sysfs(*name)) return e;
  // Only a device its sysfs facts approve is read, for its signature.
  auto content = reopen_judged(probe.get(), st, O_RDONLY | O_NONBLOCK, full);
  if (!content) return content.error();
  return check_signature(*name, content->get());
}

std::optional<Error> SafetyGuard::check_block_device(const std::string& name, const std::string& content_path) const {
  UniqueFd fd(::open(content_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    return refuse(ErrorReason::unknown_device,
                  fmt::format("{}: cannot read {}: {}", name, content_path, std::strerror(errno)));
  }
  if (auto e = check_block_sysfs(name)) return e;
  return check_signature(name, fd.get());
}

std::optional<Error> SafetyGuard::check_block_sysfs(const std::string& name) const {
  std::error_code ec;
  const fs::path classes = fs::path(roots_.sys) / "class/block";
  const fs::path base = classes / name;
  if (!fs::exists(base, ec)) return refuse(ErrorReason::unknown_device, name + ": not in " + classes.string());

  // The device, its partitions, and everything stacked on any of them.
  std::vector<std::string> partitions;
  for (const auto& e : fs::directory_iterator(base, ec)) {
    if (e.is_directory(ec) && fs::exists(e.path() / "partition", ec)) {
      partitions.push_back(e.path().filename().string());
    }
  }
  std::sort(partitions.begin(), partitions.end());
  std::vector<std::string> family{name};
  family.insert(family.end(), partitions.begin(), partitions.end());
  std::vector<std::pair<std::string, std::string>> holders;  // (holder, held)
  for (std::size_t i = 0; i < family.size() && i < 256; ++i) {
    const fs::path dir = classes / family[i] / "holders";
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string h = e.path().filename().string();
      holders.emplace_back(h, family[i]);
      if (std::find(family.begin(), family.end(), h) == family.end()) family.push_back(h);
    }
  }

  // Mounted: match major:minor of every family member against mountinfo.
  std::vector<std::pair<std::string, std::string>> devnums;
  for (const auto& m : family) devnums.emplace_back(read_line(classes / m / "dev"), m);
  {
    std::ifstream in(fs::path(roots_.proc) / "self/mountinfo");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string id, parent, devnum, root, mountpoint;
      fields >> id >> parent >> devnum >> root >> mountpoint;
      for (const auto& [num, member] : devnums) {
        if (!num.empty() && num == devnum) {
          return refuse(ErrorReason::mounted, fmt::format("{}: {} is mounted on {}", name, member, mountpoint));
        }
      }
    }
  }
  for (const std::string& swap : active_swaps(roots_.proc)) {
    const std::string base_name = fs::path(swap).filename().string();
    for (const auto& m : family) {
      if (m == base_name) return refuse(ErrorReason::swap, fmt::format("{}: {} is in use as swap", name, m));
    }
  }
  if (!holders.empty()) {
    return refuse(ErrorReason::holder, fmt::format("{}: {} is held by {} (LVM, MD RAID or device-mapper)", name,
                                                   holders.front().second, holders.front().first));
  }
  if (!partitions.empty()) {
    return refuse(ErrorReason::has_partitions,
                  fmt::format("{}: has partitions ({}{}); wipe the partition table first", name, partitions.front(),
                              partitions.size() > 1 ? ", ..." : ""));
  }
  if (fs::exists(base / "partition", ec)) {
    return refuse(ErrorReason::partition, fmt::format("{}: is a partition; give the whole device", name));
  }

  // A loop device is the file behind it.
  const std::string backing = read_line(base / "loop/backing_file");
  if (!backing.empty()) {
    // Writes go to the file behind it, so that file is judged (the loop
    // device itself being the one thing allowed to be backed by it).
    if (auto e = check_file_at(backing, false)) {
      return refuse(e->reason, fmt::format("{}: loop device over {}", name, e->message));
    }
    return std::nullopt;
  }
  std::string serial = read_line(base / "device/serial");
  if (serial.empty()) serial = read_line(base / "serial");
  std::string wwid = read_line(base / "device/wwid");
  if (wwid.empty()) wwid = read_line(base / "wwid");
  if (serial.empty() && wwid.empty()) {
    return refuse(ErrorReason::no_serial,
                  fmt::format("{}: has no serial or wwid to match [safety] allow_serials", name));
  }
  for (const auto& a : config_.allow_serials) {
    if (a == serial || a == wwid) return std::nullopt;
  }
  return refuse(ErrorReason::not_allowed, fmt::format("{}: serial \"{}\" is not in [safety] allow_serials", name,
                                                      serial.empty() ? wwid : serial));
}

std::optional<Error> SafetyGuard::check_signature(const std::string& name, int content_fd) const {
  std::vector<std::byte> head(68 * 1024);
  const ssize_t got = ::pread(content_fd, head.data(), head.size(), 0);
  if (got < 0) {
    return refuse(ErrorReason::unknown_device,
                  fmt::format("{}: reading its first bytes: {}", name, std::strerror(errno)));
  }
  head.resize(static_cast<std::size_t>(got));
  if (auto sig = find_signature(head)) {
    return refuse(ErrorReason::signature,
                  fmt::format("{}: carries a {} signature; wipe it (wipefs -a) if the data may go", name, *sig));
  }
  return std::nullopt;
}

std::optional<Error> SafetyGuard::check_file(const std::string& path) const { return check_file_at(path, true); }

std::optional<SafetyGuard::Placement> SafetyGuard::place(const std::string& full) const {
  for (const auto& d : config_.allow_dirs) {
    std::error_code ec;
    // As configured, and with the operator's own symlinks resolved (the
    // directory is trusted; only what lies below it is opened without links).
    for (fs::path dir : {fs::path(d).lexically_normal(), fs::canonical(d, ec)}) {
      std::string prefix = dir.string();
      if (prefix.empty()) continue;
      if (prefix.back() != '/') prefix += '/';
      if (full.size() > prefix.size() && full.compare(0, prefix.size(), prefix) == 0) {
        return Placement{d, full.substr(prefix.size())};
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> SafetyGuard::check_file_at(const std::string& path, bool refuse_loop_backing) const {
  const std::string full = normal_target_path(path);
  const auto where = place(full);
  if (!where) return refuse(ErrorReason::outside_allowed_dirs, fmt::format("{} is outside [safety] allow_dirs", full));
  UniqueFd dir(::open(where->dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    return refuse(ErrorReason::outside_allowed_dirs,
                  fmt::format("{}: allowed directory {}: {}", full, where->dir, std::strerror(errno)));
  }
  UniqueFd fd(open_beneath(dir.get(), where->relative, O_PATH));
  if (!fd.valid()) {
    const int err = -fd.release();
    if (err == ENOENT) {  // would be created
      if (is_swap(full, nullptr)) return refuse(ErrorReason::swap, full + " is an active swap file");
      return std::nullopt;
    }
    return beneath_refusal(full, where->dir, err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return refuse(ErrorReason::io, fmt::format("stat of {}: {}", full, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return refuse(ErrorReason::unsupported_target, full + " is not a regular file");
  return check_regular(st, full, refuse_loop_backing);
}

std::optional<Error> SafetyGuard::check_regular(const struct stat& st, const std::string& shown,
                                                bool refuse_loop_backing) const {
  if (st.st_nlink > 1) {
    return refuse(
        ErrorReason::hard_link,
        fmt::format("{} has {} hard links; another one may lie outside [safety] allow_dirs", shown, st.st_nlink));
  }
  if (is_swap(shown, &st)) return refuse(ErrorReason::swap, shown + " is an active swap file");
  if (refuse_loop_backing) {
    if (auto loop = loop_backed_by(st.st_dev, st.st_ino)) {
      return refuse(ErrorReason::loop_backing, fmt::format("{} backs loop device {} (and what is mounted from it); "
                                                           "detach it first (losetup -d)",
                                                           shown, *loop));
    }
  }
  return std::nullopt;
}

Error SafetyGuard::beneath_refusal(const std::string& full, const std::string& dir, int err) {
  if (err == ELOOP) {
    return refuse(ErrorReason::symlink, fmt::format("{}: a symlink on the way below {}; symlinks inside [safety] "
                                                    "allow_dirs are never followed",
                                                    full, dir));
  }
  if (err == EXDEV) {
    return refuse(ErrorReason::outside_allowed_dirs, fmt::format("{}: crosses a mount point below {}; only the allowed "
                                                                 "directory's own filesystem is written",
                                                                 full, dir));
  }
  return refuse(ErrorReason::io, fmt::format("opening {}: {}", full, std::strerror(err)));
}

bool SafetyGuard::is_swap(const std::string& full, const struct stat* st) const {
  for (const std::string& name : active_swaps(roots_.proc)) {
    if (name == full) return true;
    struct stat s {};
    if (st != nullptr && ::stat(name.c_str(), &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino) {
      return true;
    }
  }
  return false;
}

}  // namespace nvmond
