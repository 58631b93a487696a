#pragma once
// Where the control socket is and who may use it ([control] in the daemon's
// configuration): read by the config loader, bound by the daemon's control
// server, connected to by nvmonctl.
#include <optional>
#include <string>

namespace nvmond {

struct ControlSettings {
  std::string socket = "/run/nvmond/control.sock";
  std::string group;  // empty: root and the daemon's user only
};

// Why `group` cannot be the control socket's group ("unknown group"), or
// nullopt. Shared by the config check and the server.
std::optional<std::string> control_group_problem(const std::string& group);
// Why the daemon could not bind a control socket at `path` (a file that is
// not a socket, a directory that does not exist), or nullopt. A socket file
// left there is fine: the server replaces a stale one.
std::optional<std::string> control_socket_problem(const std::string& path);

}  // namespace nvmond
