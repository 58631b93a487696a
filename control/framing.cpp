#include "control/framing.hpp"

namespace nvmond::control {

std::string frame(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

nlohmann::json unframe(const std::string& line) { return nlohmann::json::parse(line, nullptr, false); }

}  // namespace nvmond::control
