#pragma once
// An HTTP response as plain data, and its serialised head.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvmond::http {

// Body text a response shares with whoever made it (a cache of rendered
// text) instead of copying it; the connection holds it until it is sent.
// A non-zero fingerprint names the bytes: pieces with the same fingerprint
// hold the same text (the maker promises it), so SegmentedGzip knows a
// piece it compressed before without reading it. 0: not known.
struct BodyPiece {
  std::shared_ptr<const std::string> text;
  std::uint64_t fingerprint = 0;
};

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // besides the ones head() adds
  std::string body;
  bool close = false;  // end the connection after this response
  // The rest of the body, after `body`: sent from where it lies, and each
  // piece compressed apart and kept for the next response (SegmentedGzip),
  // for bodies that change only in places between requests.
  std::vector<BodyPiece> pieces;

  static Response text(int status, std::string body);
  // Bytes of `body` and every piece.
  std::size_t body_size() const;
  // `body` and every piece, as one string (for tests and small bodies).
  std::string whole_body() const;
};

std::string_view reason_phrase(int status);

// Status line, `headers`, Content-Length, Connection (and Date-free: scrapers
// don't need it). `body_size` is the size the body has, even for HEAD.
std::string serialize_head(const Response& r, std::size_t body_size, int minor_version, bool keep_alive);

}  // namespace nvmond::http
