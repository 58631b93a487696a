#pragma once
// A small state saved often and cheaply: a file mapped MAP_SHARED with two
// slots, each holding one save, its generation and a checksum. A save copies
// into the slot that does not hold the newest save, then publishes it by
// writing its checksum last; a load takes the newest slot whose checksum
// holds. A save makes no system call: the process's stores land in the page
// cache, which outlives the process, so a kill -9 at any instant leaves the
// newest complete save readable (one cut short fails its checksum and the
// other slot is read). What reaches the disk is up to the kernel's writeback
// (or an msync, fsync or syncfs of the caller's): a crash of the host may
// lose recent saves, or both slots.
//
// Layout (native byte order; the file belongs to this host):
//   [0, kHeaderBytes)           magic "NVMSLOT1", u64 slot capacity
//   slot i at slot_offset(i)    u64 generation, u64 length, u64 checksum,
//                               u64 reserved, then `capacity` payload bytes
// Each slot starts on its own page. Generation 0 is an empty slot.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace nvmond {

class SlotFile {
 public:
  static constexpr std::size_t kHeaderBytes = 4096;
  static constexpr std::size_t kSlotHeaderBytes = 32;
  // A save larger than this is refused (the file would be rebuilt for
  // every save larger than the last).
  static constexpr std::size_t kMaxPayloadBytes = std::size_t{1} << 20;

  // The newest save in the slot file at `path`. Error absent when the file
  // does not exist, io when it is a symlink or not a regular file (see
  // read_whole_file), decode when it is not a slot file or no slot holds a
  // complete save.
  static Result<std::string> read(const std::string& path);

  // Maps the slot file at `path` for saving, creating it (atomically, fsynced)
  // when absent or not a slot file (a symlink, a FIFO or any other
  // non-regular entry included: it is replaced, never followed or waited
  // on); its saves are kept. Error io with the
  // path and the step that failed.
  static Result<SlotFile> open(const std::string& path);

  SlotFile(SlotFile&& o) noexcept;
  SlotFile& operator=(SlotFile&& o) noexcept;
  SlotFile(const SlotFile&) = delete;
  SlotFile& operator=(const SlotFile&) = delete;
  ~SlotFile();

  // Writes `content` as the newest save. A content larger than the slots
  // rebuilds the file with larger ones (temporary file and rename: the
  // newest save is kept until the new file is in place); above
  // kMaxPayloadBytes it is Error{ErrorReason::full, "<path>: ..."} and the
  // previous save stays the newest. Safe to call from several threads.
  std::optional<Error> save(std::string_view content);

  const std::string& path() const { return path_; }
  std::size_t capacity() const { return capacity_; }
  // Where slot `i` (0 or 1) begins in a file of slots of `capacity` bytes.
  static std::size_t slot_offset(std::size_t capacity, int i);
  static std::size_t file_bytes(std::size_t capacity);

 private:
  SlotFile(std::string path, unsigned char* map, std::size_t capacity);
  void unmap();
  std::string path_;
  unsigned char* map_ = nullptr;
  std::size_t capacity_ = 0;
  std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();
};

}  // namespace nvmond
