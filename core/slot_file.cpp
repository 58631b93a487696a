#include "core/slot_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/io_error.hpp"
#include "core/atomic_file.hpp"
#include "core/unique_fd.hpp"

namespace nvmond {

namespace {

constexpr char kMagic[8] = {'N', 'V', 'M', 'S', 'L', 'O', 'T', '1'};
constexpr std::size_t kPage = 4096;
// One page per slot for a start: the simulated drives' states fit.
constexpr std::size_t kInitialCapacity = kPage - SlotFile::kSlotHeaderBytes;

// Slot header fields, by byte offset within the slot.
constexpr std::size_t kGeneration = 0;
constexpr std::size_t kLength = 8;
constexpr std::size_t kChecksum = 16;
constexpr std::size_t kReserved = 24;

std::uint64_t load_u64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store_u64(unsigned char* p, std::uint64_t v) { std::memcpy(p, &v, sizeof v); }

// FNV-1a over 64-bit words, then the tail bytes: fast enough for a save per
// poll, and a torn slot's chance of passing is 2^-64.
std::uint64_t checksum(std::uint64_t generation, std::uint64_t length, const unsigned char* data) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  std::uint64_t h = 0xcbf29ce484222325ULL;
  h = (h ^ generation) * kPrime;
  h = (h ^ length) * kPrime;
  std::size_t i = 0;
  for (; i + 8 <= length; i += 8) h = (h ^ load_u64(data + i)) * kPrime;
  for (; i < length; ++i) h = (h ^ data[i]) * kPrime;
  return h ^ (h >> 29);
}

// Writes `content` into `slot` as save `generation`. In the file the
// checksum comes before the payload, so a write cut short leaves a payload
// that does not match it.
void write_slot(unsigned char* slot, std::string_view content, std::uint64_t generation) {
  store_u64(slot + kGeneration, generation);
  store_u64(slot + kLength, content.size());
  store_u64(slot + kReserved, 0);
  std::memcpy(slot + SlotFile::kSlotHeaderBytes, content.data(), content.size());
  store_u64(slot + kChecksum, checksum(generation, content.size(), slot + SlotFile::kSlotHeaderBytes));
}

void write_header(unsigned char* base, std::size_t capacity) {
  std::memset(base, 0, SlotFile::kHeaderBytes);
  std::memcpy(base, kMagic, sizeof kMagic);
  store_u64(base + 8, capacity);
}

struct Newest {
  int slot = -1;  // -1: no slot holds a complete save
  std::uint64_t generation = 0;
};

// The header's slot capacity when `bytes` of file hold a well-formed slot file.
std::optional<std::size_t> capacity_of(const unsigned char* base, std::size_t bytes) {
  if (bytes < kPage || std::memcmp(base, kMagic, sizeof kMagic) != 0) return std::nullopt;
  const std::uint64_t capacity = load_u64(base + 8);
  if (capacity == 0 || capacity > SlotFile::kMaxPayloadBytes * 2 || SlotFile::file_bytes(capacity) != bytes) {
    return std::nullopt;
  }
  return capacity;
}

Newest newest_of(const unsigned char* base, std::size_t capacity) {
  Newest best;
  for (int i = 0; i < 2; ++i) {
    const unsigned char* slot = base + SlotFile::slot_offset(capacity, i);
    const std::uint64_t generation = load_u64(slot + kGeneration);
    const std::uint64_t length = load_u64(slot + kLength);
    if (generation == 0 || length > capacity) continue;
    if (load_u64(slot + kChecksum) != checksum(generation, length, slot + SlotFile::kSlotHeaderBytes)) continue;
    if (best.slot < 0 || generation > best.generation) best = {i, generation};
  }
  return best;
}

// A fresh file's bytes: slots of `capacity`, `content` (when given) in
// slot 0 as `generation`.
std::string image(std::size_t capacity, std::optional<std::string_view> content, std::uint64_t generation) {
  std::string out(SlotFile::file_bytes(capacity), '\0');
  auto* base = reinterpret_cast<unsigned char*>(out.data());
  write_header(base, capacity);
  if (content) write_slot(base + SlotFile::slot_offset(capacity, 0), *content, generation);
  return out;
}

// Why a slot file of `capacity` with this status is no longer the one a
// save can write into; nullopt when it still is.
std::optional<std::string> damage(const struct stat& st, std::size_t capacity) {
  if (auto why = not_own_file(st)) return why;
  if (static_cast<std::uint64_t>(st.st_size) != SlotFile::file_bytes(capacity)) {
    return "truncated or extended to " + std::to_string(st.st_size) + " bytes, not " +
           std::to_string(SlotFile::file_bytes(capacity));
  }
  return std::nullopt;
}

std::optional<Error> pwrite_all(int fd, const std::string& path, const unsigned char* data, std::size_t n,
                                std::size_t offset) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::pwrite(fd, data + done, n - done, static_cast<off_t>(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return io_error(path, "write", errno);
    done += static_cast<std::size_t>(w);
  }
  return std::nullopt;
}

}  // namespace

std::size_t SlotFile::slot_offset(std::size_t capacity, int i) {
  const std::size_t stride = (kSlotHeaderBytes + capacity + kPage - 1) / kPage * kPage;
  return kHeaderBytes + static_cast<std::size_t>(i) * stride;
}

