#pragma once
// The metrics endpoint's HTTP/1.1 server: Boost.Asio on a thread of its own,
// so nothing the daemon's event loop does (a reload, a slow publish) delays a
// scrape, and nothing a client does reaches the daemon's loop. Plain HTTP or
// TLS and basic auth from an exporter-toolkit web config (security.hpp).
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/server_context.hpp"

namespace nvmond::http {

class Server {
 public:
  // Binds every address `listen` ("HOST:PORT", "[::1]:PORT") resolves to and
  // starts serving. Throws std::runtime_error naming the address when none
  // can be bound.
  Server(const std::string& listen, Handler handler, HttpMetrics& metrics, std::shared_ptr<const Security> security,
         Limits limits = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // New connections and requests use `security` from now on; connections
  // already open keep their TLS session. Thread-safe.
  void set_security(std::shared_ptr<const Security> security);
  // The bound addresses (a port 0 in `listen` is resolved here).
  const std::vector<boost::asio::ip::tcp::endpoint>& endpoints() const { return endpoints_; }
  // Closes the listeners and every connection, joins the thread. Idempotent.
  void stop();

 private:
  void accept(boost::asio::ip::tcp::acceptor& acceptor);
  void admit(boost::asio::ip::tcp::socket socket);

  boost::asio::io_context io_;
  boost::asio::thread_pool auth_pool_{1};
  ServerContext ctx_;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  std::vector<boost::asio::ip::tcp::endpoint> endpoints_;
  std::thread thread_;
  bool stopped_ = false;
};

// True if every address is loopback (127.0.0.0/8, ::1): the only case where
// plain HTTP without auth is not worth a warning.
bool all_loopback(const std::vector<boost::asio::ip::tcp::endpoint>& endpoints);

}  // namespace nvmond::http
