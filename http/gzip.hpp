#pragma once
// Response compression: Accept-Encoding negotiation and gzip (zlib).
#include <optional>
#include <string>
#include <string_view>

namespace nvmond::http {

// True if an Accept-Encoding value accepts gzip: "gzip" or "*" with a
// non-zero q (RFC 9110 12.5.3). "gzip;q=0" refuses it.
bool accepts_gzip(std::string_view accept_encoding);

// A complete gzip member (RFC 1952). Level 1: a scrape's text compresses
// ~10x even at the fastest level, and the CPU goes into the scrape latency.
// nullopt when zlib cannot (no memory for its state): the caller sends the
// body as it is rather than failing the scrape.
std::optional<std::string> gzip_compress(std::string_view data, int level = 1);

}  // namespace nvmond::http
