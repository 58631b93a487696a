#pragma once
// Incremental parser of an HTTP/1.x request head (request line + header
// fields, RFC 9112). Bytes are fed as they arrive; the parser never buffers
// more than `max_head_bytes`, so a client cannot make the server hold an
// unbounded header. Bodies are not parsed: the endpoint serves GET/HEAD only,
// and a request that announces a body is answered and its connection closed.
// Not thread-safe; one parser per connection.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvmond::http {

struct Request {
  std::string method;
  std::string target;     // origin-form, e.g. "/metrics?x=1"
  int minor_version = 1;  // HTTP/1.<minor>
  // Field names lower-cased, values with surrounding whitespace trimmed.
  std::vector<std::pair<std::string, std::string>> headers;

  // First value of a field (names compared lower-case), if present.
  std::optional<std::string_view> header(std::string_view lower_name) const;
  // The path part of the target, without the query.
  std::string_view path() const;
  // HTTP/1.1 keeps the connection unless "Connection: close"; 1.0 only with
  // "Connection: keep-alive".
  bool keep_alive() const;
  // Content-Length > 0 or any Transfer-Encoding.
  bool has_body() const;
};

class RequestParser {
 public:
  enum class State { incomplete, complete, error };

  struct Limits {
    std::size_t max_head_bytes = 8192;  // request line + all fields + CRLFs
    std::size_t max_fields = 100;
  };

  explicit RequestParser(Limits limits) : limits_(limits) {}
  RequestParser() : RequestParser(Limits{}) {}

  // Consumes bytes up to the end of the head; returns how many were used
  // (the rest belongs to what follows the head). Once complete or in error,
  // consumes nothing more until reset().
  std::size_t feed(std::string_view bytes);

  State state() const { return state_; }
  // Valid when complete.
  const Request& request() const { return request_; }
  // When in error: the status to answer with (400, 431, 505) and why.
  int error_status() const { return error_status_; }
  const std::string& error_reason() const { return error_reason_; }
  // True once any byte of the current request has arrived (an idle
  // keep-alive connection has none).
  bool started() const { return received_ > 0; }

  void reset();

 private:
  bool take_line(std::string_view line);
  bool parse_request_line(std::string_view line);
  bool parse_field(std::string_view line);
  bool fail(int status, std::string reason);

  Limits limits_;
  State state_ = State::incomplete;
  std::string line_;  // the current, unterminated line
  std::size_t received_ = 0;
  bool seen_request_line_ = false;
  Request request_;
  int error_status_ = 0;
  std::string error_reason_;
};

}  // namespace nvmond::http
