#pragma once
// A small state saved often and cheaply: a file with two slots, each holding
// one save, its generation and a checksum. A save writes the slot that does
// not hold the newest save with one pwrite, its checksum before its payload
// (a write cut short leaves a slot whose checksum fails); a load takes the
// newest slot whose checksum holds. The write lands in the page cache, which
// outlives the process, so a kill -9 at any instant leaves the newest
// complete save readable (one cut short fails its checksum and the other
// slot is read). What reaches the disk is up to the kernel's writeback (or
// an fsync or syncfs of the caller's): a crash of the host may lose recent
// saves, or both slots.
//
// The file is read and written through a descriptor, never mapped: a file
// truncated under a mapping would kill the process with SIGBUS at its next
// save. It must be one the daemon owns (core/atomic_file.hpp open_own_file:
// regular, one link, this user's); anything else at the path is replaced by
// a fresh file, never written through. Each save checks its descriptor
// first (one fstat): a file truncated, replaced or linked elsewhere since
// the last save is rebuilt from the save at hand (rebuilt() says why).
//
// Layout (native byte order; the file belongs to this host):
//   [0, kHeaderBytes)           magic "NVMSLOT1", u64 slot capacity
//   slot i at slot_offset(i)    u64 generation, u64 length, u64 checksum,
//                               u64 reserved, then `capacity` payload bytes
// Each slot starts on its own page. Generation 0 is an empty slot. A save
// into slot 0 writes the header page with it (they are contiguous), so a
// file whose header was lost heals within two saves.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "core/unique_fd.hpp"

namespace nvmond {

class SlotFile {
 public:
  static constexpr std::size_t kHeaderBytes = 4096;
  static constexpr std::size_t kSlotHeaderBytes = 32;
  // A save larger than this is refused (the file would be rebuilt for
  // every save larger than the last).
  static constexpr std::size_t kMaxPayloadBytes = std::size_t{1} << 20;

  // The newest save in the slot file at `path`. Error absent when the file
  // does not exist, io when it is not a file the daemon owns (a symlink, not
  // a regular file, more than one link, another user's: see open_own_file),
  // decode when it is not a slot file or no slot holds a complete save.
  static Result<std::string> read(const std::string& path);

  // Opens the slot file at `path` for saving, creating it (atomically,
  // fsynced) when absent, not a slot file or not a file the daemon owns (a
  // symlink, a FIFO, a hard link to a file elsewhere: the entry is replaced,
  // never followed, waited on or written through); its saves are kept.
  // Error io with the path and the step that failed.
  static Result<SlotFile> open(const std::string& path);

  SlotFile(SlotFile&& o) noexcept = default;
  SlotFile& operator=(SlotFile&& o) noexcept = default;
  SlotFile(const SlotFile&) = delete;
  SlotFile& operator=(const SlotFile&) = delete;

  // Writes `content` as the newest save. A content larger than the slots
  // rebuilds the file with larger ones (temporary file and rename: the
  // newest save is kept until the new file is in place); above
  // kMaxPayloadBytes it is Error{ErrorReason::full, "<path>: ..."} and the
  // previous save stays the newest. A file found truncated, replaced or
  // linked elsewhere is rebuilt the same way, holding `content`. Safe to
  // call from several threads.
  std::optional<Error> save(std::string_view content);
  // Why the last save() rebuilt a damaged file ("truncated to 0 bytes");
  // empty when it did not.
  const std::string& rebuilt() const { return rebuilt_; }

  const std::string& path() const { return path_; }
  std::size_t capacity() const { return capacity_; }
  // Where slot `i` (0 or 1) begins in a file of slots of `capacity` bytes.
  static std::size_t slot_offset(std::size_t capacity, int i);
  static std::size_t file_bytes(std::size_t capacity);

 private:
  SlotFile(std::string path, UniqueFd fd, std::size_t capacity, int newest_slot, std::uint64_t generation);
  // Replaces the file at path_ with a fresh one of `capacity` holding
  // `content` as save `generation`, and takes its descriptor.
  std::optional<Error> rebuild(std::size_t capacity, std::string_view content, std::uint64_t generation);
  std::string path_;
  UniqueFd fd_;
  std::size_t capacity_ = 0;
  int newest_slot_ = -1;          // -1: no slot holds a complete save
  std::uint64_t generation_ = 0;  // of the newest save
  std::string buffer_;            // a save's bytes, kept for the next one
  std::string rebuilt_;
  std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();
};

}  // namespace nvmond
