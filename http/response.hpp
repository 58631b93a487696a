#pragma once
// An HTTP response as plain data, and its serialised head.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvmond::http {

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // besides the ones head() adds
  std::string body;
  bool close = false;  // end the connection after this response
  // Offsets where the body may be cut into segments that are compressed
  // apart and kept for the next response (SegmentedGzip): for bodies that
  // change only in places between requests. Empty: compressed whole.
  std::vector<std::size_t> segment_ends;

  static Response text(int status, std::string body);
};

std::string_view reason_phrase(int status);

// Status line, `headers`, Content-Length, Connection (and Date-free: scrapers
// don't need it). `body_size` is the size the body has, even for HEAD.
std::string serialize_head(const Response& r, std::size_t body_size, int minor_version, bool keep_alive);

}  // namespace nvmond::http