std::size_t SlotFile::file_bytes(std::size_t capacity) { return slot_offset(capacity, 2); }

Result<std::string> SlotFile::read(const std::string& path) {
  auto bytes = read_whole_file(path);
  if (!bytes) return bytes.error();
  const auto* base = reinterpret_cast<const unsigned char*>(bytes->data());
  auto capacity = capacity_of(base, bytes->size());
  if (!capacity) return Error{ErrorReason::decode, path + ": not a slot file"};
  const Newest n = newest_of(base, *capacity);
  if (n.slot < 0) return Error{ErrorReason::decode, path + ": no slot holds a complete save"};
  const unsigned char* slot = base + slot_offset(*capacity, n.slot);
  return std::string(reinterpret_cast<const char*>(slot + kSlotHeaderBytes), load_u64(slot + kLength));
}

Result<SlotFile> SlotFile::open(const std::string& path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    // Whatever keeps it from being ours (a symlink, a FIFO, a hard link,
    // another user's file) a fresh file replaces; a path the daemon cannot
    // write at all fails in that write, with its reason.
    auto file = open_own_file(path, O_RDWR);
    // Larger than any slot file: not read into memory at all.
    if (file && file->size <= file_bytes(kMaxPayloadBytes * 2)) {
      std::string bytes(file->size, '\0');
      const ssize_t n = ::pread(file->fd.get(), bytes.data(), bytes.size(), 0);
      if (n < 0) return io_error(path, "read", errno);
      bytes.resize(static_cast<std::size_t>(n));
      const auto* base = reinterpret_cast<const unsigned char*>(bytes.data());
      if (auto capacity = capacity_of(base, bytes.size())) {
        const Newest newest = newest_of(base, *capacity);
        return SlotFile(path, std::move(file->fd), *capacity, newest.slot, newest.generation);
      }
    }
    // Absent, not a slot file or not ours: a fresh one takes its place (the
    // rename replaces the entry itself, never what it points or links to).
    if (attempt == 0) {
      if (auto err = write_file_atomically(path, image(kInitialCapacity, std::nullopt, 0), Durability::power_loss)) {
        return *err;
      }
    }
  }
  return Error{ErrorReason::io, path + ": open: the fresh slot file does not read back"};
}

SlotFile::SlotFile(std::string path, UniqueFd fd, std::size_t capacity, int newest_slot, std::uint64_t generation)
    : path_(std::move(path)),
      fd_(std::move(fd)),
      capacity_(capacity),
      newest_slot_(newest_slot),
      generation_(generation) {}

std::optional<Error> SlotFile::rebuild(std::size_t capacity, std::string_view content, std::uint64_t generation) {
  if (auto err = write_file_atomically(path_, image(capacity, content, generation), Durability::power_loss)) return err;
  auto fresh = open(path_);
  if (!fresh) return fresh.error();
  fd_ = std::move(fresh->fd_);
  capacity_ = fresh->capacity_;
  newest_slot_ = fresh->newest_slot_;
  generation_ = fresh->generation_;
  return std::nullopt;
}

std::optional<Error> SlotFile::save(std::string_view content) {
  std::lock_guard lock(*mu_);
  rebuilt_.clear();
  // The newest slot is remembered from the file as open() read it and from
  // this process's own saves: a slot cut short by a kill is never the
  // newest, so the next save goes to the other slot and keeps the one
  // complete save there is.
  const std::uint64_t generation = generation_ + 1;
  if (content.size() > kMaxPayloadBytes) {
    return Error{ErrorReason::full, path_ + ": a save of " + std::to_string(content.size()) +
                                        " bytes exceeds the slot file's limit of " + std::to_string(kMaxPayloadBytes)};
  }
  if (content.size() > capacity_) {
    const std::size_t capacity = (kSlotHeaderBytes + 2 * content.size() + kPage - 1) / kPage * kPage - kSlotHeaderBytes;
    return rebuild(capacity, content, generation);
  }
  // One fstat per save: what was done to the file since the last one
  // (truncated, renamed over, unlinked, linked elsewhere) is found before
  // writing through a descriptor that no longer names the state file.
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) return io_error(path_, "stat", errno);
  if (auto why = damage(st, capacity_)) {
    if (auto err = rebuild(capacity_, content, generation)) return err;
    rebuilt_ = *why;
    return std::nullopt;
  }
  const int slot = newest_slot_ == 0 ? 1 : 0;
  // Slot 0 is written with the header page before it: one write either way.
  const std::size_t from = slot == 0 ? 0 : slot_offset(capacity_, 1);
  const std::size_t to = slot == 0 ? slot_offset(capacity_, 1) : file_bytes(capacity_);
  const std::size_t length = kSlotHeaderBytes + content.size();
  const std::size_t at = slot_offset(capacity_, slot) - from;
  buffer_.resize(to - from);
  auto* base = reinterpret_cast<unsigned char*>(buffer_.data());
  if (slot == 0) write_header(base, capacity_);
  write_slot(base + at, content, generation);
  if (auto err = pwrite_all(fd_.get(), path_, base, at + length, from)) return err;
  newest_slot_ = slot;
  generation_ = generation;
  return std::nullopt;
}

}  // namespace nvmond
