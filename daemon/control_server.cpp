#include "daemon/control_server.hpp"

#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/log.hpp"

namespace nvmond {
namespace {

using boost::asio::local::stream_protocol;
constexpr std::size_t kMaxSessions = 64;

nlohmann::json error_reply(const std::string& message) { return {{"ok", false}, {"error", message}}; }

// A socket file left by a daemon that died is removed; one that answers
// belongs to a running nvmond and is an error.
void clear_stale(boost::asio::io_context& io, const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISSOCK(st.st_mode)) throw std::runtime_error("control socket " + path + ": exists and is not a socket");
  stream_protocol::socket probe(io);
  boost::system::error_code ec;
  probe.connect(stream_protocol::endpoint(path), ec);
  if (!ec) throw std::runtime_error("control socket " + path + ": another nvmond is answering there");
  std::filesystem::remove(path);
}

}  // namespace

nlohmann::json answer_control_line(const std::string& line, const ControlHandler& handler) {
  nlohmann::json req = nlohmann::json::parse(line, nullptr, false);
  if (req.is_discarded()) return error_reply("malformed request: not JSON");
  if (!req.is_object() || !req.contains("cmd") || !req["cmd"].is_string()) {
    return error_reply("malformed request: expected an object with a string \"cmd\"");
  }
  try {
    return handler(req);
  } catch (const std::exception& e) {
    return error_reply(e.what());
  }
}

class ControlServer::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(stream_protocol::socket s, const ControlHandler& handler, std::weak_ptr<int> alive,
          std::shared_ptr<std::size_t> count)
      : socket_(std::move(s)), buf_(kMaxControlRequest + 1), handler_(handler), alive_(std::move(alive)),
        count_(std::move(count)) {
    ++*count_;
  }
  ~Session() { --*count_; }

  void read() {
    boost::asio::async_read_until(socket_, buf_, '\n', [self = shared_from_this()](auto ec, std::size_t n) {
      self->on_line(ec, n);
    });
  }
  // Replies once, then closes.
  void refuse(const std::string& message) { write(error_reply(message), false); }

 private:
  void on_line(const boost::system::error_code& ec, std::size_t n) {
    if (alive_.expired()) return;
    if (ec == boost::asio::error::not_found) {  // the buffer filled without a newline
      write(error_reply("request larger than " + std::to_string(kMaxControlRequest) + " bytes"), false);
      return;
    }
    if (ec) return;  // EOF or reset: the client went
    std::string line(boost::asio::buffers_begin(buf_.data()), boost::asio::buffers_begin(buf_.data()) + static_cast<std::ptrdiff_t>(n) - 1);
    buf_.consume(n);
    write(answer_control_line(line, handler_), true);
  }
  void write(const nlohmann::json& reply, bool keep) {
    out_ = reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    boost::asio::async_write(socket_, boost::asio::buffer(out_), [self = shared_from_this(), keep](auto ec, std::size_t) {
      if (!ec && keep && !self->alive_.expired()) self->read();
    });
  }

  stream_protocol::socket socket_;
  boost::asio::streambuf buf_;
  const ControlHandler& handler_;
  std::weak_ptr<int> alive_;
  std::shared_ptr<std::size_t> count_;
  std::string out_;
};

ControlServer::ControlServer(boost::asio::io_context& io, const ControlSettings& settings, ControlHandler handler)
    : acceptor_(io), path_(settings.socket), handler_(std::move(handler)) {
  if (!settings.group.empty()) {
    struct group* g = ::getgrnam(settings.group.c_str());
    if (g == nullptr) throw std::runtime_error("control socket " + path_ + ": unknown group \"" + settings.group + "\"");
    group_ = g->gr_gid;
  }
  clear_stale(io, path_);
  boost::system::error_code ec;
  acceptor_.open(stream_protocol(), ec);
  if (!ec) acceptor_.bind(stream_protocol::endpoint(path_), ec);
  if (!ec) acceptor_.listen(16, ec);
  if (ec) throw std::runtime_error("control socket " + path_ + ": " + ec.message());
  // The unit's UMask=0077 would leave the group out: set the mode explicitly.
  if (::chmod(path_.c_str(), 0660) != 0 ||
      (group_ && ::chown(path_.c_str(), static_cast<uid_t>(-1), *group_) != 0)) {
    const std::string why = std::strerror(errno);
    std::filesystem::remove(path_);
    throw std::runtime_error("control socket " + path_ + ": setting mode 0660 and group: " + why);
  }
  log::info("control socket {}", path_);
  accept();
}

ControlServer::~ControlServer() {
  boost::system::error_code ec;
  acceptor_.close(ec);
  std::error_code rm;
  std::filesystem::remove(path_, rm);
}

bool ControlServer::allowed(int fd) const {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  if (cred.uid == 0 || cred.uid == ::geteuid()) return true;
  if (!group_) return false;
  if (cred.gid == *group_) return true;
  std::vector<gid_t> groups(256);
  socklen_t glen = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &glen) != 0) return false;
  groups.resize(glen / sizeof(gid_t));
  return std::find(groups.begin(), groups.end(), *group_) != groups.end();
}

void ControlServer::accept() {
  acceptor_.async_accept([this, alive = std::weak_ptr<int>(alive_)](const boost::system::error_code& ec,
                                                                     stream_protocol::socket s) {
    if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
    if (!ec) {
      const bool ok = allowed(s.native_handle());
      auto session = std::make_shared<Session>(std::move(s), handler_, alive, sessions_);
      if (!ok) session->refuse("permission denied");
      else if (*sessions_ > kMaxSessions) session->refuse("too many control connections");
      else session->read();
    }
    accept();
  });
}

}  // namespace nvmond
