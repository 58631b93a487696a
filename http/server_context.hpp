#pragma once
// What every connection of one server shares. Lives on the server's thread;
// only that thread touches it (the auth pool posts its results back).
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

#include "http/auth_limiter.hpp"
#include "http/connection_table.hpp"
#include "http/gzip.hpp"
#include "http/http_metrics.hpp"
#include "http/request_parser.hpp"
#include "http/response.hpp"
#include "http/security.hpp"

namespace nvmond::http {

// The endpoint's limits (docs/operations.md, "The metrics endpoint").
struct Limits {
  RequestParser::Limits head;  // 8 KiB of request line and fields, 100 fields
  // From a connection's accept (or a request's first byte) to the end of
  // the request head, the TLS handshake included.
  std::chrono::steady_clock::duration header_timeout = std::chrono::seconds(10);
  // A keep-alive connection's wait for its next request.
  std::chrono::steady_clock::duration idle_timeout = std::chrono::seconds(60);
  // Writing one response (a client that stops reading).
  std::chrono::steady_clock::duration write_timeout = std::chrono::seconds(30);
  std::size_t max_connections = 128;
  // bcrypt checks queued at once; more get 503 rather than a longer queue.
  std::size_t max_pending_auth = 16;
  // Of those, kept for clients with no recent failed check, so a scraper's
  // first check is not queued out by addresses that keep guessing.
  std::size_t pending_auth_for_clean_clients = 4;
  // Failed password checks each client address may cost (auth_limiter.hpp).
  AuthLimiter::Policy auth_failures;
  // Responses smaller than this are not worth compressing.
  std::size_t min_gzip_bytes = 1024;
};

// Answers one request. Called on the server's thread: must not block.
using Handler = std::function<Response(const Request&)>;

struct ServerContext {
  Limits limits;
  Handler handler;
  HttpMetrics& metrics;
  ConnectionTable table;
  std::shared_ptr<const Security> security;
  boost::asio::thread_pool& auth_pool;
  AuthLimiter auth_limiter;
  std::size_t pending_auth = 0;
  // The last response with pieces: its compressed segments (Response::pieces).
  SegmentedGzip gzip;

  // Room in the bcrypt queue for one more check from a client that is
  // `clean` (auth_limiter.hpp) or not.
  bool auth_slot_free(bool clean) const {
    std::size_t cap = limits.max_pending_auth;
    if (!clean) cap -= std::min(cap, limits.pending_auth_for_clean_clients);
    return pending_auth < cap;
  }
};

}  // namespace nvmond::http
