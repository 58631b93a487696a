#pragma once
// nvmonctl's end of the control socket: connect, send one request, read one
// reply line within a deadline. Plain POSIX sockets and poll(2), so the
// tool needs no event loop.
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

#include "control/protocol.hpp"

namespace nvmond::control {

struct Exchange {
  // Connecting failed: errno (ENOENT, EACCES, ...); the rest is empty.
  int unreachable = 0;
  bool sent = false;
  // The reply line as JSON; discarded when none came whole before the
  // deadline, the daemon closed, or the line was not JSON.
  nlohmann::json reply = nlohmann::json(nlohmann::json::value_t::discarded);
};

// A daemon that accepts but never answers costs at most `deadline`.
Exchange exchange(const std::string& socket_path, const Request& request,
                  std::chrono::milliseconds deadline = std::chrono::seconds(30));

}  // namespace nvmond::control
