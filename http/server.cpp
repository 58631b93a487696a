#include "http/server.hpp"

#include <pthread.h>

#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>

#include <stdexcept>

#include "core/log.hpp"
#include "http/session.hpp"

namespace nvmond::http {
namespace {

using boost::asio::ip::tcp;

// "HOST:PORT" -> host without IPv6 brackets, port. An empty host is every
// IPv4 address, as civetweb and Go read ":9947".
std::pair<std::string, std::string> split_listen(const std::string& listen) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("listen " + listen + ": expected HOST:PORT");
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  return {host, listen.substr(colon + 1)};
}

// A handler that throws answers 500 instead of taking the thread down.
Handler guarded(Handler h) {
  return [h = std::move(h)](const Request& req) {
    try {
      return h(req);
    } catch (const std::exception& e) {
      log::error("http: answering {} {}: {}", req.method, req.target, e.what());
      return Response::text(500, "internal error\n");
    }
  };
}

}  // namespace

bool all_loopback(const std::vector<tcp::endpoint>& endpoints) {
  for (const auto& e : endpoints) {
    if (!e.address().is_loopback()) return false;
  }
  return true;
}

Server::Server(const std::string& listen, Handler handler, HttpMetrics& metrics,
               std::shared_ptr<const Security> security, Limits limits)
    : ctx_{limits,
           guarded(std::move(handler)),
           metrics,
           ConnectionTable(limits.max_connections),
           std::move(security),
           auth_pool_,
           AuthLimiter(limits.auth_failures),
           0,
           {}} {
  auto [host, port] = split_listen(listen);
  tcp::resolver resolver(io_);
  boost::system::error_code ec;
  auto results = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec) throw std::runtime_error("cannot listen on " + listen + ": " + ec.message());
  std::string first_error;
  for (const auto& r : results) {
    auto a = std::make_unique<tcp::acceptor>(io_);
    auto ep = r.endpoint();
    a->open(ep.protocol(), ec);
    if (!ec) a->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec && ep.address().is_v6()) a->set_option(boost::asio::ip::v6_only(true), ec);
    if (!ec) a->bind(ep, ec);
    if (!ec) a->listen(boost::asio::socket_base::max_listen_connections, ec);
    if (ec) {
      if (first_error.empty()) first_error = ep.address().to_string() + ": " + ec.message();
      continue;
    }
    endpoints_.push_back(a->local_endpoint());
    acceptors_.push_back(std::move(a));
  }
  if (acceptors_.empty()) {
    throw std::runtime_error("cannot listen on " + listen + ": " +
                             (first_error.empty() ? "the host resolves to no address" : first_error));
  }
  for (auto& a : acceptors_) accept(*a);
  thread_ = std::thread([this] {
    // Named, so `top -H` and a profile tell the scrapes' thread apart.
    pthread_setname_np(pthread_self(), "nvmond-http");
    io_.run();
  });
}

Server::~Server() { stop(); }

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  boost::asio::post(io_, [this] {
    for (auto& a : acceptors_) {
      boost::system::error_code ignored;
      a->close(ignored);
    }
    ctx_.table.drop_all();
  });
  // Pending bcrypt checks finish first: their results post back to io_.
  auth_pool_.join();
  boost::asio::post(io_, [this] { io_.stop(); });
  if (thread_.joinable()) thread_.join();
}

void Server::set_security(std::shared_ptr<const Security> security) {
  boost::asio::post(io_, [this, s = std::move(security)]() mutable { ctx_.security = std::move(s); });
}

void Server::accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([this, &acceptor](const boost::system::error_code& ec, tcp::socket socket) {
    if (!acceptor.is_open()) return;
    if (!ec) {
      admit(std::move(socket));
    } else {
      // EMFILE and the like: log and go on accepting; the socket is not ours.
      log::warn("http: accept: {}", ec.message());
    }
    accept(acceptor);
  });
}

void Server::admit(tcp::socket socket) {
  if (!ctx_.table.make_room()) return;  // every connection is busy answering: refuse this one
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  if (ctx_.security->tls) {
    auto& tls = *ctx_.security->tls;
    auto s = std::make_shared<Session<TlsStream>>(TlsStream(std::move(socket), tls), ctx_, ctx_.security);
    s->start();
  } else {
    auto s = std::make_shared<Session<PlainStream>>(std::move(socket), ctx_);
    s->start();
  }
}

}  // namespace nvmond::http
