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

}  // namespace nvmond::http
