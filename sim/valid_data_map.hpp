#pragma once
// Which part of a simulated drive's LBA space holds valid data: what the
// drive must keep when its garbage collection moves a block. The LBA space is
// cut into at most kChunks equal chunks, each with the share of its bytes
// that is valid, so the map's size does not grow with the drive (8 KiB for a
// 30 TB drive as for a 1 GB one) and a checkpoint stays small.
//
// Within a chunk the valid bytes are assumed spread evenly. Hence:
// - an extent written (one command at a known place, or a sequential stream)
//   makes valid the part of each chunk it covers that was not valid yet;
// - random writes spread over a range raise each chunk's valid share as
//   uniform random writes would: the expected unwritten share falls by
//   exp(-written / range), i.e. v' = 1 - (1 - v) exp(-written / range);
// - writing the same partial chunk twice counts the second write as new
//   data (the map does not know where in the chunk the first one landed).
// A sequential stream is followed exactly at chunk boundaries: the part of
// the chunk it is in is held aside until the stream leaves the chunk or
// breaks, so a stream of small commands fills a chunk as one write would.
//
// Not thread-safe: the drive model owns it under its lock.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace nvmond {

// A byte range of the LBA space, [lo, hi).
struct LbaRange {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::uint64_t bytes() const { return hi > lo ? hi - lo : 0; }
};

class ValidDataMap {
 public:
  static constexpr std::size_t kChunks = 1024;

  explicit ValidDataMap(std::uint64_t capacity_bytes);

  // Host data written at [offset, offset + bytes): a continuation of the
  // previous extent is one stream with it.
  void write_extent(std::uint64_t offset, std::uint64_t bytes);
  // `bytes` written by commands spread uniformly at random over `range`.
  void write_spread(LbaRange range, double bytes);
  // Deallocate (TRIM) of `range`: its data is no longer valid.
  void deallocate(LbaRange range);
  void clear();  // Format, sanitize: nothing valid
  void fill();   // every LBA valid

  double valid_bytes() const;                // the whole drive
  double valid_share(LbaRange range) const;  // of that range, 0..1
  std::uint64_t capacity_bytes() const { return capacity_; }
  // Heap and object bytes this map takes, whatever the capacity.
  std::size_t memory_bytes() const;

  // Persistence: the chunks' valid shares run-length encoded (count, share),
  // and the stream held aside, if any. restore() refuses (false) runs that
  // do not cover exactly this map's chunks or shares outside 0..1.
  std::vector<std::pair<std::size_t, double>> runs() const;
  std::optional<LbaRange> open_stream() const;
  bool restore(const std::vector<std::pair<std::size_t, double>>& runs, std::optional<LbaRange> stream);

 private:
  std::size_t chunk_of(std::uint64_t offset) const;
  LbaRange chunk(std::size_t i) const;
  // The part `covered` (0..1) of chunk i that was written becomes valid.
  void cover(std::size_t i, double covered);
  void close_stream();
  void recount();
  double share(std::size_t i) const;  // chunk i's valid share, unapplied spread included
  void settle();                      // applies unapplied_ to every chunk

  std::uint64_t capacity_;
  std::uint64_t chunk_bytes_;
  std::vector<double> valid_;  // share of each chunk, 0..1
  double valid_bytes_ = 0;     // sum over the chunks, without the open stream
  // Random writes over the whole drive not yet applied: every chunk's
  // unwritten share is still to be multiplied by it.
  double unapplied_ = 1.0;
  bool streaming_ = false;  // stream_ is the open stream's part of one chunk
  LbaRange stream_;
};

}  // namespace nvmond
