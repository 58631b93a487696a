#include "http/response.hpp"

#include <fmt/core.h>

namespace nvmond::http {

Response Response::text(int status, std::string body) {
  Response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  r.body = std::move(body);
  return r;
}

std::size_t Response::body_size() const {
  std::size_t size = body.size();
  for (const auto& p : pieces) size += p.text->size();
  return size;
}

std::string Response::whole_body() const {
  std::string out;
  out.reserve(body_size());
  out += body;
  for (const auto& p : pieces) out += *p.text;
  return out;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string serialize_head(const Response& r, std::size_t body_size, int minor_version, bool keep_alive) {
  std::string out = fmt::format("HTTP/1.{} {} {}\r\n", minor_version == 0 ? 0 : 1, r.status, reason_phrase(r.status));
  for (const auto& [name, value] : r.headers) out += fmt::format("{}: {}\r\n", name, value);
  out += fmt::format("Content-Length: {}\r\n", body_size);
  if (!keep_alive) {
    out += "Connection: close\r\n";
  } else if (minor_version == 0) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  return out;
}

}  // namespace nvmond::http
