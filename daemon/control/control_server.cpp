#include "daemon/control/control_server.hpp"

#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <fmt/core.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "control/codec.hpp"
#include "control/framing.hpp"
#include "core/log.hpp"

namespace nvmond {
namespace {

using boost::asio::local::stream_protocol;

control::ErrorReply error_reply(const std::string& message, std::optional<ErrorReason> reason) {
  return control::ErrorReply{message, reason};
}

// A socket file left by a daemon that died is removed; one that answers
// belongs to a running nvmond and is an error.
void clear_stale(boost::asio::io_context& io, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISSOCK(st.st_mode)) throw std::runtime_error("control socket " + path + ": exists and is not a socket");
  stream_protocol::socket probe(io);
  boost::system::error_code ec;
  probe.connect(stream_protocol::endpoint(path), ec);
  if (!ec) throw std::runtime_error("control socket " + path + ": another nvmond is answering there");
  std::filesystem::remove(path);
}

}  // namespace

std::optional<std::string> ControlSlots::take(uid_t uid, bool privileged) {
  if (held_ >= limits_.total) return "too many control connections";
  if (!privileged) {
    if (unprivileged_ >= limits_.total - std::min(limits_.reserved, limits_.total)) {
      return "too many control connections";
    }
    std::size_t& mine = by_uid_[uid];
    if (mine >= limits_.per_uid) {
      if (mine == 0) by_uid_.erase(uid);
      return fmt::format("too many control connections from uid {} (at most {} each)", uid, limits_.per_uid);
    }
    ++mine;
    ++unprivileged_;
  }
  ++held_;
  return std::nullopt;
}

void ControlSlots::give_back(uid_t uid) {
  --held_;
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;  // a privileged peer's
  --unprivileged_;
  if (--it->second == 0) by_uid_.erase(it);
}

void answer_control_line(const std::string& line, const AsyncControlHandler& handler, const ControlReply& reply) {
  auto req = control::read_request_line(line);
  if (auto* refused = std::get_if<control::ErrorReply>(&req)) return reply(std::move(*refused));
  // A handler that throws has not replied: the error is its reply.
  auto replied = std::make_shared<bool>(false);
  try {
    handler(std::get<control::Request>(req), [reply, replied](control::AnyReply r) {
      *replied = true;
      reply(std::move(r));
    });
  } catch (const std::exception& e) {
    if (!*replied) reply(error_reply(e.what(), control::reason_of(e)));
  }
}

std::string answer_control_line(const std::string& line, const ControlHandler& handler) {
  std::string out;
  answer_control_line(
      line, [&handler](const control::Request& req, const ControlReply& reply) { reply(handler(req)); },
      [&out](control::AnyReply r) { out = control::reply_line(r); });
  return out;
}

// One connection. Exactly one of a read or a write is pending at a time, and
// the deadline timer is armed for it: a read that times out is cancelled and
// answered with an error, a write that times out closes the connection.
class ControlServer::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(stream_protocol::socket s, const AsyncControlHandler& handler, std::weak_ptr<int> alive,
          std::unique_ptr<Timer> deadline)
      : socket_(std::move(s)),
        buf_(kMaxControlRequest + 1),
        handler_(handler),
        alive_(std::move(alive)),
        deadline_(std::move(deadline)) {}
  ~Session() {
    if (slots_) slots_->give_back(uid_);
  }

  // The slot this connection holds, handed back when it ends.
  void hold(std::shared_ptr<ControlSlots> slots, uid_t uid) {
    slots_ = std::move(slots);
    uid_ = uid;
  }

  void read() {
    reading_ = true;
    arm_deadline();
    boost::asio::async_read_until(socket_, buf_, '\n',
                                  [self = shared_from_this()](auto ec, std::size_t n) { self->on_line(ec, n); });
  }
  // Replies once, then closes.
  void refuse(const std::string& message, ErrorReason reason) { write(error_reply(message, reason), false); }

  // The server is going away: end now, and drop the timer while its clock lives.
  void stop() {
    boost::system::error_code ec;
    socket_.close(ec);
    deadline_.reset();
  }

 private:
  void arm_deadline() {
    if (!deadline_) return;
    deadline_->arm(kControlRequestTimeout, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->on_deadline();
    });
  }
  void on_deadline() {
    boost::system::error_code ec;
    if (!reading_) {
      socket_.close(ec);  // the peer does not take its reply
      return;
    }
    timed_out_ = true;
    socket_.cancel(ec);  // on_line answers
  }

  void on_line(const boost::system::error_code& ec, std::size_t n) {
    if (deadline_) deadline_->cancel();
    if (alive_.expired()) return;
    if (ec == boost::asio::error::operation_aborted && timed_out_) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(kControlRequestTimeout).count();
      write(error_reply(fmt::format("no complete request line within {} s", seconds), ErrorReason::timeout), false);
      return;
    }
    if (ec == boost::asio::error::not_found) {  // the buffer filled without a newline
      write(error_reply("request larger than " + std::to_string(kMaxControlRequest) + " bytes", ErrorReason::decode),
            false);
      return;
    }
    if (ec) return;  // EOF or reset: the client went
    std::string line(boost::asio::buffers_begin(buf_.data()),
                     boost::asio::buffers_begin(buf_.data()) + static_cast<std::ptrdiff_t>(n) - 1);
    buf_.consume(n);
    // The handler may outlive this connection's server (a reply posted
    // back after a reload of the socket): `alive_` tells.
    answer_control_line(line, handler_, [self = shared_from_this()](control::AnyReply reply) {
      if (self->alive_.expired()) return;
      self->write(reply, true);
    });
  }
  void write(const control::AnyReply& reply, bool keep) {
    reading_ = false;
    arm_deadline();
    out_ = control::reply_line(reply);
    boost::asio::async_write(socket_, boost::asio::buffer(out_),
                             [self = shared_from_this(), keep](auto ec, std::size_t) {
                               if (self->deadline_) self->deadline_->cancel();
                               if (!ec && keep && !self->alive_.expired()) self->read();
                             });
  }

  stream_protocol::socket socket_;
  boost::asio::streambuf buf_;
  const AsyncControlHandler& handler_;
  std::weak_ptr<int> alive_;
  std::unique_ptr<Timer> deadline_;
  bool reading_ = false;
  bool timed_out_ = false;
  std::shared_ptr<ControlSlots> slots_;
  uid_t uid_ = 0;
  std::string out_;
};

