#include "drivelog/telemetry_archive.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

#include "core/io_error.hpp"
#include "core/atomic_file.hpp"
#include "core/unique_fd.hpp"

namespace nvmond {

namespace {

constexpr std::string_view kSuffix = ".bin";

bool safe_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// An existing directory, never created, never a symlink: nullopt when absent.
Result<std::optional<UniqueFd>> open_existing_dir(int parent_fd, const std::string& name, const std::string& shown) {
  UniqueFd fd(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.valid()) return std::optional<UniqueFd>{std::move(fd)};
  const int err = errno;
  if (err == ENOENT) return std::optional<UniqueFd>{};
  if (err == ELOOP || err == ENOTDIR) {
    return Error{ErrorReason::io, shown + ": is a symlink or not a directory; nothing is read or written through it"};
  }
  return io_error(shown, "open directory", err);
}

// The captures in one drive's directory (regular files with our names).
Result<std::vector<TelemetryFile>> drive_files(int fd, const std::string& drive_dir, const std::string& shown) {
  auto names = directory_entries(fd, shown);
  if (!names) return names.error();
  std::vector<TelemetryFile> out;
  for (const auto& name : *names) {
    auto file = parse_telemetry_file_name(name);
    struct stat st {};
    if (!file || ::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    file->drive_dir = drive_dir;
    file->bytes = static_cast<std::uint64_t>(st.st_size);
    out.push_back(std::move(*file));
  }
  return out;
}

void oldest_first(std::vector<TelemetryFile>& files) {
  std::sort(files.begin(), files.end(), [](const TelemetryFile& a, const TelemetryFile& b) {
    return std::tie(a.at, a.name, a.drive_dir) < std::tie(b.at, b.name, b.drive_dir);
  });
}

std::uint64_t total_bytes(const std::vector<TelemetryFile>& files) {
  std::uint64_t n = 0;
  for (const auto& f : files) n += f.bytes;
  return n;
}

}  // namespace

std::string telemetry_drive_dir(std::string_view serial) {
  std::string out;
  for (const char c : serial) {
    if (safe_byte(c)) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out.empty() ? std::string("%") : out;  // "%" alone: an empty serial
}

std::string telemetry_file_name(WallTime at, std::uint8_t generation, unsigned data_area) {
  return fmt::format("{:%Y%m%dT%H%M%S}Z-gen{:03}-area{}{}", std::chrono::floor<std::chrono::seconds>(at), generation,
                     data_area, kSuffix);
}

std::optional<TelemetryFile> parse_telemetry_file_name(std::string_view name) {
  // 20260101T120000Z-gen007-area3.bin
  constexpr std::size_t kLength = 33;
  if (name.size() != kLength || name.substr(15, 5) != "Z-gen" || name.substr(23, 5) != "-area" ||
      name.substr(29) != kSuffix || name[8] != 'T') {
    return std::nullopt;
  }
  auto number = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (name[i] < '0' || name[i] > '9') return std::nullopt;
      v = v * 10 + (name[i] - '0');
    }
    return v;
  };
  const auto y = number(0, 4), mo = number(4, 2), d = number(6, 2), h = number(9, 2), mi = number(11, 2),
             s = number(13, 2), gen = number(20, 3), area = number(28, 1);
  if (!y || !mo || !d || !h || !mi || !s || !gen || !area || *gen > 255 || *area < 1 ||
      *area > static_cast<int>(kTelemetryMaxDataArea) || *h > 23 || *mi > 59 || *s > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(*y), std::chrono::month(static_cast<unsigned>(*mo)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  TelemetryFile f;
  f.name = std::string(name);
  f.at = std::chrono::sys_days(ymd) + std::chrono::hours(*h) + std::chrono::minutes(*mi) + std::chrono::seconds(*s);
  f.generation = static_cast<std::uint8_t>(*gen);
  return f;
}

TelemetryArchive::TelemetryArchive(std::string state_dir, std::uint64_t max_bytes_per_drive, std::uint64_t max_bytes)
    : state_dir_(std::move(state_dir)), max_bytes_per_drive_(max_bytes_per_drive), max_bytes_(max_bytes) {}

Result<TelemetryArchive::Saved> TelemetryArchive::save(std::string_view serial, const TelemetryLog& log, WallTime at) {
  const std::uint64_t size = log.bytes.size();
  if (size > max_bytes_per_drive_ || size > max_bytes_) {
    return Error{ErrorReason::full,
                 fmt::format("{}: a capture of {} bytes is over the telemetry size caps ({} per drive, {} in all)",
                             root(), size, max_bytes_per_drive_, max_bytes_)};
  }
  std::lock_guard lock(mu_);
  UniqueFd state(::open(state_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state.valid()) return io_error(state_dir_, "open directory", errno);
  auto top = open_directory_at(state.get(), "telemetry", root());
  if (!top) return top.error();
  const std::string dir_name = telemetry_drive_dir(serial);
  const std::string shown = root() + "/" + dir_name;
  auto dir = open_directory_at(top->get(), dir_name, shown);
  if (!dir) return dir.error();
  const std::string name = telemetry_file_name(at, log.header.controller_generation, log.data_area);
  const std::string_view content(reinterpret_cast<const char*>(log.bytes.data()), log.bytes.size());
  if (auto err = write_file_atomically_at(dir->get(), name, content, shown)) return *err;

  Saved saved;
  saved.path = shown + "/" + name;
  auto remove = [&](int fd, const TelemetryFile& f, const std::string& where) {
    if (::unlinkat(fd, f.name.c_str(), 0) == 0 || errno == ENOENT) saved.removed.push_back(where + "/" + f.name);
  };
  // This drive's own first, so a drive that captures often pays for itself.
  if (auto mine = drive_files(dir->get(), dir_name, shown)) {
    oldest_first(*mine);
    std::uint64_t held = total_bytes(*mine);
    for (const auto& f : *mine) {
      if (held <= max_bytes_per_drive_) break;
      if (f.name == name) continue;
      remove(dir->get(), f, shown);
      held -= f.bytes;
    }
  }
  auto drives = directory_entries(top->get(), root());
  if (!drives) return saved;  // saved; the total cap waits for the next save
  std::vector<TelemetryFile> all;
  for (const auto& d : *drives) {
    auto fd = open_existing_dir(top->get(), d, root() + "/" + d);
    if (!fd || !*fd) continue;
    if (auto files = drive_files((*fd)->get(), d, root() + "/" + d))
      all.insert(all.end(), files->begin(), files->end());
  }
  oldest_first(all);
  std::uint64_t held = total_bytes(all);
  for (const auto& f : all) {
    if (held <= max_bytes_) break;
    if (f.drive_dir == dir_name && f.name == name) continue;
    auto fd = open_existing_dir(top->get(), f.drive_dir, root() + "/" + f.drive_dir);
    if (fd && *fd) remove((*fd)->get(), f, root() + "/" + f.drive_dir);
    held -= f.bytes;
  }
  return saved;
}

Result<std::optional<TelemetryFile>> TelemetryArchive::newest(std::string_view serial) {
  std::lock_guard lock(mu_);
  UniqueFd state(::open(state_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state.valid()) return io_error(state_dir_, "open directory", errno);
  auto top = open_existing_dir(state.get(), "telemetry", root());
  if (!top) return top.error();
  if (!*top) return std::optional<TelemetryFile>{};
  const std::string dir_name = telemetry_drive_dir(serial);
  auto dir = open_existing_dir((*top)->get(), dir_name, root() + "/" + dir_name);
  if (!dir) return dir.error();
  if (!*dir) return std::optional<TelemetryFile>{};
  auto files = drive_files((*dir)->get(), dir_name, root() + "/" + dir_name);
  if (!files) return files.error();
  if (files->empty()) return std::optional<TelemetryFile>{};
  oldest_first(*files);
  return std::optional<TelemetryFile>{files->back()};
}

Result<std::vector<TelemetryFile>> TelemetryArchive::files() {
  std::lock_guard lock(mu_);
  std::vector<TelemetryFile> all;
  UniqueFd state(::open(state_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!state.valid()) return io_error(state_dir_, "open directory", errno);
  auto top = open_existing_dir(state.get(), "telemetry", root());
  if (!top) return top.error();
  if (!*top) return all;
  auto drives = directory_entries((*top)->get(), root());
  if (!drives) return drives.error();
  for (const auto& d : *drives) {
    auto fd = open_existing_dir((*top)->get(), d, root() + "/" + d);
    if (!fd || !*fd) continue;  // not a drive's directory
    auto files = drive_files((*fd)->get(), d, root() + "/" + d);
    if (!files) return files.error();
    all.insert(all.end(), files->begin(), files->end());
  }
  oldest_first(all);
  return all;
}

}  // namespace nvmond
