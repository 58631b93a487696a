#pragma once
// The control commands as nvmonctl meets them: a JSON request in, the JSON
// reply the socket would carry out, through the protocol's own codec.
#include <nlohmann/json.hpp>

#include "control/codec.hpp"
#include "daemon/control/control_commands.hpp"

namespace nvmond::test {

// A request the codec refuses is answered with that refusal, as on the socket.
inline nlohmann::json ask_control(const nlohmann::json& request, ControlContext& ctx) {
  auto decoded = control::read_request_line(request.dump());
  if (const auto* refused = std::get_if<control::ErrorReply>(&decoded)) return control::encode(*refused);
  return nlohmann::json::parse(control::reply_line(handle_control(std::get<control::Request>(decoded), ctx)));
}

}  // namespace nvmond::test
