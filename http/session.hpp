#pragma once
// One client connection: (for TLS: tell a TLS hello from plain HTTP, then
// handshake), read request heads under the size and time limits, check
// basic auth, answer through the handler, keep alive or close. Every step
// is asynchronous on the server's io_context, so a connection that is idle,
// slow or half-open costs a socket and a timer and delays nobody.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "http/server_context.hpp"

namespace nvmond::http {

using PlainStream = boost::asio::ip::tcp::socket;
using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

template <class Stream>
class Session final : public Connection, public std::enable_shared_from_this<Session<Stream>> {
 public:
  // `keep` holds what the stream borrows (the TLS context) for the session's life.
  Session(Stream stream, ServerContext& ctx, std::shared_ptr<const void> keep = nullptr);
  // Registers with the connection table and starts reading.
  void start();
  void drop(DropReason reason) override;

 private:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;
  using Clock = std::chrono::steady_clock;
  void arm_timer(Clock::time_point deadline);
  void sniff_tls();
  void handshake(std::size_t n);
  void wait_request();
  void read_more();
  void consume(std::string_view data);
  void authorize();
  void check_password(std::shared_ptr<const Security> security, Credentials c);
  void answer(Response r);
  void write(Response r, bool close, bool head_only);
  void after_write();
  void close();
  void linger_close();
  void drain();
  boost::asio::ip::tcp::socket& socket() {
    if constexpr (kTls) {
      return stream_.next_layer();
    } else {
      return stream_;
    }
  }

  std::shared_ptr<const void> keep_;
  Stream stream_;
  ServerContext& ctx_;
  boost::asio::steady_timer timer_;
  ConnectionTable::Id id_ = 0;
  boost::asio::ip::address peer_;  // the client, for its failed-check allowance
  bool closed_ = false;
  std::array<char, 4096> buf_{};
  std::string pending_;  // bytes after the last head (pipelined requests)
  RequestParser parser_;
  Clock::time_point head_deadline_{};
  Clock::time_point request_start_{};
  std::string head_, body_;
  std::vector<BodyPiece> pieces_;  // the rest of the body being sent
  int status_ = 0;
  bool close_after_ = false;
  bool lingering_ = false;
  bool first_ = true;  // the connection's first request: its deadline runs from accept
};

extern template class Session<PlainStream>;
extern template class Session<TlsStream>;

}  // namespace nvmond::http
