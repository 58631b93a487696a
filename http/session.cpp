#include "http/session.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <optional>
#include <vector>

#include "core/log.hpp"
#include "http/gzip.hpp"

namespace nvmond::http {
namespace {

// What Go's servers answer to plain HTTP on a TLS port.
constexpr std::string_view kPlainToTls =
    "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
    "Client sent an HTTP request to an HTTPS server.\n";
// A TLS connection starts with a handshake record.
constexpr char kTlsHandshakeRecord = 0x16;
// After an error response, unread request bytes are drained this long so
// the client reads the response instead of a reset.
constexpr auto kLinger = std::chrono::milliseconds(500);

Response unauthorized() {
  auto r = Response::text(401, "Unauthorized\n");
  r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"nvmond\", charset=\"UTF-8\"");
  return r;
}

Response too_many_failures(std::chrono::seconds retry_after) {
  auto r = Response::text(429, "too many failed authentication attempts from this address\n");
  r.headers.emplace_back("Retry-After", std::to_string(retry_after.count()));
  return r;
}

}  // namespace

template <class Stream>
Session<Stream>::Session(Stream stream, ServerContext& ctx, std::shared_ptr<const void> keep)
    : keep_(std::move(keep)),
      stream_(std::move(stream)),
      ctx_(ctx),
      timer_(stream_.get_executor()),
      parser_(ctx.limits.head) {}

template <class Stream>
void Session<Stream>::start() {
  auto now = Clock::now();
  // A peer already gone has no address: it gets the unspecified one, and
  // its reads fail at once anyway.
  boost::system::error_code ec;
  peer_ = socket().remote_endpoint(ec).address();
  id_ = ctx_.table.add(this->weak_from_this(), now);
  ctx_.metrics.opened();
  head_deadline_ = now + ctx_.limits.header_timeout;
  if constexpr (kTls) {
    sniff_tls();
  } else {
    wait_request();
  }
}

template <class Stream>
void Session<Stream>::arm_timer(Clock::time_point deadline) {
  timer_.expires_at(deadline);
  timer_.async_wait([self = this->shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->closed_ || self->timer_.expiry() > Clock::now()) return;
    if (self->lingering_) return self->close();
    self->drop(DropReason::timeout);
  });
}

template <class Stream>
void Session<Stream>::sniff_tls() {
  if constexpr (kTls) {
    arm_timer(head_deadline_);
    stream_.next_layer().async_read_some(
        boost::asio::buffer(buf_),
        [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          if (ec || self->closed_) return self->close();
          self->handshake(n);
        });
  }
}

template <class Stream>
void Session<Stream>::handshake(std::size_t n) {
  if constexpr (kTls) {
    auto self = this->shared_from_this();
    if (buf_[0] != kTlsHandshakeRecord) {
      ctx_.metrics.dropped(DropReason::tls);
      log::debug("http: plain request on a TLS listener from {}", socket().remote_endpoint().address().to_string());
      close_after_ = true;
      head_ = kPlainToTls;
      boost::asio::async_write(stream_.next_layer(), boost::asio::buffer(head_),
                               [self](const boost::system::error_code& ec, std::size_t) {
                                 if (ec) return self->close();
                                 self->linger_close();
                               });
      return;
    }
    stream_.async_handshake(boost::asio::ssl::stream_base::server, boost::asio::buffer(buf_.data(), n),
                            [self](const boost::system::error_code& ec, std::size_t) {
                              if (self->closed_) return;
                              if (ec) {
                                log::debug("http: TLS handshake failed: {}", ec.message());
                                self->ctx_.metrics.dropped(DropReason::tls);
                                return self->close();
                              }
                              self->wait_request();
                            });
  } else {
    (void)n;
  }
}

template <class Stream>
void Session<Stream>::wait_request() {
  parser_.reset();
  auto now = Clock::now();
  ctx_.table.set_waiting(id_, true, now);
  arm_timer(first_ ? head_deadline_ : now + ctx_.limits.idle_timeout);
  if (!pending_.empty()) {
    std::string data = std::move(pending_);
    pending_.clear();
    consume(data);
    return;
  }
  read_more();
}

template <class Stream>
void Session<Stream>::read_more() {
  stream_.async_read_some(boost::asio::buffer(buf_),
                          [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                            if (ec || self->closed_) return self->close();
                            self->consume(std::string_view(self->buf_.data(), n));
                          });
}

template <class Stream>
void Session<Stream>::consume(std::string_view data) {
  bool was_started = parser_.started();
  auto used = parser_.feed(data);
  auto now = Clock::now();
  if (!first_ && !was_started && parser_.started()) {
    head_deadline_ = now + ctx_.limits.header_timeout;
    arm_timer(head_deadline_);
  }
  switch (parser_.state()) {
    case RequestParser::State::incomplete: return read_more();
    case RequestParser::State::error:
      ctx_.table.set_waiting(id_, false, now);
      request_start_ = now;
      return write(Response::text(parser_.error_status(), parser_.error_reason() + "\n"), true, false);
    case RequestParser::State::complete:
      pending_ = std::string(data.substr(used));
      ctx_.table.set_waiting(id_, false, now);
      request_start_ = now;
      return authorize();
  }
}

template <class Stream>
void Session<Stream>::authorize() {
  auto security = ctx_.security;
  const Request& req = parser_.request();
  if (!security->auth->enabled()) return answer(ctx_.handler(req));
  auto value = req.header("authorization");
  auto creds = value ? parse_basic_authorization(*value) : std::nullopt;
  if (!creds) return answer(unauthorized());
  if (auto known = security->auth->remembered(*creds)) return answer(*known ? ctx_.handler(req) : unauthorized());
  check_password(std::move(security), std::move(*creds));
}

