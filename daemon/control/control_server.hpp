#pragma once
// The control socket nvmonctl talks to: a Unix stream socket (mode 0660,
// group from [control] group) served on the daemon's io_context. Protocol:
// one JSON object per line each way (docs/operations.md, "nvmonctl and the control socket"). Every read
// and write is asynchronous: a slow, idle or hostile client holds only its
// own connection, never the event loop.
//
// Who may talk: root, the daemon's own user, and members of the configured
// group, checked from the peer's credentials (SO_PEERCRED, SO_PEERGROUPS) on
// top of the file mode. Anyone else gets {"ok":false,"error":"permission
// denied"} and is disconnected.
//
// How long: a request line must arrive whole within kControlRequestTimeout
// of the connection opening or of the previous reply, and a reply must be
// taken within it too; otherwise the connection is closed (with an error
// reply when the client was still to send). The deadlines are timers of the
// daemon's Clock (real time), so a ManualClock fires them in tests.
//
// How many: ControlSlots below. Members of the group cannot, alone or
// together, hold the connections root needs.
//
// Thread-safety: event-loop thread only; the handler runs there too.
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "control/control_settings.hpp"
#include "control/framing.hpp"
#include "control/protocol.hpp"
#include "core/clock.hpp"

namespace nvmond {

// A request longer than this (without its newline) gets an error reply and
// the connection is closed.
inline constexpr std::size_t kMaxControlRequest = control::kMaxRequestLine;

// nvmonctl sends its request as soon as it connects; a peer that has not
// sent a whole line (or taken its reply) by then is idle or hostile.
inline constexpr Duration kControlRequestTimeout = std::chrono::seconds(5);

// The connection slots of the control socket. Privileged peers (root and
// the daemon's own user) may use all `total`; everyone else shares
// total - reserved of them, at most `per_uid` each, so one group member
// cannot lock the others out and no number of them can lock root out.
class ControlSlots {
 public:
  struct Limits {
    std::size_t total = 64;
    std::size_t per_uid = 8;
    std::size_t reserved = 4;  // for privileged peers only
  };
  ControlSlots() : ControlSlots(Limits{}) {}
  explicit ControlSlots(Limits limits) : limits_(limits) {}

  // Takes a slot for `uid`, or says why not (the refusal the peer reads).
  std::optional<std::string> take(uid_t uid, bool privileged);
  void give_back(uid_t uid);
  std::size_t held() const { return held_; }

 private:
  Limits limits_;
  std::size_t held_ = 0;
  std::size_t unprivileged_ = 0;
  std::map<uid_t, std::size_t> by_uid_;  // unprivileged peers only
};

// Answers one decoded request; returns its reply. An exception becomes the
// error reply (control::ErrorReply, its message what()).
using ControlHandler = std::function<control::AnyReply(const control::Request& request)>;
// Sends the reply to one request; callable once, on the event loop's thread.
using ControlReply = std::function<void(control::AnyReply reply)>;
// Answers one request now or later: a request that needs a device or a
// database hands the work to another thread and replies when it posts back,
// so the loop never waits. The connection reads no other request meanwhile
// (one request at a time each), and the request deadline does not run: a
// command's own timeout bounds it. An exception thrown before the reply
// becomes the error reply.
using AsyncControlHandler = std::function<void(const control::Request& request, ControlReply reply)>;

class ControlServer {
 public:
  // Binds now; throws std::runtime_error naming the path when it cannot
  // (another nvmond answers there, a missing directory, an unknown group).
  // `clock` makes the request deadlines and must outlive the server.
  ControlServer(boost::asio::io_context& io, const Clock& clock, const ControlSettings& settings,
                AsyncControlHandler handler, ControlSlots::Limits limits = {});
  // A handler that answers every request at once.
  ControlServer(boost::asio::io_context& io, const Clock& clock, const ControlSettings& settings,
                ControlHandler handler, ControlSlots::Limits limits = {});
  ~ControlServer();  // closes every connection, and removes the socket file
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  const std::string& path() const { return path_; }
  // Connections holding a slot now.
  std::size_t connections() const { return slots_->held(); }

 private:
  class Session;
  void accept();
  // The peer's uid, whether it may talk at all, and whether it is privileged.
  struct Peer {
    uid_t uid = 0;
    bool allowed = false;
    bool privileged = false;
  };
  Peer peer(int fd) const;

  boost::asio::io_context& io_;
  const Clock& clock_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::string path_;
  std::optional<gid_t> group_;
  AsyncControlHandler handler_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  std::shared_ptr<ControlSlots> slots_;
  std::vector<std::weak_ptr<Session>> sessions_;
};

// The reply line to a request line: decoded by the protocol's codec (a line
// that does not decode is answered with its refusal), then `handler`.
std::string answer_control_line(const std::string& line, const ControlHandler& handler);
// The same for an asynchronous handler: `reply` is called once, maybe later.
void answer_control_line(const std::string& line, const AsyncControlHandler& handler, const ControlReply& reply);

}  // namespace nvmond
