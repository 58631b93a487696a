#include "http/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "http/header_text.hpp"

namespace nvmond::http {
namespace {

// q of one "coding;q=0.5" element: 1 when absent, 0 when malformed.
double quality(std::string_view params) {
  while (!params.empty()) {
    auto semi = params.find(';');
    auto p = trim_ows(params.substr(0, semi));
    if (p.size() > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
      double q = 0;
      auto v = p.substr(2);
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), q);
      return ec == std::errc{} && end == v.data() + v.size() ? q : 0;
    }
    if (semi == std::string_view::npos) break;
    params.remove_prefix(semi + 1);
  }
  return 1;
}

}  // namespace

bool accepts_gzip(std::string_view value) {
  std::optional<double> gzip_q, star_q;
  while (!value.empty()) {
    auto comma = value.find(',');
    auto element = trim_ows(value.substr(0, comma));
    auto semi = element.find(';');
    auto coding = trim_ows(element.substr(0, semi));
    double q = semi == std::string_view::npos ? 1 : quality(element.substr(semi + 1));
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) gzip_q = q;
    if (coding == "*") star_q = q;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  if (gzip_q) return *gzip_q > 0;
  return star_q && *star_q > 0;
}

std::optional<std::string> gzip_compress(std::string_view data, int level) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return std::nullopt;
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

SegmentedGzip::SegmentedGzip(Sizes sizes) : sizes_(sizes) {
  // windowBits -15: raw deflate, the gzip framing is written here.
  ready_ = deflateInit2(&zs_, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

SegmentedGzip::~SegmentedGzip() {
  if (ready_) deflateEnd(&zs_);
}

std::size_t SegmentedGzip::cached_bytes() const {
  std::size_t bytes = 0;
  for (const auto& s : cache_) bytes += s.deflated.capacity() + s.text.capacity();
  return bytes;
}

bool SegmentedGzip::Segment::holds(std::span<const Part> parts) const {
  if (parts.size() != fingerprints.size()) return false;
  std::size_t bytes = 0, at = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].fingerprint != fingerprints[i]) return false;
    bytes += parts[i].text.size();
  }
  if (bytes != size) return false;
  if (text.empty()) return true;  // every part is known by its fingerprint
  for (const auto& p : parts) {
    if (p.fingerprint == 0 && text.compare(at, p.text.size(), p.text) != 0) return false;
    at += p.text.size();
  }
  return true;
}

bool SegmentedGzip::deflate_segment(std::span<const Part> parts, Segment& into) {
  // A fresh stream per segment: no back-reference may reach into another
  // segment, which the next scrape may have replaced.
  if (deflateReset(&zs_) != Z_OK) return false;
  std::size_t bytes = 0;
  bool unknown = false;
  for (const auto& p : parts) {
    bytes += p.text.size();
    unknown = unknown || p.fingerprint == 0;
  }
  // Deflated into scratch sized for the worst case, kept at its own size: a
  // cached segment holding deflateBound's capacity held about as many bytes
  // as its text (some 2.7 MB at 256 drives) for the 6 % that it uses.
  // The sync flush adds an empty stored block (5 bytes) to deflateBound's.
  scratch_.resize(deflateBound(&zs_, static_cast<uLong>(bytes)) + 16);
  zs_.next_out = reinterpret_cast<Bytef*>(scratch_.data());
  zs_.avail_out = static_cast<uInt>(scratch_.size());
  into.fingerprints.clear();
  into.text.clear();
  into.crc = crc32(0L, Z_NULL, 0);
  for (const auto& p : parts) {
    into.fingerprints.push_back(p.fingerprint);
    // Text is kept only to compare a part without a fingerprint next time.
    if (unknown) into.text += p.text;
    if (p.text.empty()) continue;  // deflate refuses a call that cannot progress
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.text.data()));
    zs_.avail_in = static_cast<uInt>(p.text.size());
    if (deflate(&zs_, Z_NO_FLUSH) != Z_OK || zs_.avail_in != 0) return false;
    into.crc = crc32(into.crc, reinterpret_cast<const Bytef*>(p.text.data()), static_cast<uInt>(p.text.size()));
  }
  if (deflate(&zs_, Z_SYNC_FLUSH) != Z_OK || zs_.avail_out == 0) return false;
  into.deflated = std::string(scratch_.data(), zs_.total_out);
  into.size = bytes;
  return true;
}

std::optional<std::string> SegmentedGzip::compress(std::string_view body, const std::vector<std::size_t>& ends) {
  std::vector<Part> parts;
  parts.reserve(ends.size() + 1);
  std::size_t from = 0;
  for (std::size_t end : ends) {
    end = std::min(std::max(end, from), body.size());
    parts.push_back({body.substr(from, end - from)});
    from = end;
  }
  if (from < body.size()) parts.push_back({body.substr(from)});
  return compress(parts);
}

std::optional<std::string> SegmentedGzip::compress(std::span<const Part> parts) {
  std::size_t body_size = 0;
  for (const auto& p : parts) body_size += p.text.size();
  if (body_size < sizes_.min_body) {
    last_compressed_ = 1;
    std::string body;
    body.reserve(body_size);
    for (const auto& p : parts) body += p.text;
    return gzip_compress(body);
  }
  if (!ready_) return std::nullopt;
  // Segments: runs of parts of at least min_segment bytes (the last may be
  // smaller).
  std::vector<std::span<const Part>> segments;
  std::size_t first = 0, bytes = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    bytes += parts[i].text.size();
    if (bytes >= sizes_.min_segment || i + 1 == parts.size()) {
      segments.push_back(parts.subspan(first, i + 1 - first));
      first = i + 1;
      bytes = 0;
    }
  }
  cache_.resize(segments.size());
  last_compressed_ = 0;
  std::size_t deflated = 0;
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    Segment& seg = cache_[i];
    if (!seg.holds(segments[i])) {
      if (!deflate_segment(segments[i], seg)) {
        cache_.clear();
        return std::nullopt;
      }
      ++last_compressed_;
    }
    crc = crc32_combine(crc, seg.crc, static_cast<z_off_t>(seg.size));
    deflated += seg.deflated.size();
  }
  // RFC 1952: magic, CM=deflate, no flags, no mtime, XFL 0, OS unix.
  static constexpr unsigned char kHeader[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  // BFINAL=1, BTYPE=01 (fixed Huffman) and the end-of-block code: an empty
  // final block.
  static constexpr unsigned char kFinalBlock[] = {0x03, 0x00};
  std::string out;
  out.reserve(sizeof kHeader + deflated + sizeof kFinalBlock + 8);
  out.append(reinterpret_cast<const char*>(kHeader), sizeof kHeader);
  for (const auto& seg : cache_) out += seg.deflated;
  out.append(reinterpret_cast<const char*>(kFinalBlock), sizeof kFinalBlock);
  auto le32 = [&out](uLong v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  le32(crc);
  le32(static_cast<uLong>(body_size & 0xffffffffu));
  return out;
}

}  // namespace nvmond::http