ControlServer::ControlServer(boost::asio::io_context& io, const Clock& clock, const ControlSettings& settings,
                             ControlHandler handler, ControlSlots::Limits limits)
    : ControlServer(
          io, clock, settings,
          [handler = std::move(handler)](const control::Request& req, const ControlReply& reply) {
            reply(handler(req));
          },
          limits) {}

ControlServer::ControlServer(boost::asio::io_context& io, const Clock& clock, const ControlSettings& settings,
                             AsyncControlHandler handler, ControlSlots::Limits limits)
    : io_(io),
      clock_(clock),
      acceptor_(io),
      path_(settings.socket),
      handler_(std::move(handler)),
      slots_(std::make_shared<ControlSlots>(limits)) {
  if (const auto problem = control_group_problem(settings.group)) {
    throw std::runtime_error("control socket " + path_ + ": " + *problem);
  }
  if (!settings.group.empty()) group_ = ::getgrnam(settings.group.c_str())->gr_gid;
  clear_stale(io, path_);
  boost::system::error_code ec;
  acceptor_.open(stream_protocol(), ec);
  if (!ec) acceptor_.bind(stream_protocol::endpoint(path_), ec);
  if (!ec) acceptor_.listen(16, ec);
  if (ec) throw std::runtime_error("control socket " + path_ + ": " + ec.message());
  // The unit's UMask=0077 would leave the group out: set the mode explicitly.
  if (::chmod(path_.c_str(), 0660) != 0 || (group_ && ::chown(path_.c_str(), static_cast<uid_t>(-1), *group_) != 0)) {
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
  for (const auto& weak : sessions_) {
    if (auto s = weak.lock()) s->stop();
  }
  std::error_code rm;
  std::filesystem::remove(path_, rm);
}

ControlServer::Peer ControlServer::peer(int fd) const {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return {};
  if (cred.uid == 0 || cred.uid == ::geteuid()) return {cred.uid, true, true};
  if (!group_) return {cred.uid, false, false};
  if (cred.gid == *group_) return {cred.uid, true, false};
  std::vector<gid_t> groups(256);
  socklen_t glen = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &glen) != 0) return {cred.uid, false, false};
  groups.resize(glen / sizeof(gid_t));
  return {cred.uid, std::find(groups.begin(), groups.end(), *group_) != groups.end(), false};
}

void ControlServer::accept() {
  acceptor_.async_accept(
      [this, alive = std::weak_ptr<int>(alive_)](const boost::system::error_code& ec, stream_protocol::socket s) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
        if (!ec) {
          const Peer who = peer(s.native_handle());
          auto session = std::make_shared<Session>(std::move(s), handler_, alive, clock_.real_timer(io_));
          std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
          sessions_.push_back(session);
          if (!who.allowed) {
            session->refuse("permission denied", ErrorReason::permission_denied);
          } else if (auto refused = slots_->take(who.uid, who.privileged)) {
            session->refuse(*refused, ErrorReason::full);
          } else {
            session->hold(slots_, who.uid);
            session->read();
          }
        }
        accept();
      });
}

}  // namespace nvmond
