#include "core/slot_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
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

std::uint64_t load_u64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store_u64(unsigned char* p, std::uint64_t v) { std::memcpy(p, &v, sizeof v); }

// The checksum word is what publishes a slot: its stores are ordered after
// (and, when cleared, before) the payload's by release semantics, so the
// compiler cannot move a payload store past it.
void publish_u64(unsigned char* p, std::uint64_t v) {
  std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(p)).store(v, std::memory_order_release);
}

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

// Writes `content` into `slot` as save `generation`. The checksum is
// cleared first and written last, so a slot cut short never passes it.
void write_slot(unsigned char* slot, std::string_view content, std::uint64_t generation) {
  publish_u64(slot + kChecksum, 0);
  store_u64(slot + kGeneration, generation);
  store_u64(slot + kLength, content.size());
  std::memcpy(slot + SlotFile::kSlotHeaderBytes, content.data(), content.size());
  publish_u64(slot + kChecksum, checksum(generation, content.size(), slot + SlotFile::kSlotHeaderBytes));
}

struct Newest {
  int slot = -1;  // -1: no slot holds a complete save
  std::uint64_t generation = 0;
};

// The header's slot capacity when `bytes` of file hold a well-formed slot file.
std::optional<std::size_t> capacity_of(const unsigned char* base, std::size_t bytes) {
  if (bytes < kPage || std::memcmp(base, kMagic, sizeof kMagic) != 0) return std::nullopt;
  const std::uint64_t capacity = load_u64(base + 8);
  if (capacity == 0 || capacity > SlotFile::kMaxPayloadBytes * 2 ||
      SlotFile::file_bytes(capacity) != bytes) {
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
  std::memcpy(base, kMagic, sizeof kMagic);
  store_u64(base + 8, capacity);
  if (content) write_slot(base + SlotFile::slot_offset(capacity, 0), *content, generation);
  return out;
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
    // Not following a symlink and not waiting on a FIFO: whatever is
    // planted there is not a slot file, and the fresh file renamed over it
    // replaces the entry itself, never what it points to.
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid() && errno != ENOENT && errno != ELOOP && errno != ENXIO) return io_error(path, "open", errno);
    if (fd.valid()) {
      struct stat st {};
      if (::fstat(fd.get(), &st) != 0) return io_error(path, "stat", errno);
      const auto bytes = static_cast<std::size_t>(st.st_size);
      if (S_ISREG(st.st_mode) && bytes >= kPage) {
        void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
        if (map == MAP_FAILED) return io_error(path, "mmap", errno);
        auto* base = static_cast<unsigned char*>(map);
        if (auto capacity = capacity_of(base, bytes)) return SlotFile(path, base, *capacity);
        ::munmap(map, bytes);
      }
    }
    // Absent or not a slot file: a fresh one takes its place.
    if (attempt == 0) {
      if (auto err = write_file_atomically(path, image(kInitialCapacity, std::nullopt, 0), Durability::power_loss)) {
        return *err;
      }
    }
  }
  return Error{ErrorReason::io, path + ": open: the fresh slot file does not read back"};
}

SlotFile::SlotFile(std::string path, unsigned char* map, std::size_t capacity)
    : path_(std::move(path)), map_(map), capacity_(capacity) {}

SlotFile::SlotFile(SlotFile&& o) noexcept
    : path_(std::move(o.path_)),
      map_(std::exchange(o.map_, nullptr)),
      capacity_(std::exchange(o.capacity_, 0)),
      mu_(std::move(o.mu_)) {}

SlotFile& SlotFile::operator=(SlotFile&& o) noexcept {
  if (this != &o) {
    unmap();
    path_ = std::move(o.path_);
    map_ = std::exchange(o.map_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
    mu_ = std::move(o.mu_);
  }
  return *this;
}

SlotFile::~SlotFile() { unmap(); }

void SlotFile::unmap() {
  if (map_) ::munmap(map_, file_bytes(capacity_));
  map_ = nullptr;
}

std::optional<Error> SlotFile::save(std::string_view content) {
  std::lock_guard lock(*mu_);
  // Read from the file, not remembered: a slot cut short by a kill is
  // never the newest, so the next save goes to the other slot and keeps
  // the one complete save there is.
  const Newest n = newest_of(map_, capacity_);
  const std::uint64_t generation = n.generation + 1;
  if (content.size() > capacity_) {
    if (content.size() > kMaxPayloadBytes) {
      return Error{ErrorReason::full, path_ + ": a save of " + std::to_string(content.size()) +
                                          " bytes exceeds the slot file's limit of " +
                                          std::to_string(kMaxPayloadBytes)};
    }
    const std::size_t capacity = (kSlotHeaderBytes + 2 * content.size() + kPage - 1) / kPage * kPage - kSlotHeaderBytes;
    if (auto err = write_file_atomically(path_, image(capacity, content, generation), Durability::power_loss)) return err;
    auto grown = open(path_);
    if (!grown) return grown.error();
    unmap();
    map_ = std::exchange(grown->map_, nullptr);
    capacity_ = grown->capacity_;
    return std::nullopt;
  }
  write_slot(map_ + slot_offset(capacity_, n.slot == 0 ? 1 : 0), content, generation);
  return std::nullopt;
}

}  // namespace nvmond
