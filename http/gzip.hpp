#pragma once
// Response compression: Accept-Encoding negotiation and gzip (zlib).
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvmond::http {

// True if an Accept-Encoding value accepts gzip: "gzip" or "*" with a
// non-zero q (RFC 9110 12.5.3). "gzip;q=0" refuses it.
bool accepts_gzip(std::string_view accept_encoding);

// A complete gzip member (RFC 1952). Level 1: a scrape's text compresses
// ~10x even at the fastest level, and the CPU goes into the scrape latency.
// nullopt when zlib cannot (no memory for its state): the caller sends the
// body as it is rather than failing the scrape.
std::optional<std::string> gzip_compress(std::string_view data, int level = 1);

// gzip of a body cut into segments, keeping each segment's compressed form
// for the next call: a segment whose bytes equal the segment at the same
// place last time is not compressed again. Between two scrapes most metric
// families do not change (86 % of the bytes at 64 simulated drives 15 s
// apart), and compressing every byte was most of a gzip scrape's time.
// A segment whose parts carry fingerprints (BodyPiece) is known by them:
// its text is neither kept nor compared, only parts without one are.
//
// Each segment is a raw deflate stream of its own ended by a sync flush
// (byte-aligned, not final), so the segments concatenate into one valid
// deflate stream; one empty final block ends it, and the CRC-32 of the whole
// is combined from the segments' own. The output is one ordinary gzip
// member: any gzip reader takes it, not only those that read several.
// Small bodies are compressed whole, and neighbouring segments are joined
// up to `min_segment` bytes: a deflate stream needs some text before it
// compresses well (a one-drive scrape's families are a few hundred bytes).
// Not thread-safe: one per server thread.
class SegmentedGzip {
 public:
  struct Sizes {
    std::size_t min_body = 64 * 1024;
    std::size_t min_segment = 4 * 1024;
  };
  SegmentedGzip() : SegmentedGzip(Sizes{}) {}
  explicit SegmentedGzip(Sizes sizes);
  ~SegmentedGzip();
  SegmentedGzip(const SegmentedGzip&) = delete;
  SegmentedGzip& operator=(const SegmentedGzip&) = delete;

  // A part of a body: its text and, if known, its fingerprint (0: none).
  struct Part {
    std::string_view text;
    std::uint64_t fingerprint = 0;
  };
  // The body is the parts' text in order; each part is a segment (joined
  // with its neighbours while smaller than min_segment). nullopt as
  // gzip_compress.
  std::optional<std::string> compress(std::span<const Part> parts);
  // `ends`: increasing offsets into `body` where a segment ends; bytes past
  // the last one form one more segment. No fingerprints.
  std::optional<std::string> compress(std::string_view body, const std::vector<std::size_t>& ends);
  // Segments the last call compressed (rather than reused): for tests.
  std::size_t last_compressed() const { return last_compressed_; }
  // Bytes the segment cache holds (capacity, not size): for tests.
  std::size_t cached_bytes() const;

 private:
  struct Segment {
    std::vector<std::uint64_t> fingerprints;  // of its parts
    std::string text;                         // only where a part has no fingerprint: to compare
    std::size_t size = 0;
    std::string deflated;
    uLong crc = 0;
    bool holds(std::span<const Part> parts) const;
  };
  bool deflate_segment(std::span<const Part> parts, Segment& into);
  Sizes sizes_;
  z_stream zs_{};
  bool ready_ = false;
  std::vector<Segment> cache_;
  std::string scratch_;  // one segment's worst-case deflate output
  std::size_t last_compressed_ = 0;
};

}  // namespace nvmond::http