// New credentials: a bcrypt check, if this client's allowance of failures
// and the queue let one start.
template <class Stream>
void Session<Stream>::check_password(std::shared_ptr<const Security> security, Credentials c) {
  auto now = Clock::now();
  auto& limiter = ctx_.auth_limiter;
  if (limiter.exhausted(peer_, now)) {
    ctx_.metrics.auth_refused(AuthRefusal::rate_limited);
    return answer(too_many_failures(limiter.retry_after(peer_, now)));
  }
  if (!ctx_.auth_slot_free(limiter.clean(peer_, now))) {
    ctx_.metrics.auth_refused(AuthRefusal::busy);
    return answer(Response::text(503, "too many authentication checks in progress\n"));
  }
  limiter.charge(peer_, now);
  ++ctx_.pending_auth;
  // bcrypt takes tens of milliseconds: on the pool, never on this thread.
  arm_timer(now + ctx_.limits.write_timeout);
  auto self = this->shared_from_this();
  boost::asio::post(ctx_.auth_pool, [self, security = std::move(security), c = std::move(c)] {
    bool ok = security->auth->verify(c);
    boost::asio::post(self->stream_.get_executor(), [self, ok] {
      --self->ctx_.pending_auth;
      self->ctx_.metrics.auth_checked(ok);
      if (ok) {
        self->ctx_.auth_limiter.refund(self->peer_, Clock::now());
      } else {
        self->ctx_.auth_limiter.failed(self->peer_, Clock::now());
      }
      if (self->closed_) return;
      self->answer(ok ? self->ctx_.handler(self->parser_.request()) : unauthorized());
    });
  });
}

template <class Stream>
void Session<Stream>::answer(Response r) {
  const Request& req = parser_.request();
  bool close = r.close || !req.keep_alive() || req.has_body();
  if (r.status == 200 && r.body_size() >= ctx_.limits.min_gzip_bytes) {
    r.headers.emplace_back("Vary", "Accept-Encoding");
    auto ae = req.header("accept-encoding");
    if (ae && accepts_gzip(*ae)) {
      std::optional<std::string> z;
      if (r.pieces.empty()) {
        z = gzip_compress(r.body);
      } else {
        std::vector<SegmentedGzip::Part> parts;
        parts.reserve(r.pieces.size() + 1);
        if (!r.body.empty()) parts.push_back({r.body});
        for (const auto& p : r.pieces) parts.push_back({*p.text, p.fingerprint});
        z = ctx_.gzip.compress(parts);
      }
      if (z) {
        r.body = std::move(*z);
        r.pieces.clear();
        r.headers.emplace_back("Content-Encoding", "gzip");
      }
    }
  }
  write(std::move(r), close, req.method == "HEAD");
}

template <class Stream>
void Session<Stream>::write(Response r, bool close, bool head_only) {
  close = close || r.close;
  // HEAD: the head a GET would get, Content-Length included, and no body.
  head_ = serialize_head(r, r.body_size(), parser_.request().minor_version, !close);
  body_ = head_only ? std::string() : std::move(r.body);
  // Shared text is sent from where it lies, not copied into body_; except
  // over TLS, which writes one record per buffer (a hundred tiny records for
  // a small exposition) and copies the text to encrypt it anyway.
  pieces_ = head_only ? std::vector<BodyPiece>() : std::move(r.pieces);
  if constexpr (kTls) {
    std::size_t bytes = body_.size();
    for (const auto& p : pieces_) bytes += p.text->size();
    body_.reserve(bytes);
    for (const auto& p : pieces_) body_ += *p.text;
    pieces_.clear();
  }
  status_ = r.status;
  close_after_ = close;
  arm_timer(Clock::now() + ctx_.limits.write_timeout);
  std::vector<boost::asio::const_buffer> bufs;
  bufs.reserve(2 + pieces_.size());
  bufs.push_back(boost::asio::buffer(head_));
  bufs.push_back(boost::asio::buffer(body_));
  for (const auto& p : pieces_) bufs.push_back(boost::asio::buffer(*p.text));
  boost::asio::async_write(stream_, bufs,
                           [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                             if (ec || self->closed_) return self->close();
                             self->after_write();
                           });
}

template <class Stream>
void Session<Stream>::after_write() {
  ctx_.metrics.request(status_, std::chrono::duration<double>(Clock::now() - request_start_).count());
  head_.clear();
  // Released, not kept for the next answer: an idle keep-alive connection
  // would otherwise hold a body's worth of memory (megabytes at 256 drives),
  // and the pieces' text a newer scrape has replaced.
  body_ = std::string();
  pieces_.clear();
  if (close_after_) return linger_close();
  first_ = false;
  wait_request();
}

// Half-close, then read and discard until the client closes or kLinger
// passes: closing with unread request bytes would send a reset that can
// destroy the response in the client's receive buffer.
template <class Stream>
void Session<Stream>::linger_close() {
  boost::system::error_code ignored;
  socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  lingering_ = true;
  arm_timer(Clock::now() + kLinger);
  drain();
}

template <class Stream>
void Session<Stream>::drain() {
  socket().async_read_some(boost::asio::buffer(buf_),
                           [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                             if (ec || self->closed_) return self->close();
                             self->drain();
                           });
}

template <class Stream>
void Session<Stream>::drop(DropReason reason) {
  if (closed_) return;
  ctx_.metrics.dropped(reason);
  close();
}

template <class Stream>
void Session<Stream>::close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  timer_.cancel();
  socket().close(ignored);
  ctx_.table.remove(id_);
  ctx_.metrics.closed();
}

template class Session<PlainStream>;
template class Session<TlsStream>;

}  // namespace nvmond::http
