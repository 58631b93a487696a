#pragma once
// The control socket nvmonctl talks to: a Unix stream socket (mode 0660,
// group from [control] group) served on the daemon's io_context. Protocol:
// one JSON object per line each way (README "Control socket"). Every read
// and write is asynchronous: a slow, idle or hostile client holds only its
// own connection, never the event loop.
//
// Who may talk: root, the daemon's own user, and members of the configured
// group, checked from the peer's credentials (SO_PEERCRED, SO_PEERGROUPS) on
// top of the file mode. Anyone else gets {"ok":false,"error":"permission
// denied"} and is disconnected.
//
// Thread-safety: event-loop thread only; the handler runs there too.
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>

namespace nvmond {

struct ControlSettings {
  std::string socket = "/run/nvmond/control.sock";
  std::string group;  // empty: root and the daemon's user only
};

// A request longer than this (without its newline) gets an error reply and
// the connection is closed.
inline constexpr std::size_t kMaxControlRequest = 64 * 1024;

// Answers one request object (it has a string "cmd"); returns the reply
// object. Exceptions become {"ok":false,"error":what()}.
using ControlHandler = std::function<nlohmann::json(const nlohmann::json& request)>;

class ControlServer {
 public:
  // Binds now; throws std::runtime_error naming the path when it cannot
  // (another nvmond answers there, a missing directory, an unknown group).
  ControlServer(boost::asio::io_context& io, const ControlSettings& settings, ControlHandler handler);
  ~ControlServer();  // closes and removes the socket file
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  const std::string& path() const { return path_; }

 private:
  class Session;
  void accept();
  bool allowed(int fd) const;

  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::string path_;
  std::optional<gid_t> group_;
  ControlHandler handler_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  std::shared_ptr<std::size_t> sessions_ = std::make_shared<std::size_t>(0);
};

// The reply to a request line: parse, check the shape, call `handler`.
nlohmann::json answer_control_line(const std::string& line, const ControlHandler& handler);

}  // namespace nvmond
